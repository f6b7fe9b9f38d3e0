"""Property-based fuzzing (hypothesis) of what reads untrusted input: feeds, pages for rule
learning and extraction, dates, URLs. The property: a documented answer or a documented
error (FeedError), never an unhandled exception, never a hang.

A hang is caught by SIGALRM: each call gets HANG seconds of wall clock.
"""
from __future__ import annotations

import json
import os
import signal
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from tasks.discover import feeds
from tasks.text.dates import parse_date, renderings
from tasks.extract.post import extract_post
from tasks.learn.fields import learn_page, reduce_rules
from tasks.discover.urls import canonical, extract_links, is_post, learn_post_pattern, same_site, url_features
from tests.workers.report import note

HANG = 10.0
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow],
                derandomize=True)


@contextmanager
def noted(name: str, value):
    try:
        yield
    except Exception as e:
        _exception_note(name, ValueError(f"{e} on {value!r}") if isinstance(e, ValueError) else e)
        raise


class Hang(Exception):
    pass


@contextmanager
def bounded(what: str):
    def fire(*_):
        raise Hang(f"{what} ran longer than {HANG} s")

    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, HANG)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


COUNT: dict = {}  # what was fuzzed -> [examples run, test id, first exception seen]


def counted(name: str):
    row = COUNT.setdefault(name, [0, os.environ.get("PYTEST_CURRENT_TEST", "?").rsplit(" ", 1)[0], None])
    row[0] += 1


@pytest.fixture(autouse=True)
def _report(request):
    yield
    for name, (n, test, error) in COUNT.items():
        if test == request.node.nodeid:
            note(f"fuzz: {name}", f"{n} hypothesis examples (derandomized)",
                 "no unhandled exception, each call < 10 s",
                 "none; no hang" if error is None else f"{error} (shrunk example in the test output)",
                 test=test)


def _exception_note(name: str, e: BaseException) -> None:
    row = COUNT.get(name)
    if row and row[2] is None:
        row[2] = f"{type(e).__name__}: {e}"


# ---------------------------------------------------------------- feeds

RSS = ("<?xml version='1.0' encoding='utf-8'?><rss version='2.0'><channel><title>{t}</title>"
       "<link>http://b.example/</link><item><title>{t}</title><link>{link}</link>"
       "<description>{d}</description><pubDate>{date}</pubDate><author>{a}</author></item>"
       "</channel></rss>")
ATOM = ("<?xml version='1.0'?><feed xmlns='http://www.w3.org/2005/Atom'><title>{t}</title>"
        "<link rel='next' href='{link}'/><entry><title>{t}</title><link href='{link}'/><id>{link}</id>"
        "<published>{date}</published><content type='html'>{d}</content><author><name>{a}</name></author>"
        "</entry></feed>")
texts = st.text(max_size=200)
feed_docs = st.builds(lambda tpl, t, link, d, date, a, cut: tpl.format(t=t, link=link, d=d, date=date, a=a)
                      .encode("utf-8", "surrogatepass")[:cut],
                      st.sampled_from([RSS, ATOM]), texts, texts, texts, texts, texts,
                      st.integers(0, 4000))


def _check_feed(data: bytes) -> None:
    with bounded("parse_feed"):
        try:
            f = feeds.parse_feed(data, "http://b.example/feed/")
        except feeds.FeedError:
            return
        json.dumps(f)  # plain data, as the tasks pass it on
        assert isinstance(f["entries"], list)
        for page in range(1, 3):
            assert all(isinstance(u, str) for u in feeds.next_page_urls(f, "http://b.example/feed/", page))


@FUZZ
@given(feed_docs)
@example(b"")
@example(b"<rss><channel><item>" * 500)
@example(b"<?xml version='1.0'?><!DOCTYPE x [<!ENTITY a 'aaaaaaaaaa'><!ENTITY b '&a;&a;&a;&a;&a;&a;&a;&a;'>"
         b"<!ENTITY c '&b;&b;&b;&b;&b;&b;&b;&b;'>]><rss><channel><title>&c;</title></channel></rss>")
def test_fuzz_parse_feed_templates(data):
    counted("feed parsing (RSS/Atom templates with random fields, truncated)")
    _check_feed(data)


@FUZZ
@given(st.binary(max_size=3000))
def test_fuzz_parse_feed_bytes(data):
    counted("feed parsing (random bytes)")
    _check_feed(data)


@FUZZ
@given(texts, texts)
def test_fuzz_discover_feeds(html, base):
    counted("feed discovery (random HTML, base URL)")
    with bounded("discover_feeds"):
        out = feeds.discover_feeds(html, "http://b.example/" + base)
    assert all(isinstance(u, str) for u in out)


# ---------------------------------------------------------------- rule learning and extraction

tags = st.sampled_from(["div", "p", "span", "h1", "article", "a", "time", "table", "td", "ul", "li", "b"])


@st.composite
def html_pages(draw, depth=4):
    def node(d):
        tag = draw(tags)
        attrs = ""
        if draw(st.booleans()):
            attrs += f' class="{draw(st.sampled_from(["post", "entry title", "x", "", "a b c"]))}"'
        if draw(st.booleans()):
            attrs += f' id="{draw(st.sampled_from(["main", "t", "content", "1"]))}"'
        inner = draw(st.text(max_size=40)).replace("<", "&lt;")
        kids = "".join(node(d - 1) for _ in range(draw(st.integers(0, 3)))) if d > 0 else ""
        closing = "" if draw(st.integers(0, 9)) == 0 else f"</{tag}>"  # unclosed now and then
        return f"<{tag}{attrs}>{inner}{kids}{closing}"

    return "<html><body>" + "".join(node(depth) for _ in range(draw(st.integers(0, 3)))) + "</body></html>"


targets = st.fixed_dictionaries({
    "title": texts, "content": st.one_of(texts, html_pages(2)),
    "authors": st.lists(st.text(max_size=30), max_size=3),
    "published": st.one_of(st.none(), st.sampled_from(["2014-03-09", "2014-03-09T10:00:00+00:00", "1999-12-31T23:59:59Z",
                                                       "not a date", "", "0001-01-01", "9999-12-31"]))})


@FUZZ
@given(st.one_of(html_pages(), texts, st.binary(max_size=2000)), targets)
@example("<div>" * 3000 + "deep" + "</div>" * 3000, {"title": "deep", "content": "deep", "authors": [], "published": None})
def test_fuzz_learn_page_and_extract(page, target):
    counted("rule learning + extraction (random pages and feed targets)")
    with bounded("learn_page"):
        rules = learn_page(page, "http://b.example/p/1", target)
        json.dumps(rules)
        reduced = reduce_rules([rules, rules])
        out = extract_post(page, "http://b.example/p/1", reduced)
    assert set(out) >= {"title", "content_text", "content_html", "authors", "published"}
    json.dumps(out)


# ---------------------------------------------------------------- dates

@FUZZ
@given(st.one_of(texts, st.from_regex(r"\d{1,4}[-./ ]\d{1,2}[-./ ]\d{1,4}( \d{1,2}:\d{2}(:\d{2})?)?", fullmatch=True),
                 st.builds(lambda n, u: f"{n} {u} ago", st.integers(-10**12, 10**12),
                           st.sampled_from(["years", "days", "hours", "minutes", "weeks", "months"]))),
       st.sampled_from([None, "en", "fr", "de", "es", "xx"]))
@example("99999999999 years ago", None)
@example("31/02/2014", None)
def test_fuzz_parse_date(text, lang):
    counted("date parsing (random text, date-like strings, N units ago)")
    with bounded("parse_date"):
        iso = parse_date(text, lang)
    assert iso is None or (isinstance(iso, str) and iso[:4].isdigit())


@FUZZ
@given(st.one_of(st.dates().map(str), st.datetimes().map(lambda d: d.isoformat()), texts))
def test_fuzz_renderings(iso):
    counted("date renderings (random ISO dates and text)")
    with bounded("renderings"):
        out = renderings(iso)
    assert isinstance(out, list) and all(isinstance(s, str) for s in out)


# ---------------------------------------------------------------- URLs

urls = st.one_of(
    texts,
    st.builds(lambda s, h, p, q: f"{s}://{h}/{p}?{q}", st.sampled_from(["http", "https", "HTTP", "ftp", "", "javascript"]),
              st.one_of(st.sampled_from(["b.example", "WWW.B.example:80", "[::1]:8080", "xn--bcher-kva.example",
                                         "bücher.example", "a@b.example", "b.example:99999", "[bad"]), texts),
              texts, texts),
)


@FUZZ
@given(urls, urls)
@example("http://[bad/", "http://b.example/")
@example("http://b.example:99999/x", "http://b.example/")
def test_fuzz_url_handling(url, home):
    counted("URL handling (canonical, same_site, features, links)")
    with bounded("url functions"), noted("URL handling (canonical, same_site, features, links)", url):
        c = canonical(url)
        assert isinstance(c, str)
        assert canonical(c) == c or not c.startswith("http"), (url, c)  # idempotent
        same_site(url, home)
        f = url_features(url)
        assert all(isinstance(x, float) for x in f)
        extract_links(f'<a href="{url}">x</a><a href="{home}">y</a>', "http://b.example/")


@FUZZ
@given(st.lists(urls, min_size=1, max_size=12), st.lists(urls, max_size=5), urls)
def test_fuzz_post_pattern(posts, others, probe):
    counted("post-URL pattern learning and matching")
    with bounded("learn_post_pattern"), noted("post-URL pattern learning and matching", probe):
        pattern = learn_post_pattern(posts, others)
        assert isinstance(pattern, str)
        is_post(probe, pattern)
