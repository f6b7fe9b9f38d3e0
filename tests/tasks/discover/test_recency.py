"""What an update crawl may leave unread, by the blog's own dates (tasks/discover/recency.py)."""
from tasks.discover.recency import archive_end, future, listing_cut, older, reaches_past, read_cut, series
from tasks.discover import recency


def test_older_keeps_a_day_of_margin():
    assert older("2020-01-01", "2020-03-01")
    assert not older("2020-02-29", "2020-03-01")  # a URL's day may be a day off (time zones)
    assert not older(None, "2020-03-01") and not older("2020-01-01", None)


def test_future():
    assert future("2999-01-01") and not future("2001-01-01")
    assert future("2020-01-02", today="2020-01-01") and not future("2020-01-01", today="2020-01-01")


def test_archive_end():
    assert archive_end("http://b.org/2019/") == "2019-12-31"
    assert archive_end("http://b.org/2019/02/") == "2019-02-28"
    assert archive_end("http://b.org/blog/2019/05/06/") == "2019-05-06"
    assert archive_end("http://b.org/2019/05/page/2/") == "2019-05-31"
    assert archive_end("http://b.org/?m=201905") == "2019-05-31"
    assert archive_end("http://b.org/2019/05/06/a-post/") is None
    assert archive_end("http://b.org/tag/x/") is None
    # a monthly archive named by a file of its own (Movable Type's archives/2004_05.html)
    assert archive_end("http://b.org/archives/2004_05.html") == "2004-05-31"
    assert archive_end("http://b.org/blog/2004-02/") == "2004-02-29"
    assert archive_end("http://b.org/archives/000005.html") is None
    assert archive_end("http://b.org/posts/2004-05-my-trip.html") is None


def test_series():
    assert series("http://b.org/page/3/") == ("http://b.org/", 3)
    assert series("http://b.org/tag/x/page/2/") == ("http://b.org/tag/x/", 2)
    assert series("http://b.org/p/3/") == ("http://b.org/", 3)  # Jekyll's paginate_path "/p/:num/"
    assert series("http://b.org/p/about.html") is None
    assert series("http://b.org/?paged=4&cat=2") == ("http://b.org/?cat=2", 4)
    assert series("http://b.org/blog/page2.html") == ("http://b.org/blog/", 2)
    assert series("http://b.org/page2/") == ("http://b.org/", 2)  # Jekyll's default paginate_path "/page:num/"
    assert series("http://b.org/homepage2/") is None and series("http://b.org/page2-notes/") is None
    assert series("http://b.org/2019/05/06/a-post/") is None
    assert series("http://b.org/a/P2.html") == ("http://b.org/a/", 2) and series("http://b.org/a/12-p2.html") is None


def test_listing_cut():
    since = "2020-03-01"
    # newest first: the undated link after an older dated one is old too (the listing proves it)
    past, old = listing_cut(["2020-05-01", None, "2020-01-01", None], since)
    assert not past and old == [False, False, True, True]
    past, old = listing_cut(["2019-05-01", None, "2019-01-01"], since)
    assert past and all(old)
    # no date known: nothing can be left
    assert listing_cut([None, None], since) == (False, [False, False])
    # dates out of order prove no order: undated links stay
    assert listing_cut(["2019-01-01", "2020-05-01", None], since) == (False, [True, False, False])


def test_reaches_past():
    since = "2020-03-01"
    assert reaches_past(["2020-05-01", None, "2020-03-10", "2020-01-01"], since)  # newest first, down past since
    assert not reaches_past(["2020-05-01", "2020-03-10"], since)  # all new: the next page may hold more
    assert not reaches_past(["2019-01-01", "2020-05-01", "2020-01-01"], since)  # out of order (a sticky post)
    assert not reaches_past(["2020-01-01"], since)  # one date proves no order
    assert not reaches_past(["2020-05-01", "2020-02-29"], since)  # a day's margin: maybe new


def test_the_day_a_listing_prints_beside_each_post_link():
    """A card's <time>, an archive line's printed date: the day of each post link, where its
    item (the largest block around it with no other post's link) shows one; none elsewhere."""
    from tasks.discover.recency import printed_days
    from tasks.fetch.html import parse_html

    html = ("<html><body><main>"
            "<article><h2><a href='/one/'>One</a></h2><p>Excerpt <a href='/one/'>more</a></p>"
            "<footer><a href='/tag/x/'>x</a> <time datetime='2020-09-24'>24 September 2020</time></footer></article>"
            "<article><h2><a href='/two/'>Two</a></h2><p class='meta'>Posted on May 27, 2020 · 3 min read</p></article>"
            "<article><h2><a href='/three/'>Three</a></h2><p>14 comments</p></article>"
            "</main><aside><time datetime='2001-01-01'>widget</time></aside></body></html>")
    root = parse_html(html, "https://b.test/")
    posts = ["https://b.test/one/", "https://b.test/two/", "https://b.test/three/"]
    got = printed_days(root, "https://b.test/", posts, exact=True)
    assert got == {"https://b.test/one/": "2020-09-24", "https://b.test/two/": "2020-05-27"}
    assert printed_days(root, "https://b.test/", posts) == got  # (the margin is older()'s)


def test_a_card_whose_excerpt_links_another_post_still_shows_its_own_day():
    """A timeline card: its day, its title's link, and an excerpt that links an older post of a
    series. The card is the title's item (the excerpt's link is no item of the listing): its day
    is the title's; the excerpt's link gets none from it."""
    from tasks.discover.recency import printed_days
    from tasks.fetch.html import parse_html

    card = ("<div class='card'><div class='time'>{day}</div><div class='body'><h5 class='title'>"
            "<a href='/{slug}/'>T</a></h5><p class='text'><p>Part of <a href='/{other}'>a series</a>.</p></p></div></div>")
    html = ("<html><body><main>" + card.format(day="Jul 7, 2015", slug="case", other="intro")
            + card.format(day="Jun 30, 2015", slug="loops", other="intro")
            + card.format(day="Jun 2, 2015", slug="intro", other="start") + "</main></body></html>")
    root = parse_html(html, "https://b.test/")
    posts = [f"https://b.test/{s}/" for s in ("case", "loops", "intro")] + ["https://b.test/intro", "https://b.test/start"]
    assert printed_days(root, "https://b.test/", posts, exact=True) == {
        "https://b.test/case/": "2015-07-07", "https://b.test/loops/": "2015-06-30", "https://b.test/intro/": "2015-06-02"}
    # the excerpts' "/intro" is the card's "/intro/": its day, though no item of the listing
    days = printed_days(root, "https://b.test/", posts, exact=True)
    assert recency.twin_days(days, posts) == {"https://b.test/intro": "2015-06-02"}


def test_a_widget_of_more_post_links_is_no_listings_items():
    """A listing of three cards, each with its <time>, beside a "recent posts" widget linking
    more posts than the listing (no day shown): the cards are the items, each link its own day;
    a widget's link takes no day from a container around the cards (every post read as the
    first card's day, a day before since, was left: a new post lost)."""
    from tasks.discover.recency import printed_days
    from tasks.fetch.html import parse_html

    card = "<article><h2 class='t'><a href='/{s}/'>T</a></h2><time datetime='{d}T11:00:00+02:00'>x</time></article>"
    days = {"c": "2018-12-04", "b": "2018-12-07", "a": "2018-12-05"}
    widget = "".join(f"<li class='w'><a href='/{s}/'>W</a></li>" for s in list(days) + ["old1", "old2", "old3"])
    html = ("<html><body><div id='page'><main>" + "".join(card.format(s=s, d=d) for s, d in days.items())
            + "</main><aside><ul>" + widget + "</ul></aside></div></body></html>")
    root = parse_html(html, "https://b.test/")
    posts = [f"https://b.test/{s}/" for s in list(days) + ["old1", "old2", "old3"]]
    assert printed_days(root, "https://b.test/", posts, exact=True) == {f"https://b.test/{s}/": d for s, d in days.items()}


def test_a_time_in_utc_gives_the_day_its_text_shows_or_keeps_its_margin():
    """WordPress prints `<time datetime="...+00:00">diciembre 5, 2018</time>`: the day the reader
    sees is the blog's; where the text reads as no date, a UTC time is, on an exact blog's cut,
    the latest local day it may be."""
    from tasks.discover.recency import printed_days
    from tasks.fetch.html import parse_html

    html = ("<html><body><main>"
            "<article><h2><a href='/a/'>A</a></h2><time datetime='2018-12-04T23:30:00+00:00'>5 December 2018</time></article>"
            "<article><h2><a href='/b/'>B</a></h2><time datetime='2018-12-04T23:30:00Z'>posted</time></article>"
            "<article><h2><a href='/c/'>C</a></h2><time datetime='2018-12-04T23:30:00+01:00'>posted</time></article>"
            "<article><h2><a href='/d/'>D</a></h2><time datetime='2018-12-04T23:30:00+00:00'>3 March 2011</time></article>"
            "</main></body></html>")
    root = parse_html(html, "https://b.test/")
    posts = [f"https://b.test/{s}/" for s in "abcd"]
    assert printed_days(root, "https://b.test/", posts, exact=True) == {
        "https://b.test/a/": "2018-12-05", "https://b.test/b/": "2018-12-05", "https://b.test/c/": "2018-12-04",
        "https://b.test/d/": "2018-12-05"}  # (a text far from its datetime is no reading of it)
    assert printed_days(root, "https://b.test/", posts) == {
        "https://b.test/a/": "2018-12-05", "https://b.test/b/": "2018-12-04", "https://b.test/c/": "2018-12-04",
        "https://b.test/d/": "2018-12-04"}  # (where older() keeps its margin, UTC times as they are)


def test_a_persian_listing_prints_jalali_days():
    from tasks.discover.recency import printed_days
    from tasks.fetch.html import parse_html

    html = ("<html><body><ul>"
            "<li><span>۱۶ بهمن ۱۳۹۶</span> <a href='/build-faster.html'>بیلد سریع‌تر</a></li>"
            "<li><span>۰۵ دی ۱۳۹۶</span> <a href='/seo.html'>افزودن متادیتا</a></li></ul></body></html>")
    root = parse_html(html, "https://b.test/")
    assert printed_days(root, "https://b.test/", ["https://b.test/build-faster.html", "https://b.test/seo.html"], exact=True) == {
        "https://b.test/build-faster.html": "2018-02-05", "https://b.test/seo.html": "2017-12-26"}


def test_read_cut_judges_the_days_read_from_the_top():
    since = "2020-03-01"
    new, newer, old, older_ = "2020-04-01", "2020-05-01", "2020-01-01", "2019-12-01"
    assert read_cut([newer, new, old, None, None], since) == 2  # newest first down past since
    assert read_cut([newer, None, old, None], since) is None  # a post above the old one not read yet
    assert read_cut([newer, "", new, old, None], since) == 3  # a post read and found undated proves nothing
    assert read_cut([newer, new, None], since) is None  # all new so far
    assert read_cut([new, newer, old], since) is None  # out of order: no proof
    assert read_cut([old, older_, None], since) == 1  # a listing of old posts only
    assert read_cut([old, older_, new], since, starts_new=True) is None  # the home page: a widget of old posts first
    assert read_cut([newer, old, older_], since, starts_new=True) == 1
    assert read_cut([newer, "2020-02-29"], since) is None  # a day's margin: maybe new
    # the days known below the cut must run newest first too: a listing in another order (by
    # updates: toliman-es) opens newest first and lists a new post below an old one
    assert read_cut([newer, new, old, older_], since) == 2
    assert read_cut([newer, new, old, new], since) is None
    # ... the days known below a link not read yet too: a category's posts out of order (a
    # hand-set date), a widget's known days below them
    assert read_cut([newer, new, old, None, "2019-11-01", "2019-11-20"], since) is None
    assert read_cut([newer, new, old, None, "2019-11-20", "2019-11-01"], since) == 2



def test_a_listing_bounded_by_a_date_in_its_query_ends_there():
    assert archive_end("http://b/search?updated-max=2012-03-05T09:14:00-05:00&max-results=7") == "2012-03-05"
    assert archive_end("http://b/?before=2019-05-01") == "2019-05-01"
    # a static mirror's copy of such a page, its query saved in the file name
    assert archive_end("http://b/search%3Fupdated-max=2012-03-05T09:14:00-05:00&max-results=7.html") == "2012-03-05"
    assert archive_end("http://b/search?q=2012-03-05") is None and archive_end("http://b/x?max-results=7") is None


def test_links_at_the_items_place_are_the_listings_not_those_in_an_excerpt():
    from lxml import html

    from tasks.discover.recency import at_items_place

    base = "http://b.example/page/2/"
    card = "<div class='card'><h3><a href='{u}'>T</a></h3><p>{x}</p></div>"
    body = card.format(u="/2020/05/01/a/", x="<a href='/2012/03/cited/'>an older post</a>") + \
        card.format(u="/2020/04/01/b/", x="") + card.format(u="/old-scheme-post/", x="")
    root = html.fromstring(f"<html><body>{body}</body></html>", base_url=base)
    posts = ["http://b.example/2020/05/01/a/", "http://b.example/2020/04/01/b/"]
    others = ["http://b.example/2012/03/cited/", "http://b.example/old-scheme-post/"]
    assert at_items_place(root, base, posts, others) == {"http://b.example/old-scheme-post/"}
    assert at_items_place(root, base, posts[:1], others) == set(others)  # one post link: nothing tells


def test_days_exact_where_every_given_day_is_the_printed_one_on_enough_days():
    agree = [(f"2020-05-{d:02d}", f"2020-05-{d:02d}T10:00:00+02:00") for d in range(1, recency.EXACT_MIN + 1)]
    assert recency.days_exact(agree)
    assert not recency.days_exact(agree[:-1])  # too few days to tell
    # one URL written a day off the page (a post near midnight in another zone): the margin stays
    assert not recency.days_exact(agree + [("2020-05-09", "2020-05-10")])
    assert recency.days_exact(agree + [(None, "2020-05-10")])  # (nothing given: nothing compared)


def test_days_exact_compares_months_given_and_counts_the_days_printed():
    """A URL that gives a month (/2020/05/slug.html) is compared by its month; a blog whose URLs
    give no date, and whose feed gives none with a zone, has only its printed days: they are
    exact where the pages print enough different days (a feed in UTC keeps its margin itself)."""
    printed = {f"2020-05-{d:02d}" for d in range(1, recency.EXACT_MIN + 1)}
    months = [("2020-05", p) for p in sorted(printed)]
    assert recency.days_exact(months)
    assert not recency.days_exact(months + [("2020-04", "2020-05-01")])  # a month off: the margin stays
    assert recency.days_exact([], printed)
    assert not recency.days_exact([], sorted(printed)[:-1])  # too few days printed to tell
    assert not recency.days_exact([("2020-05-02", "2020-05-01")], printed)


def test_an_entry_without_a_zone_keeps_its_margin_on_an_exact_blogs_cut():
    """On the cut of a blog whose days are exact (since_cut(since, True)), a feed date in UTC is
    the latest local day it may be: the post of since's own day, written in UTC the day before,
    is not taken for old; a zoned date, and a URL's day, are compared as they are."""
    cut = recency.since_cut("2018-12-05", True)
    utc = {"url": "http://b.example/p/", "published": "2018-12-04T23:30:00+00:00"}  # 12-05 on the page (+01:00)
    assert recency.entry_day(utc) == "2018-12-04" and recency.entry_day(utc, exact=True) == "2018-12-05"
    assert not recency.older(recency.entry_day(utc, exact=True), cut)
    zoned = {"url": "http://b.example/q/", "published": "2018-12-04T23:30:00+01:00"}
    assert recency.older(recency.entry_day(zoned, exact=True), cut)  # its own day: before since
    by_url = {"url": "http://b.example/2018/12/04/r/"}
    assert recency.entry_day(by_url, exact=True) == "2018-12-04"
    assert recency.entry_day({"url": "u", "updated": "2018-12-04"}, exact=True) == "2018-12-05"  # a bare day
    assert recency.entry_day(None, exact=True) is None


def test_since_cut_leaves_the_margin_only_for_exact_days():
    assert recency.since_cut("2020-03-01T12:00:00Z", False) == "2020-03-01"
    assert recency.since_cut("2020-03-01", True) == "2020-03-02"
    assert recency.older("2020-02-29", recency.since_cut("2020-03-01", True))  # the day before since: old
    assert not recency.older("2020-02-29", recency.since_cut("2020-03-01", False))  # (kept: time zones)
    assert not recency.older("2020-03-01", recency.since_cut("2020-03-01", True))
    assert recency.since_cut(None, True) is None


def test_zoned_dates_carry_an_offset_other_than_utcs():
    assert recency.zoned("2018-12-05T11:11:52+09:00") and recency.zoned("2018-12-05T11:11:52.5-0300")
    assert not recency.zoned("2018-12-05T11:11:52+00:00")  # (a feed in UTC: maybe a day off the page's)
    assert not recency.zoned("2018-12-05T11:11:52Z") and not recency.zoned("2018-12-05") and not recency.zoned(None)


def test_a_pages_items_reach_past_since_where_its_own_list_runs_newest_first():
    """The items are the dated links at the place most of them share: a home page listing every
    post (dated, newest first) reaches past since; one whose list holds new posts only, with a
    widget of older posts in order beside it, does not; nor one that opens with an old post."""
    from tasks.discover.recency import items_reach
    from tasks.fetch.html import parse_html

    def page(items, widget=()):
        return parse_html("<html><body><main>" + "".join(
            f"<div class='node'><h2><a href='/{u}.html'>T</a></h2></div>" for u in items) + "</main><aside><ul>"
            + "".join(f"<li><a href='/{u}.html'>W</a></li>" for u in widget) + "</ul></aside></body></html>", "https://b.test/")

    since = "2020-03-01"
    day = {"a": "2020-05-01", "b": "2020-04-01", "c": "2020-02-01", "d": "2020-01-01", "e": "2019-12-01", "f": "2019-11-01"}
    pairs = [(f"https://b.test/{u}.html", d) for u, d in day.items()]
    assert items_reach(page("abcd"), "https://b.test/", pairs, since)
    assert not items_reach(page("ab", widget="def"), "https://b.test/", pairs, since)
    assert not items_reach(page("cab"), "https://b.test/", pairs, since)  # an old post first (a sticky one)
    assert not items_reach(page("ab"), "https://b.test/", pairs, since)  # new posts only: nothing said of the rest


def test_a_post_read_is_judged_by_the_day_its_record_carries():
    """The day a post's page prints is its record's day: compared with since as it is. Given as
    older() is given it, that is a day early where older() keeps its margin (a blog whose days are
    not exact); a time in UTC, or a day from the URL or the feed, keeps the margin."""
    from tasks.discover.recency import record_day, since_cut

    since = "2015-07-07"
    for exact in (False, True):
        cut = since_cut(since, exact)
        assert older(record_day("2015-07-06", "rule", exact), cut)  # printed the day before since: old
        assert not older(record_day("2015-07-07", "rule", exact), cut)  # since's own day: new
        assert older(record_day("2015-07-06T23:30:00+03:00", "meta", exact), cut)  # the blog's zone
    assert not older(record_day("2015-07-06T22:27:00+00:00", "microdata", False), since)  # UTC: the margin
    assert not older(record_day("2015-07-06", "url", False), since)  # a URL's day: the margin
    assert not older(record_day("2015-07-06", "feed", False), since)
    assert record_day(None, "rule", False) is None


def test_a_page_number_beside_a_constant_one_is_the_pages():
    """b2evolution numbers its listing pages `paged` beside a constant `page=1`."""
    assert recency.series("http://b.example/index.php/ikke8b63.html?blog=5&page=1&paged=3") == \
        ("http://b.example/index.php/ikke8b63.html?blog=5&page=1", 3)
    assert recency.series("http://b.example/x.html?blog=5&page=1&paged=1") == ("http://b.example/x.html?blog=5&page=1", 1)
    assert recency.series("http://b.example/?page=2&x=1") == ("http://b.example/?x=1", 2)


def test_the_next_page_of_a_listing_under_a_file_name_of_its_own():
    """A mirror's numbered pages each under a file of its own: page n + 1 by the same query but
    the number, in the same folder; not another listing's page, not where two could be it, not
    where the listing's own base names its next page."""
    o = "http://b.example/index.php/"
    page2 = o + "ikke8b63.html?blog=5&page=1&paged=2"
    page3 = o + "ikke4aa9.html?blog=5&page=1&paged=3"
    tag3 = o + "ikke0e30.html?blog=5&cat=16&page=1&paged=3"
    assert recency.next_in_series(page2, [o + "ikkece51.html?blog=5&page=1&paged=1", tag3, page3]) == page3
    assert recency.next_in_series(page2, [tag3, "http://b.example/other/ikke4aa9.html?blog=5&page=1&paged=3"]) is None
    assert recency.next_in_series(page2, [page3, o + "ikke9999.html?blog=5&page=1&paged=3"]) is None
    assert recency.next_in_series("http://b.example/page/2/", ["http://b.example/page/3/"]) is None
    assert recency.next_in_series("http://b.example/post.html", [page3]) is None


def test_a_listings_items_are_first_where_it_prints_days():
    """Three dated cards and a "recent posts" widget of five undated links: the items are the
    cards (a link beside the widget's is no item; one beside the cards' titles is)."""
    from lxml import html

    base = "http://b.example/page/2/"
    cards = [f"http://b.example/2020/0{m}/0{m}/c{m}/" for m in (5, 4, 3)]
    recent = [f"http://b.example/2020/07/0{d}/r{d}/" for d in range(1, 6)]
    at_cards, at_widget = "http://b.example/old-scheme/", "http://b.example/elsewhere/"
    root = html.fromstring(
        "<html><body><main>" + "".join(f"<article><h2><a href='{u}'>T</a></h2><time>2020-0{m}-0{m}</time></article>"
                                       for m, u in zip((5, 4, 3), cards))
        + f"<article><h2><a href='{at_cards}'>T</a></h2></article></main><aside><ul>"
        + "".join(f"<li><a href='{u}'>R</a></li>" for u in recent + [at_widget]) + "</ul></aside></body></html>",
        base_url=base)
    printed = recency.printed_days(root, base, cards + recent)
    assert set(printed) == set(cards)
    assert recency.at_items_place(root, base, cards + recent, [at_cards, at_widget], printed) == {at_cards}
    assert recency.at_items_place(root, base, cards + recent, [at_cards, at_widget]) == {at_widget}
