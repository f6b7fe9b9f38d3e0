"""Span rules: the value's place inside its node, learned on one page, applied to another."""
import pytest
from lxml import html

from tasks.learn.spans import apply_span, learn_span


def el(s):
    return html.fragment_fromstring(s)


@pytest.mark.parametrize("learn_on,values,apply_on,expected,author", [
    # date, separator, author
    ("<p>March 3, 2012 · Jane Doe</p>", ["Jane Doe"], "<p>September 12, 2013 · Jean-Luc de la Roche</p>",
     "Jean-Luc de la Roche", True),
    ("<p>March 3, 2012 · Jane Doe and John Roe</p>", ["Jane Doe", "John Roe"], "<p>May 1, 2013 · Ann Lee</p>",
     "Ann Lee", True),
    # words around the value
    ("<p>Posted by Jane Doe on March 3, 2012</p>", ["Jane Doe"], "<p>Posted by Bob on May 9, 2011</p>",
     "Bob", True),
    ("<p>Publié le 3 mars 2012 par Marie Dupont</p>", ["Marie Dupont"],
     "<p>Publié le 9 mai 2011 par Jean Martin et Paul Roux</p>", "Jean Martin et Paul Roux", True),
    # text pieces: a subtitle in its own element
    ("<h1>A title<small>and its subtitle</small></h1>", ["A title"], "<h1>Other one<small>sub</small></h1>",
     "Other one", False),
    ("<div><span>3 March 2012</span> <a>Jane Doe</a></div>", ["Jane Doe"],
     "<div><span>4 May 2011</span> <a>Ann</a> and <a>Bob</a></div>", "Ann and Bob", True),
    # a comment counter
    ("<h2>A title (2)</h2>", ["A title"], "<h2>Another: with colon (15)</h2>", "Another: with colon", False),
])
def test_learned_span_applies_to_another_post(learn_on, values, apply_on, expected, author):
    span = learn_span(el(learn_on), values, author)
    assert span is not None
    assert apply_span(el(learn_on), span, author) is not None
    assert apply_span(el(apply_on), span, author) == expected


def test_no_span_when_the_text_is_the_value():
    assert learn_span(el("<h1>A title</h1>"), ["A title"]) is None
    assert learn_span(el("<span>By Jane Doe</span>"), ["Jane Doe"], author=True) is None


def test_no_span_when_the_value_is_absent():
    assert learn_span(el("<h1>Something else</h1>"), ["A title"]) is None


def test_span_that_does_not_fit_gives_none():
    span = learn_span(el("<h2>A title (2)</h2>"), ["A title"])
    assert apply_span(el("<h2>No counter here</h2>"), span) is None


def test_an_author_span_covers_the_coauthors_the_feed_leaves_out():
    span = learn_span(el("<p>By Jane Doe and John Roe on March 3, 2012</p>"), ["Jane Doe"], author=True)
    assert apply_span(el("<p>By Ann Lee, Bo Ra and Cy Do on May 9, 2011</p>"), span, True) == "Ann Lee, Bo Ra and Cy Do"
    assert apply_span(el("<p>By Ann Lee on May 9, 2011</p>"), span, True) == "Ann Lee"


def _page(title_html, byline):
    return (f'<html lang="en"><head><title>x | Site</title></head><body><div class="post"><h1 class="t">{title_html}'
            f'</h1><div class="meta">{byline}</div><div class="c"><p>{"Body words here. " * 30}</p></div></div>'
            f'</body></html>')


def test_learn_page_and_reduce_keep_the_span_beside_the_rule():
    from tasks.learn.fields import learn_page, reduce_rules
    pages = []
    for k, (title, author, day) in enumerate([("First post", "Jane Doe", 3), ("Second one", "John Roe", 4),
                                              ("Third thing", "Ann Lee", 5)]):
        html = _page(f"{title} ({k + 2})", f"March {day}, 2012 · Jane Doe" if k == 0 else f"March {day}, 2012 · {author}")
        target = {"title": title, "content": "<p>" + "Body words here. " * 30 + "</p>",
                  "authors": ["Jane Doe" if k == 0 else author], "published": f"2012-03-0{day}T10:00:00+00:00"}
        pages.append(learn_page(html, "http://b.test/p", target))
    rules = reduce_rules(pages)
    assert rules["title"]["span"] == {"re": r"^(.+?)\s*\(\d+\)$"}
    assert rules["author"]["span"] == {"sep": "·", "index": -1}
    from tasks.extract.post import extract_post
    got = extract_post(_page("Fourth (17)", "May 9, 2013 · Bo Ra and Cy Do"), None, rules)
    assert got["title"] == "Fourth" and got["authors"] == ["Bo Ra", "Cy Do"]
    assert got["sources"]["title"] == "span" and got["sources"]["authors"] == "span"


def test_separator_span_counts_the_last_piece_from_the_end():
    from tasks.learn.spans import _separator_spans
    assert _separator_spans("3 May 2012 · News · jane doe", "jane doe") == [{"sep": "·", "index": -1}]
    assert _separator_spans("jane doe · 3 May 2012", "jane doe") == [{"sep": "·", "index": 0}]


def test_context_span_generalises_digits_around_the_value():
    from tasks.learn.spans import _context_span
    assert _context_span("A title (12)", ["A title"]) == [{"re": r"^(.+?)\s*\(\d+\)$"}]
    assert _context_span("A title", ["A title"]) == []
