"""The elected rules checked on the training pages (issue 31): implausible rules, and rules the
generic reading beats against the feed, are read generically."""
from __future__ import annotations

from tasks.extract.post import extract_root
from tasks.learn.plausible import checked_rules, generic_fields

WORDS = ("apple river stone cloud garden window letter mountain candle forest engine violin harbor meadow "
         "pepper silver thunder marble lantern orchard compass ribbon saddle tunnel anchor basket castle dragon "
         "feather glacier hammer island jungle kettle ladder magnet needle oyster parrot quarry rocket sailor "
         "tablet umbrella valley walnut yogurt zephyr bramble cobalt dagger").split()
SIDEBAR = "<div class='side'><p>" + "About me: a long profile text that every page of the site repeats. " * 6 + "</p></div>"


def page(i: int) -> str:
    words = WORDS[i * 8:(i + 1) * 8]  # each post its own words
    body = " ".join(f"{words[j % 8]} {words[(j * 3) % 8]} {words[(j + 5) % 8]}." for j in range(12))
    return (f"<html><head><title>Post {i} | Blog</title><meta property='og:title' content='Post {i}'>"
            f"<meta property='article:published_time' content='2014-03-{i + 1:02d}'></head><body>"
            f"<div class='site'>The Blog</div><h1 class='t'>Post {i}</h1><span class='d'>9 March 2014</span>"
            f"<article><p>{body}</p></article>{SIDEBAR}<div id='comments'><span class='who'>Bob</span></div></body></html>")


def pages(n=6, **entry):
    return [(page(i), f"https://b.test/p{i}/", dict({"url": f"https://b.test/p{i}/", "title": f"Post {i}",
                                                      "published": f"2014-03-{i + 1:02d}"}, **entry)) for i in range(n)]


def content(html, url):  # the generic reading's content: the article's text here
    return extract_root(__import__("tasks.fetch.html", fromlist=["parse_html"]).parse_html(html, url), html,
                        {"content": {"rule": "//article"}})["content_text"]


def test_a_title_rule_reading_the_site_name_and_a_one_day_date_rule_are_read_generically():
    rules = {"title": {"rule": "//*[@class='site']", "share": 1.0}, "date": {"rule": "//*[@class='d']", "share": 1.0},
             "content": {"rule": "//article", "share": 1.0}}
    out, notes = checked_rules(rules, pages(), extract_root, content)
    assert generic_fields(out) == {"title", "date"}
    assert len(notes) == 2 and all("instead" in n for n in notes)
    assert out["title"]["rule"] == "//*[@class='site']"  # kept for the template checks


def test_template_text_as_content_and_a_rule_inside_the_comments_are_read_generically():
    rules = {"title": {"rule": "//*[@class='t']", "share": 1.0}, "content": {"rule": "//*[@class='side']", "share": 1.0},
             "author": {"rule": "//*[@id='comments']/span[@class='who']", "share": 1.0}}
    out, _ = checked_rules(rules, pages(), extract_root, content)
    assert generic_fields(out) == {"content", "author"}


def test_good_rules_stay_and_few_pages_are_no_evidence():
    rules = {"title": {"rule": "//*[@class='t']", "share": 1.0}, "content": {"rule": "//article", "share": 1.0}}
    assert generic_fields(checked_rules(rules, pages(), extract_root, content)[0]) == set()
    bad = {"title": {"rule": "//*[@class='site']", "share": 1.0}}
    assert checked_rules(bad, pages(2), extract_root, content) == (bad, [])


def test_a_rule_selecting_a_node_inside_the_comments_is_read_generically():
    """The rule names no comment block (`//*[@class='who']`), but what it selects lies in one."""
    rules = {"title": {"rule": "//*[@class='t']", "share": 1.0}, "content": {"rule": "//article", "share": 1.0},
             "author": {"rule": "//*[@class='who']", "share": 1.0}}
    out, notes = checked_rules(rules, pages(), extract_root, content)
    assert generic_fields(out) == {"author"} and any("inside the comments" in n for n in notes)


def test_a_rule_reading_the_first_comments_name_is_judged_where_it_selects_one():
    """A positional rule (`div[2]/span/a`) reaches the first comment's name on the pages that
    have comments and nothing on the others: judged on the pages it selects a node on, it reads
    inside the comments (a blog's owner answering first made it the elected author rule)."""
    def with_comments(i: int, n: int) -> str:
        html = page(i).replace("<div id='comments'><span class='who'>Bob</span></div>", "")
        block = "".join(f"<div class='comments-body'><p>hi</p><span class='comments-post'>Posted by: "
                        f"<a href='http://spam.test/'>Guest {k}</a></span></div>" for k in range(n))
        return html.replace("</body>", f"<div class='blog'><div>x</div>{block}</div></body>")
    rules = {"title": {"rule": "//*[@class='t']", "share": 1.0}, "content": {"rule": "//article", "share": 1.0},
             "author": {"rule": "//*[@class='blog']/div[2]/span/a", "share": 1.0}}
    training = [(with_comments(i, 2 if i < 3 else 0), url, entry) for i, (_, url, entry) in enumerate(pages(6))]
    out, notes = checked_rules(rules, training, extract_root, content)
    assert generic_fields(out) == {"author"} and any("3 training pages it selects one on" in n for n in notes)
    few = [(with_comments(i, 2 if i < 2 else 0), url, entry) for i, (_, url, entry) in enumerate(pages(6))]
    assert not any("inside the comments" in n for n in checked_rules(rules, few, extract_root, content)[1])  # two: no evidence


def test_a_title_rewording_the_feeds_seo_title_agrees_with_it():
    from tasks.learn.plausible import _same_title

    assert _same_title("Updating your Debian Linux", "How to update your Debian Linux?")
    assert _same_title("post 3", "Post 3")
    assert not _same_title("Post 3 | The Blog", "Post 3")  # the title with more around it
    assert not _same_title("The Blog", "Post 3")


def test_an_author_rule_is_judged_by_the_names_it_reads():
    """A name beside its handle is a name ("Andreas Renberg (IQAndreas)"); a sentence is none,
    and a rule that finds a name on few pages read off the pages themselves (no feed) is none."""
    from tasks.learn.plausible import _implausible

    assert _implausible("author", [["Andreas Renberg (IQAndreas)"]] * 5) is None
    assert _implausible("author", [["Dit is het toilet wat we uitgezocht hebben"], ["Frans is aan het metselen"],
                                   ["Een uur later zag het er echter heel anders uit"], None]) is not None
    assert _implausible("author", [["Janny"], None, None, None, None, None], pseudo=True) is not None
    assert _implausible("author", [["Janny"], None, None, None, None, None]) is None  # a feed gave the others


def _dated(day_of_page, feed_date):
    """Six pages whose <span class='d'> prints day_of_page(i), the feed giving feed_date(i)."""
    out = []
    for i, (html, url, entry) in enumerate(pages()):
        html = html.replace("9 March 2014", day_of_page(i))
        out.append((html, url, dict(entry, published=feed_date(i))))
    return out


def test_a_day_the_feed_gives_those_posts_too_is_no_build_date():
    """Four of six posts of a series published on one day, the feed saying so too: the date rule
    reads each post's own day and stays. The same day on pages whose feed says otherwise is a
    build date, read generically (as before)."""
    rules = {"title": {"rule": "//*[@class='t']", "share": 1.0}, "date": {"rule": "//*[@class='d']", "share": 1.0},
             "content": {"rule": "//article", "share": 1.0}}
    series = lambda i: "18 May 2021" if i < 4 else f"{i} June 2021"  # noqa: E731
    feed = lambda i: "2021-05-18T10:00:00+03:00" if i < 4 else f"2021-06-{i:02d}T10:00:00+03:00"  # noqa: E731
    out, notes = checked_rules(rules, _dated(series, feed), extract_root, content)
    assert "date" not in generic_fields(out), notes
    built = lambda i: f"2021-06-{i + 1:02d}T10:00:00+03:00"  # noqa: E731
    out, notes = checked_rules(rules, _dated(series, built), extract_root, content)
    assert "date" in generic_fields(out) and any("build or copyright" in n for n in notes)


def test_a_feed_in_utc_agrees_with_the_day_a_page_prints_in_its_own_zone():
    """A blog in UTC+8 prints the day a post was written; its feed gives the time in UTC, often the
    evening before. The date rule agrees with it (a zone's day apart) and stays; a rule reading a
    day further off does not."""
    rules = {"title": {"rule": "//*[@class='t']", "share": 1.0}, "date": {"rule": "//*[@class='d']", "share": 1.0},
             "content": {"rule": "//article", "share": 1.0}}
    local = lambda i: f"{i + 2} March 2014"  # noqa: E731
    utc = lambda i: f"2014-03-{i + 1:02d}T21:00:00.000Z"  # 05:00 the next day in UTC+8  # noqa: E731
    out, notes = checked_rules(rules, _dated(local, utc), extract_root, content)
    assert "date" not in generic_fields(out), notes
    week = lambda i: f"{i + 8} March 2014"  # noqa: E731
    out, notes = checked_rules(rules, _dated(week, utc), extract_root, content)
    assert "date" in generic_fields(out), notes


def test_a_feed_dating_its_posts_off_their_urls_days_keeps_the_pages_dates():
    """A static site names a post's file the day its draft began (/posts/2021-01-05-slug/) and
    publishes it weeks later; page and feed say the later day. The URL's day overruled the
    page's date on a new blog's every such post (date 92 %): where the feed dates its training
    posts off their URLs' days, the page's date stands."""
    from tasks.fetch.html import parse_html

    def dated(i, url_day, shown):
        html = (f"<html><body><h1 class='t'>Post {i}</h1><time class='d'>{shown}</time>"
                f"<article><p>{' '.join(WORDS[i * 8:(i + 1) * 8] * 6)}</p></article></body></html>")
        url = f"https://b.test/posts/{url_day}-post-{i}/"
        return html, url, {"url": url, "title": f"Post {i}", "published": shown}

    later = [dated(i, f"2021-0{i + 1}-05", f"2021-0{i + 1}-{28 if i % 2 else 5:02d}") for i in range(6)]
    rules = {"title": {"rule": "//*[@class='t']", "share": 1.0}, "date": {"rule": "//*[@class='d']", "share": 1.0},
             "content": {"rule": "//article", "share": 1.0}}
    out, notes = checked_rules(rules, later, extract_root, content)
    assert out["date"].get("url_days") == "off" and any("URLs' days" in n for n in notes)
    html, url, _ = dated(7, "2022-03-05", "2022-03-30")
    assert extract_root(parse_html(html, url), html, out, url=url)["published"][:10] == "2022-03-30"
    assert extract_root(parse_html(html, url), html, rules, url=url)["published"][:10] == "2022-03-05"  # before
    same = [dated(i, f"2021-0{i + 1}-05", f"2021-0{i + 1}-05") for i in range(6)]  # the feed agrees: as before
    out, _ = checked_rules(rules, same, extract_root, content)
    assert "url_days" not in out["date"]


def test_an_implausible_content_rule_gives_way_to_its_plausible_runner_up():
    """Short posts in a theme that boxes each one with a subscribe section and the newest posts:
    the elected block holds them and reads mostly the same text on every page (the template),
    and the page-level reader took the boxes in too (content 66 %). The post's own block, voted
    second, reads each post's words: it is the content rule, not the generic reading."""
    box = ("<div class='subscribe'><p>Do not miss new articles: subscribe to my channels for updates, "
           "Telegram YouTube Patreon Podcast</p></div><div class='related'><h3>Similar articles:</h3><p>"
           + " ".join(f"Newest post number {j} of the blog, its title and day" for j in range(4)) + "</p></div>")
    pages = []
    for i in range(6):
        words = " ".join(WORDS[i * 8:(i + 1) * 8])
        html = (f"<html><body><h1 class='t'>Post {i}</h1><span class='d'>2014-03-0{i + 1}</span>"
                f"<div class='section'><div class='post'><p>{words}.</p></div>{box}</div></body></html>")
        url = f"https://b.test/p{i}/"
        pages.append((html, url, {"url": url, "title": f"Post {i}", "pseudo": True}))
    rules = {"title": {"rule": "//*[@class='t']", "share": 1.0},
             "content": {"rule": "//*[@class='section']", "share": 0.7, "fallbacks": ["//*[@class='post']"]}}
    out, notes = checked_rules(rules, pages, extract_root, content)
    assert out["content"]["rule"] == "//*[@class='post']" and out["content"].get("use") != "generic", out["content"]
    assert any("runner-up" in n for n in notes), notes
    assert out["content"]["fallbacks"][-1] == "//*[@class='section']"
