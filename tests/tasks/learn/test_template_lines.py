"""tasks/learn/template_lines.py: a marked line of the theme inside the content node, its day and
categories different on every post ("This entry was posted on ... and is filed under ..."), told
on training pages and cut from each post, however short the post."""
from tasks.fetch.html import block_text, parse_html
from tasks.learn.rules import apply_rule
from tasks.learn.template_lines import template_lines, without_template_lines

DAYS = ["Monday, May 18th, 2009 at 2:00 am", "Tuesday, June 2nd, 2009 at 11:15 pm", "Friday, July 3rd, 2009 at 9:01 am",
        "Sunday, August 9th, 2009 at 4:44 pm", "Monday, September 28th, 2009 at 1:00 am", "Friday, October 2nd, 2009 at 10:00 am"]
CATS = ["Tweets", "Travel", "Strange foods", "Lost in Translation", "Willosophy", "Bummer"]
STORY = ["The bus left at dawn and we sat on sacks of rice", "Nobody at the market sold anything I could name",
         "Rain came through the roof all night", "The monkeys took my sandals and my pride",
         "A wedding went past with four drummers and a goat", "I graded papers until my eyes gave up"]


def _post(i: int, words: int = 40, line: bool = True, mark: str = 'class="postmetadata alt"') -> str:
    body = " ".join((STORY[i % len(STORY)] + " again").split() * (words // 10 + 1))[: words * 6]
    meta = (f'<p {mark}><small>This entry was posted on {DAYS[i % len(DAYS)]} and is filed under '
            f'<a href="/c/{i}">{CATS[i % len(CATS)]}</a>. You can follow any responses to this entry through the '
            f'<a href="feed/">RSS 2.0</a> feed. You can <a href="#respond">leave a response</a>, or '
            f'<a href="./" rel="trackback">trackback</a> from your own site.</small></p>') if line else ""
    return (f'<html><body><div class="entry"><p class="intro">{STORY[(i + 1) % len(STORY)]}.</p>'
            f'<p>{body}.</p>{meta}</div></body></html>')


def _node(html: str, i: int = 0):
    return apply_rule(parse_html(html, f"http://b.test/{i}"), "//div[@class='entry']")[0]


def test_a_marked_line_of_nearly_the_same_words_is_the_templates_and_is_cut():
    lines = template_lines([_node(_post(i), i) for i in range(6)])
    assert [line["sig"] for line in lines] == ["p.alt.postmetadata"], lines
    assert {"entry", "posted", "filed", "responses"} <= set(lines[0]["words"])
    # a post of the same blog, another day and category: cut, the post's words stay
    text = block_text(without_template_lines(_node(_post(7), 7), lines))
    assert "This entry was posted" not in text and STORY[1] in text
    # a post whose text is shorter than the line itself: cut all the same
    short = block_text(without_template_lines(_node(_post(9, words=3), 9), lines))
    assert "This entry was posted" not in short and short.strip()


def test_marked_elements_that_say_something_else_on_every_post_are_the_posts():
    # p.intro is marked and on every page, but its words differ: no line of the template
    lines = template_lines([_node(_post(i), i) for i in range(6)])
    assert all(line["sig"] != "p.intro" for line in lines)
    # an unmarked line is no template line (a post's own sign-off may repeat)
    assert template_lines([_node(_post(i, mark=""), i) for i in range(6)]) == []
    # too few pages, or a line on too few of them, or a line the feed's contents hold: nothing
    assert template_lines([_node(_post(i), i) for i in range(3)]) == []
    assert template_lines([_node(_post(i, line=i < 3), i) for i in range(6)]) == []
    said = " ".join(block_text(_node(_post(i), i)) for i in range(6)).casefold()
    assert template_lines([_node(_post(i), i) for i in range(6)], said) == []


def test_a_post_that_is_only_the_line_is_kept_whole():
    lines = template_lines([_node(_post(i), i) for i in range(6)])
    line = _post(4).split("</p>", 2)[2].rsplit("</div>", 1)[0]  # the post's p.postmetadata alone
    meta = _node(f'<html><body><div class="entry">{line}</div></body></html>')
    assert "This entry was posted" in block_text(meta)
    assert without_template_lines(meta, lines) is meta  # nothing else would be left
