"""One post page through `pipeline.process` on a real Redis and a farm WordPress blog: its
bytes are decoded once and its markup parsed once, whichever stages read it (links, rules,
settling, comments, the record, its archive).

The count is taken where the work is done: every module's binding of
`tasks.fetch.html.parse_html` and of `tasks.fetch.charset.decode` is wrapped for the call, and
only the calls given this page's own text (or bytes) count: the comment rule's sample pages,
comment pages and content fragments are other documents."""
from __future__ import annotations

import contextlib
import sys

import pytest

from tests.farm.fixtures import served_farm

farm = served_farm("wordpress", seed=5, n_posts=24, feed_size=3, comment_feed_size=4, comments_per_page=5)


class Calls:
    """The arguments of every call to the wrapped functions, and the responses fetched."""

    def __init__(self):
        self.args = {"parse_html": [], "decode": []}  # [(data, url or None)]
        self.fetched = {}  # requested url -> [Response]

    def decodes_of(self, content: bytes) -> int:
        """Decodings of these very bytes."""
        return sum(1 for data, _ in self.args["decode"] if data is content)

    def decodes(self, url: str) -> int:
        """Decodings of the bytes fetched for `url` (the very bytes: another URL serving the same
        ones, as comment-page-1/ does, is another fetch)."""
        mine = [id(r.content) for r in self.fetched.get(url, [])]
        return sum(1 for data, _ in self.args["decode"] if id(data) in mine)

    def parses(self, url: str, final: str, text: str) -> int:
        """Parses of this page's text (or bytes) under its own URL, or under none."""
        mine = [r.content for r in self.fetched.get(url, [])]
        return sum(1 for data, at in self.args["parse_html"] if at in (None, url, final)
                   and (data == text or any(data is b for b in mine)))


@contextlib.contextmanager
def counting(rt=None):
    """Wrap parse_html and decode wherever a module holds them (imported by name or not),
    and the downloader, whose responses tell which bytes are the page's."""
    from tasks.fetch import charset, html

    calls = Calls()
    originals = {"parse_html": html.parse_html, "decode": charset.decode}

    def wrap(name, fn):
        def counted(data, *a, **kw):
            url = (a[0] if a else kw.get("url" if name == "parse_html" else "encoding"))
            calls.args[name].append((data, url if name == "parse_html" else None))
            return fn(data, *a, **kw)
        return counted

    wrapped = {name: wrap(name, fn) for name, fn in originals.items()}
    with pytest.MonkeyPatch.context() as mp:
        for mod in list(sys.modules.values()):
            for name, fn in originals.items():
                if getattr(mod, name, None) is fn:
                    mp.setattr(mod, name, wrapped[name])
        if rt is not None:
            get = rt.downloader.get

            def fetch(url, *a, **kw):
                resp = get(url, *a, **kw)
                calls.fetched.setdefault(url, []).append(resp)
                return resp

            mp.setattr(rt.downloader, "get", fetch)
        yield calls


def test_a_page_decodes_at_its_making_and_parses_on_first_use_once():
    """The Page itself: its text decoded when it is made from a response, its tree parsed the
    first time a stage asks for it and never again; its cached form the page cache's JSON."""
    from tasks.fetch import html, page as pagemod
    from tasks.fetch.http import Response

    markup = "<html><head><title>T\u00e9</title></head><body><p>caf\u00e9</p></body></html>"
    resp = Response(url="http://x.test/p/", status=200, reason="OK", headers=[("Content-Type", "text/html")],
                    content=markup.encode("latin-1"), content_type="text/html", encoding="latin-1")
    with counting() as calls:
        page = pagemod.Page.from_response(resp, "http://x.test/p")
        assert calls.decodes_of(resp.content) == 1 and page.html == markup
        assert not calls.args["parse_html"]  # nothing parsed before a stage asks
        assert page.root is page.root and page.root.findtext(".//p") == "caf\u00e9"
        assert len(calls.args["parse_html"]) == 1
        assert calls.decodes_of(resp.content) == 1
    assert (page.url, page.final_url, page.how, page.status) == ("http://x.test/p", "http://x.test/p/", "http", 200)
    assert page.cached() == {"url": "http://x.test/p/", "html": markup}
    again = pagemod.Page.from_cached(page.cached(), "http://x.test/p")
    assert (again.how, again.url, again.final_url, again.html, again.content) == \
        ("cache", "http://x.test/p", "http://x.test/p/", markup, None)
    assert html.node_text(again.root.find(".//title")) == "T\u00e9"
    with pytest.raises(Exception):
        page.html = "changed"  # frozen: every stage reads the same page
    with pytest.raises(ValueError):
        pagemod.Page("u", "u", "", how="guessed")


def _learned_crawl(rt, farm, js=False) -> str:
    """A crawl of the farm blog through discovery and learning, in this process, ready to
    traverse; `js` the rendering decision it is given ("posts": post pages are rendered where
    they hint at comments by script)."""
    from workers import pipeline
    from workers.extract import comments
    from workers.fetch import rendering

    cid = rt.state.create_crawl(farm.url, None, {"js": "never"})
    rt.state.set_state(cid, "running")
    with rt.downloader.crawl(cid):
        plan = pipeline.discover(rt, cid, farm.url, None)
        pipeline.reduce(rt, cid, [pipeline.learn_one(rt, cid, e["url"]) for e in plan["entries"]])
        comments.blog_rule(rt, cid)  # settled on its sample (other pages) before the count
    rt.state.set_phase(cid, "traverse")
    rendering._decided.pop(cid, None)  # learning read the decision made at discovery
    rt.state.save_blog(cid, js=js)
    return cid


class Browser:
    """A browser pool that draws every page as served plus a paragraph (`drawn`), or, with no
    browser (`available` false), refuses as a machine without Chromium does."""

    def __init__(self, rt, available: bool):
        self.get, self.available, self.drawn = rt.downloader.get, available, {}  # (fetches not counted)

    def render(self, url, **_kw):
        from tasks.fetch.browser import RenderError

        if not self.available:
            raise RenderError("unavailable", url, "no browser on this machine")
        resp = self.get(url)
        self.drawn[url] = resp.text.replace("</body>", "<p>drawn by the browser</p></body>")
        return {"url": resp.url, "html": self.drawn[url], "resources": [], "refused": []}


@pytest.mark.parametrize("js", ["never", "no browser", "rendered"])
def test_a_post_page_is_decoded_once_and_parsed_once(rt, farm, monkeypatch, js):
    """js "posts" (its comments load by script): the page as served is read for hints of
    them, then rendered (once the DOM is there, that is the page parsed) or, with no browser,
    read as served."""
    from workers import pipeline
    from workers.fetch import rendering

    cid = _learned_crawl(rt, farm, js != "never" and "posts")
    browser = Browser(rt, available=js == "rendered")
    monkeypatch.setattr(rendering, "pool", lambda *_a: browser)
    if js == "rendered":  # this post's page hints at comments by script (what hints is tested on its own)
        monkeypatch.setattr(rendering, "script_hints", lambda _page: True)
    beyond = [p for p in farm.blog.posts if rt.state.cached_page(cid, farm.origin + p.path) is None]
    post = max(beyond, key=lambda p: len(p.comments))  # beyond the feed pages read: not cached
    url = farm.origin + post.path
    assert post.comments and rt.state.entry(cid, url) is None
    with rt.downloader.crawl(cid), counting(rt) as calls:
        result = pipeline.process(rt, cid, url)
    assert result.get("post") and "record" in result, result  # (False: another test saved it first, unchanged)
    record = rt.state.record(cid, url)
    assert record["title"] == post.title and len(record["comments"]) == len(post.comments)
    served = calls.fetched[url][0]
    assert calls.decodes(url) == 1, "the page's bytes decoded more than once"
    # (rendered: its hints are not read here, so the page as served may not be parsed at all)
    assert calls.parses(url, served.url, served.text) == (js != "rendered") or \
        (js == "rendered" and calls.parses(url, served.url, served.text) <= 1), "the page as served parsed more than once"
    if js == "rendered":
        assert calls.parses(url, served.url, browser.drawn[url]) == 1, "the rendered page parsed more than once"


def test_a_cached_post_page_is_parsed_once(rt, farm):
    from workers import pipeline

    cid = _learned_crawl(rt, farm)
    url = rt.state.blog(cid)["entry_urls"][0]
    cached = rt.state.cached_page(cid, url)  # learning read it: the traversal takes it from the cache
    assert cached is not None
    with rt.downloader.crawl(cid), counting(rt) as calls:
        result = pipeline.process(rt, cid, url)
    assert result.get("post") and "record" in result, result  # (False: another test saved it first, unchanged)
    assert url not in calls.fetched and calls.decodes(url) == 0
    assert calls.parses(url, cached["url"], cached["html"]) == 1, "the page parsed more than once"


def test_a_post_page_the_rules_miss_is_parsed_once(rt, farm):
    """Rules that find no title and no content on the page: the page-level extractor reads it."""
    from workers import pipeline

    cid = _learned_crawl(rt, farm)
    rules = rt.state.blog(cid)["rules"]
    missing = {"rule": "//*[@class='no-such-field']", "share": 1.0, "score": 1.0}
    rt.state.save_blog(cid, rules=dict(rules, title=missing, content=missing))
    beyond = [p for p in farm.blog.posts if rt.state.cached_page(cid, farm.origin + p.path) is None]
    url = farm.origin + beyond[-1].path
    with rt.downloader.crawl(cid), counting(rt) as calls:
        result = pipeline.process(rt, cid, url)
    assert result["post"] and rt.state.record(cid, url)["extraction"] == "fallback", result
    served = calls.fetched[url][0]
    assert calls.decodes(url) == 1, "the page's bytes decoded more than once"
    assert calls.parses(url, served.url, served.text) == 1, "the page parsed more than once"


def test_a_post_whose_rules_reading_fails_is_read_by_the_page_level_extractor(rt, farm, monkeypatch):
    """A bug in the rules' reading of one page (here: extract_root raising) loses no post: the
    error is reported and the page-level extractor reads it."""
    from workers import pipeline

    cid = _learned_crawl(rt, farm)
    url = rt.state.blog(cid)["entry_urls"][0]
    post = next(p for p in farm.blog.posts if farm.origin + p.path == url)

    def broken(*_a, **_kw):
        raise AttributeError("a rule's bug")

    monkeypatch.setattr(pipeline, "extract_root", broken)
    with rt.downloader.crawl(cid):
        result = pipeline.process(rt, cid, url)
    assert result["post"] and "record" in result, result
    record = rt.state.record(cid, url)
    assert record["title"] == post.title and record["content_text"]
    errors = [e for e in rt.state.errors(cid) if e["url"] == url]
    assert [e["kind"] for e in errors] == ["rules_reading_error"] and "a rule's bug" in errors[0]["message"]
