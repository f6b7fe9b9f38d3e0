"""workers.extract.comments on a real Redis and a farm WordPress blog served over loopback: every
post's comments (feed, overflow learned on the page and its comment pages, the blog's rule
reused on posts beyond the feed), the same list whatever the order the posts are read in
and whether they are in the feed window."""
from __future__ import annotations

import datetime as dt

import pytest

from tasks.discover.feeds import parse_feed
from tasks.fetch.page import Page
from tasks.text.similarity import normalize_text
from tests.conftest import score
from tests.farm.fixtures import served_farm
from tests.farm.server import FarmServer
from tests.farm.wordpress import WordPress
from workers.extract import comments

farm = served_farm("wordpress", seed=3, n_posts=14, feed_size=8, comment_feed_size=4, comments_per_page=5)


def _same_instant(a: str | None, b: dt.datetime) -> bool:
    return bool(a) and dt.datetime.fromisoformat(a) == b


def test_every_comment_of_a_farm_blog_with_author_date_and_text(rt, farm):
    cid = rt.state.create_crawl(farm.url, None, {"js": "never"})
    feed = parse_feed(rt.downloader.get(farm.origin + "/feed/").content, farm.origin + "/feed/")
    entries = {e["url"]: e for e in feed["entries"]}
    assert any((e["comment_count"] or 0) > 4 for e in entries.values())  # the feeds overflow
    total = good = 0
    for post in reversed(farm.blog.posts):  # newest first: feed posts come before the others
        url = farm.origin + post.path
        page = Page.from_response(rt.downloader.get(url), url)
        got = comments.comments_for(rt, cid, url, entries.get(url), page, page.root)
        found = {(c["author"], normalize_text(c["content_text"])): c for c in got}
        for c in post.comments:
            total += 1
            hit = found.get((c.author, normalize_text(c.text)))
            good += bool(hit and _same_instant(hit["published"], c.published))
        assert len(got) == len(post.comments)  # no duplicates from comment-page-1/
    assert total > 40
    assert good / total >= 0.98, f"{good}/{total}"
    rule = rt.state.blog(cid)["comment_rules"]
    assert rule["container"] and rule["text"] and rule["author"] and rule["date"]


def test_rule_is_learned_once_and_reused(rt, farm):
    cid = rt.state.create_crawl(farm.url, None, {"js": "never"})
    post = max(farm.blog.posts[:6], key=lambda p: len(p.comments))  # an old post, beyond the feed
    url = farm.origin + post.path
    page = Page.from_response(rt.downloader.get(url), url)
    feed_hits = farm.hits[post.path + "feed/"]
    got = comments.comments_for(rt, cid, url, None, page, page.root)
    assert farm.hits[post.path + "feed/"] == feed_hits + 1  # found by the page's comment-feed link
    learned = rt.state.blog(cid)["comment_rules"]
    assert len(got) == len(post.comments)
    # a second post: the stored rule reads it; nothing is re-learned
    other = max((p for p in farm.blog.posts[:6] if p is not post), key=lambda p: len(p.comments))
    url2 = farm.origin + other.path
    page2 = Page.from_response(rt.downloader.get(url2), url2)
    got2 = comments.comments_for(rt, cid, url2, None, page2, page2.root)
    assert rt.state.blog(cid)["comment_rules"] == learned
    assert {c["author"] for c in got2} == {c.author for c in other.comments}


def _read_all(rt, farm, cid, posts, entries) -> dict:
    out = {}
    for post in posts:
        url = farm.origin + post.path
        page = Page.from_response(rt.downloader.get(url), url)
        got = comments.comments_for(rt, cid, url, entries.get(url), page, page.root)
        out[url] = [(c["id"], c["author"], c["published"], c["content_text"], c["parent"]) for c in got]
    return out


def test_same_comments_whatever_the_order_and_the_feed_window(rt, farm):
    """One worker, no race: newest first with the feed's entries (counts known, rule settled
    on the feed's sample) and oldest first as if every post were beyond the feed window
    (no entry, the rule learned on whichever post comes first) give the same lists."""
    feed = parse_feed(rt.downloader.get(farm.origin + "/feed/").content, farm.origin + "/feed/")
    entries = {e["url"]: e for e in feed["entries"]}
    runs = []
    for posts, known in ((farm.blog.posts[::-1], entries), (farm.blog.posts, {})):
        cid = rt.state.create_crawl(farm.url, None, {"js": "never"})
        rt.state.r.hdel(rt.keys(cid).blog, "comment_rules", "comment_rule_crawl")  # a blog met for the first time
        rt.state.save_entries(cid, list(known.values()))
        rt.state.save_blog(cid, entry_urls=list(known))
        runs.append(_read_all(rt, farm, cid, posts, known))
    assert runs[0] == runs[1]
    assert sum(map(len, runs[0].values())) == sum(len(p.comments) for p in farm.blog.posts)
    for url, got in runs[0].items():
        assert [i for i, *_ in got] == [f"{url}#comment-{c.id}" for c in farm.blog.by_path[url[len(farm.origin):]].comments]


def test_comments_of_a_post_do_not_depend_on_crawl_order_or_feed_window(crawl, state):
    """Two crawls through real workers with posts added between (the two oldest posts leave
    the feed window, the blog's comment rule is stored by then): each post's comments are the
    same list both times (count, ids, order), without duplicates, and they are the farm's."""
    blog = WordPress(seed=14, n_posts=20)
    with FarmServer(blog) as site:
        info, first = crawl(site.url, js="never")
        assert info["state"] == "done", info
        site.add_posts(2)
        info2, update = crawl(site.url, since="2000-01-01", js="never")
        assert info2["state"] == "done", info2
    before = {r["url"]: r["comments"] for r in first}
    after_records = [state.record(info2["crawl_id"], u) for u in before]
    after = {r["url"]: r["comments"] for r in after_records}
    assert len(before) == 20
    shape = lambda cs: [(c["id"], c["author"], c["published"], normalize_text(c["content_text"])) for c in cs]
    differ = {u[len(site.origin):]: (len(before[u]), len(after[u])) for u in before if shape(before[u]) != shape(after[u])}
    assert not differ, differ
    assert {u: len(cs) for u, cs in before.items()} == {site.origin + p.path: len(p.comments) for p in blog.posts[:20]}
    for u, cs in before.items():  # the permalink, as page and feed both give it
        assert len({c["id"] for c in cs}) == len(cs), u
        assert all(c["id"].startswith(u + "#comment-") for c in cs), [c["id"] for c in cs]
    truth = blog.truth[:20]
    assert sum(len(t["comments"]) for t in truth) > 50
    assert score(truth, first)["comments"] >= 98 and score(truth, after_records)["comments"] >= 98
    # nothing changed on the old posts, so the update crawl outputs the new ones only
    assert {r["url"] for r in update} == {site.origin + p.path for p in blog.posts[20:]}


def test_a_blog_whose_pages_show_what_its_comment_feeds_give_reads_no_more_of_them(crawl):
    """The farm's WordPress pages show every comment with its name, exact date and text: once
    the sample post proves its feed adds nothing, the other posts' comment feeds are not read
    (one request less a post), and every comment still comes out."""
    blog = WordPress(seed=5, n_posts=24, comments_per_page=5)
    with FarmServer(blog) as site:
        info, records = crawl(site.url, js="never")
        feeds_read = [p for p in blog.posts if site.hits[p.path + "feed/"]]
    assert info["state"] == "done", info
    assert sum(len(p.comments) for p in blog.posts) > 40
    assert score(blog.truth, records)["comments"] == 100
    assert 1 <= len(feeds_read) <= comments.SAMPLE_TRIES, [p.path for p in feeds_read]


def test_the_sample_posts_comment_pages_and_feeds_are_fetched_once(crawl):
    """The settling reads its sample posts' comment pages and comment feeds; each sample post's
    own reading takes them from the crawl's page cache: no page of the blog is asked twice (each
    was, issue 33), and the post page is not asked again as its own comment page."""
    blog = WordPress(seed=5, n_posts=24, comments_per_page=5)
    with FarmServer(blog) as site:
        info, records = crawl(site.url, js="never")
        paged = {p: n for p, n in site.hits.items() if "comment-page-" in p}
        feeds = {p.path + "feed/": site.hits[p.path + "feed/"] for p in blog.posts}
    assert info["state"] == "done", info
    assert score(blog.truth, records)["comments"] == 100
    assert paged and max(paged.values()) == 1, {p: n for p, n in paged.items() if n > 1}
    assert max(feeds.values()) == 1, {p: n for p, n in feeds.items() if n > 1}
    # the post page is its first comment page (its pagination says so): never asked under that number
    assert not [p for p in paged if p.endswith("/comment-page-1/")]


def test_a_sample_posts_comment_feed_read_by_the_settling_is_not_asked_again(rt, farm):
    """A blog whose posts read their comment feeds (the feed times what the page dates by day):
    the settling's sample post reads its feed once, for the settling and for its own reading
    (whizzy asked three twice, issue 35); a post outside the sample reads its own."""
    cid = rt.state.create_crawl(farm.url, None, {"js": "never"})
    post, other = farm.blog.posts[-1], farm.blog.posts[-2]
    before = {p.path: farm.hits[p.path + "feed/"] for p in (post, other)}  # (the module's farm: read before)
    for p in (post, other):
        page = Page.from_response(rt.downloader.get(farm.origin + p.path), farm.origin + p.path)
        kept = p is post
        first = comments._post_feed(rt, cid, farm.origin + p.path, None, page, page.root, kept=kept)
        again = comments._post_feed(rt, cid, farm.origin + p.path, None, page, page.root, kept=kept)
        assert first == again and first, p.path
    assert farm.hits[post.path + "feed/"] - before[post.path] == 1
    assert farm.hits[other.path + "feed/"] - before[other.path] == 2


SUMMER_SEED = 9


def _clock_crawl(crawl, seed: int, clock: str, **options):
    blog = WordPress(seed=seed, n_posts=24, comments_per_page=5, comment_clock=clock, **options)
    assert blog.tz.utcoffset(blog.start) != dt.timedelta(0)  # (a clock the label misstates)
    with FarmServer(blog) as site:
        info, records = crawl(site.url, js="never")
        feeds_read = {p.path for p in blog.posts if site.hits[p.path + "feed/"]}
    assert info["state"] == "done", info
    by_url = {r["url"]: r for r in records}
    compared = 0
    for p in blog.posts:  # every comment at its own instant, from the page or the feed
        got = [dt.datetime.fromisoformat(c["published"]) for c in by_url[site.origin + p.path]["comments"]]
        assert sorted(got) == sorted(c.published for c in p.comments), p.path
        compared += len(got)
    assert compared > 40
    return blog, feeds_read


@pytest.mark.parametrize("seed, clock", [(4, "utc"), (7, "naive"), (8, "naive")])
def test_comment_times_a_page_prints_in_a_local_clock_are_read_in_it_and_the_feeds_left(crawl, seed, clock):
    """A theme that writes each comment's local time labelled UTC (seed 4: summer comments), or
    with no zone (seed 7: winter ones): the sample's feed shows the page's times one offset off,
    the rule learns that clock, and the other posts' comment feeds are not read; every comment
    comes out at its own instant. (Seed 8: no sample commenter left a site, so the permalink `a`
    around each `<time>` read the date as well as the `<time>`; elsewhere a commenter's name
    link is the first `a`: the date rule is the `<time>`, the node that is the date.)"""
    _, feeds_read = _clock_crawl(crawl, seed, clock)
    assert 1 <= len(feeds_read) <= comments.SAMPLE_TRIES, feeds_read


def test_a_clock_with_summer_time_is_learned_where_the_sample_spans_both_offsets(crawl):
    """A blog in a zone with summer time printing its comments' local time with no zone: the
    sample's comments show two offsets, the clock is the zones whose rules explain both, and the
    other posts' feeds are left (only a comment in the hour the clocks repeat or skip would need
    one); every comment comes out at its own instant."""
    blog, feeds_read = _clock_crawl(crawl, SUMMER_SEED, "naive", zone="America/New_York")
    offsets = {c.published.utcoffset() for p in blog.posts for c in p.comments}
    assert len(offsets) == 2
    assert 1 <= len(feeds_read) <= comments.SAMPLE_TRIES, feeds_read


def test_a_clock_learned_in_one_season_leaves_the_times_its_zones_disagree_on_to_the_feeds(crawl):
    """A fixed clock learned on May and June comments: the zones that print those times part in
    other months. Posts with a comment there read their feeds, the others do not, and every
    comment comes out at its own instant."""
    blog, feeds_read = _clock_crawl(crawl, 5, "utc")
    months = {p.path: {c.published.month for c in p.comments} for p in blog.posts if p.comments}
    assert {m for ms in months.values() for m in ms} - {5, 6}  # comments outside the sample's season
    assert feeds_read and len(feeds_read) < len(months), (feeds_read, months)


def _comment(i, author="Ann", published="2020-01-0%dT10:00:00+00:00", text="a comment number %d that says enough"):
    return {"id": f"#c{i}", "author": author, "published": published % i if "%" in published else published,
            "content_text": text % i, "parent": None}


def test_a_comment_feed_adds_what_the_page_lacks():
    page = [_comment(i) for i in range(1, 5)]
    assert not comments.feed_adds(page, [dict(c) for c in page])  # the same comments: nothing to add
    assert comments.feed_adds(page[:3], [dict(c) for c in page])  # a comment the page misses
    undated = [dict(c, published=None) for c in page]
    assert comments.feed_adds(undated, [dict(c) for c in page])  # the dates the page lacks
    anonymous = [dict(c, author=None) for c in page]
    assert comments.feed_adds(anonymous, [dict(c) for c in page])  # the names
    assert comments.feed_adds(page[:2], [dict(c) for c in page[:2]])  # too short a feed to judge by


def test_a_page_whose_blog_rule_another_worker_settles_is_deferred_not_held(rt, farm):
    """While another worker holds the settling lock, a page waits a moment and then raises
    RuleUnsettled, a HostBusy: the task defers the page (its thread free, no delivery counted)
    instead of waiting in its thread for the settling; once the lock is free it settles."""
    from workers import heal
    from workers.fetch.patience import HostBusy

    cid = rt.state.create_crawl(farm.url, None, {"js": "never"})
    token = heal.take_lock(rt.state.r, f"comment-rule:{cid}", 60)
    assert token
    try:
        try:
            comments.blog_rule(rt, cid)
        except HostBusy as e:
            assert isinstance(e, comments.RuleUnsettled) and 0 < e.wait <= 5
        else:
            raise AssertionError("blog_rule returned while another worker was settling the rule")
    finally:
        heal.release_lock(rt.state.r, f"comment-rule:{cid}", token)
    comments.blog_rule(rt, cid)
    assert rt.state.blog(cid).get("comment_rule_crawl") == cid


def test_settling_met_by_politeness_learns_each_sample_post_once(rt, farm, monkeypatch):
    """Settling the blog's rule reads several pages of one host; at a real pace each run meets
    the host's gap (HostBusy) and the next run, whichever page's task it is, replays what was
    fetched and gets a request further. What a run learned on a sample post is kept with those
    fetches (issue 33): the interrupted settling learns as often as an uninterrupted one, not
    once more per request, and settles on the same rule."""
    from workers.fetch.patience import HostBusy

    feed = parse_feed(rt.downloader.get(farm.origin + "/feed/").content, farm.origin + "/feed/")
    learned = []
    real_learn = comments.C.learn_comment_rule
    monkeypatch.setattr(comments.C, "learn_comment_rule", lambda *a, **k: learned.append(1) or real_learn(*a, **k))

    def settle(interrupt: bool):
        cid = rt.state.create_crawl(farm.url, None, {"js": "never"})
        rt.state.save_entries(cid, feed["entries"])
        rt.state.save_blog(cid, entry_urls=[e["url"] for e in feed["entries"]])
        rt.state.r.hdel(rt.keys(cid).blog, "comment_rules")  # (the blog's: each settling starts with none)
        learned.clear()
        real_get, runs = rt.downloader.get, 0
        while True:
            fetched = []

            def get(url, **kw):  # one request a run: the next meets the host's gap
                if interrupt and fetched:
                    raise HostBusy("farm", 1.0)
                fetched.append(url)
                return real_get(url, **kw)

            monkeypatch.setattr(rt.downloader, "get", get)
            runs += 1
            try:
                rule = comments.blog_rule(rt, cid)
                break
            except HostBusy:
                assert runs < 200
        monkeypatch.setattr(rt.downloader, "get", real_get)
        return rule, len(learned), runs

    rule, once, _ = settle(interrupt=False)
    again, interrupted, runs = settle(interrupt=True)
    assert runs >= 3  # the settling was interrupted, run after run
    assert once >= 1 and interrupted == once, (once, interrupted, runs)
    assert again == rule


def _footed_post(i: int, people: list[str]) -> str:
    comments = "".join(f"<div id='c{i}{k}'><p>{who}さん、こんにちは。舞台のお話、とても面白かったです、番号{k}。</p></div>"
                       f"<p class='posted'>投稿者 {who} : 2005年05月0{k + 2}日 1{k}:09</p>" for k, who in enumerate(people))
    return ("<html><body><div class='content'><h3>Post " + str(i) + "</h3>"
            + "<p>国立劇場では昨年から、今後復活上演すべき作品の検討を行っております。</p>" * 6
            + "<p class='posted'>投稿者 佐千菊 : 2005年04月26日 10:26</p><h2 id='comments'>コメント</h2>" + comments
            + "<h2>コメントしてください</h2><form><textarea></textarea></form></div></body></html>")


def test_a_rule_a_post_read_alone_learns_becomes_the_blogs_where_its_theme_prints_no_count(rt):
    """A blog whose newest posts (the settling's sample) have no comments settles no rule, and
    each post is read alone. The first post whose own blocks give a rule reading three comments
    or more gives the blog its rule where the page prints no count of its comments to fall
    short of (Movable Type's heading over them): the posts with one or two, whose lines alone
    teach no name, are read by it (a new blog's comments 56 % -> 99 %)."""
    cid = rt.state.create_crawl("http://mt.test/", None, {"js": "never"})
    rules = {"title": {"rule": "//*[@class='content']/h3"}, "content": {"rule": "//*[@class='content']"},
             "date": {"rule": "//*[@class='posted']"}}
    rt.state.save_blog(cid, rules=rules, comment_rule_crawl=cid, comment_feeds=False, comment_sampled=[])
    many = Page("http://mt.test/2005/04/post_80.html", "http://mt.test/2005/04/post_80.html",
                _footed_post(80, ["yuki", "さちぎく", "HineMosNotari"]))
    found = comments.comments_for(rt, cid, many.url, None, many)
    assert [c["author"] for c in found] == ["yuki", "さちぎく", "HineMosNotari"]
    assert rt.state.blog(cid).get("comment_rules")  # adopted
    two = Page("http://mt.test/2005/03/post_47.html", "http://mt.test/2005/03/post_47.html",
               _footed_post(47, ["鈴木", "さちぎく"]))
    assert [c["author"] for c in comments.comments_for(rt, cid, two.url, None, two)] == ["鈴木", "さちぎく"]
