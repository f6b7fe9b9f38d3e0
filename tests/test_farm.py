"""The farm of test blogs keeps its promises: reachable posts, parseable feeds, complete and
stable truth, harness-compatible copies, and every fault as its table declares."""
from __future__ import annotations

import datetime as dt
import importlib.util
import os
import subprocess
import sys
import time
import urllib.parse

import feedparser
import pytest
import requests
from lxml import etree
from lxml import html as lhtml
from protego import Protego

from tests.farm import FAMILIES, make_blog
from tests.farm.blog import file_for
from tests.farm.faults import KINDS, fault
from tests.farm.server import FarmServer
from tests.farm.walk import walk

SEEDS = (1, 2)
CASES = [(f, s) for f in sorted(FAMILIES) for s in SEEDS]


def blog_first(url: str, depth: int):
    """The forum family hides its blog in a big site: look there first (a search, not a BFS)."""
    return (0 if urllib.parse.urlsplit(url).path.startswith("/blog/") else 1, depth)


def text_of(page: bytes) -> str:
    return " ".join(lhtml.fromstring(page).text_content().split())


# ---------------------------------------------------------------- reachability and feeds

@pytest.mark.parametrize("family,seed", CASES)
def test_every_post_reachable_by_links_from_home(farm_blog, family, seed):
    s = farm_blog(family, seed)
    want = set(s.post_urls())
    assert len(want) == len(s.blog.posts) == 40
    w = walk(s.url, budget=2000, priority=blog_first if family == "forum" else None,
             stop=lambda w: want <= set(w.pages))
    missing = want - set(w.pages)
    assert not missing, f"{len(missing)} posts unreachable, e.g. {sorted(missing)[:3]}"
    assert all(w.pages[u] == 200 for u in want)


def test_forum_breadth_first_wastes_fetches(farm_blog):
    s = farm_blog("forum", 1)
    want = set(s.post_urls())
    bfs = walk(s.url, budget=250)
    found = len(want & set(bfs.pages))
    assert bfs.fetches >= 250 and found < len(want) // 2, (bfs.fetches, found)
    smart = walk(s.url, budget=250, priority=blog_first, stop=lambda w: want <= set(w.pages))
    assert want <= set(smart.pages) and smart.fetches < 100
    forum_pages = [u for u in bfs.pages if "/forum/" in u or "/wiki/" in u or "/members/" in u]
    assert len(forum_pages) > 200  # the site around the blog is big and linked everywhere
    assert s.blog.n_topics + s.blog.n_wiki > 1000


@pytest.mark.parametrize("family,seed", CASES)
def test_feeds_parse(farm_blog, family, seed):
    s = farm_blog(family, seed)
    titles = {t["title"] for t in s.truth}
    for url in s.feed_urls():
        d = feedparser.parse(requests.get(url, timeout=10).content)
        assert not d.bozo, d.get("bozo_exception")
        assert 10 <= len(d.entries) <= 20 and len(d.entries) == s.blog.feed_size
        newest = s.blog.newest[: len(d.entries)]
        assert [e.link for e in d.entries] == [s.origin + p.path for p in newest]
        assert all(e.title in titles for e in d.entries)
        if s.blog.full_feed:
            assert all(" ".join(lhtml.fromstring(e.content[0].value).text_content().split()) == p.text
                       for e, p in zip(d.entries, newest))
        else:
            assert "content" not in d.entries[0]
    # and every other feed the site links to (comment feeds, the forum's own feed...)
    w = walk(s.url, budget=60)
    assert w.feeds
    for url, body in w.feeds.items():
        d = feedparser.parse(body)
        assert not d.bozo, (url, d.get("bozo_exception"))
        assert d.version, url


def test_feed_paging_reaches_older_entries(farm_blog):
    wp = farm_blog("wordpress", 1)
    d = feedparser.parse(requests.get(wp.origin + "/feed/?paged=2", timeout=10).content)
    assert [e.link for e in d.entries][0] == wp.origin + wp.blog.newest[wp.blog.feed_size].path
    bl = farm_blog("blogger", 1)
    url, links = bl.feed_urls()[0], []
    while url:
        d = feedparser.parse(requests.get(url, timeout=10).content)
        links += [e.link for e in d.entries]
        url = next((l.href for l in d.feed.links if l.rel == "next"), None)
    assert links == [bl.origin + p.path for p in bl.blog.newest]


def test_comment_feeds_match_truth(farm_blog):
    s = farm_blog("wordpress", 2)
    p = max(s.blog.posts, key=lambda p: len(p.comments))
    d = feedparser.parse(requests.get(s.origin + p.path + "feed/", timeout=10).content)
    assert 0 < len(d.entries) == min(len(p.comments), s.blog.comment_feed_size)
    assert {e.author for e in d.entries} <= {c.author for c in p.comments}
    home = feedparser.parse(requests.get(s.feed_urls()[0], timeout=10).content)
    e = next(e for e in home.entries if e.link == s.origin + s.blog.newest[0].path)
    assert e.wfw_commentrss == s.origin + s.blog.newest[0].path + "feed/"
    assert int(e.slash_comments) == len(s.blog.newest[0].comments)


# ---------------------------------------------------------------- truth

@pytest.mark.parametrize("family,seed", CASES)
def test_truth_complete(family, seed):
    b = make_blog(family, seed)
    truth = b.truth
    assert len(truth) == 40 and len({t["path"] for t in truth}) == 40
    for t, p in zip(truth, b.posts):
        assert t["title"].strip() and len(t["content_text"]) > 40 and t["authors"] == [p.author.name]
        published = dt.datetime.fromisoformat(t["published"])
        assert published.tzinfo is not None and published == p.published
        assert t["path"] == file_for(p.path)
        for c in t["comments"]:
            assert c["author"] and c["content_text"] and dt.datetime.fromisoformat(c["published"]) > published
        rep = b.render(p.path, "http://127.0.0.1:1")
        assert rep.status == 200


def test_truth_varies_as_platforms_do():
    blogs = [make_blog(f, s, 5) for f in FAMILIES for s in range(12)]
    assert {b.lang for b in blogs} == {"en", "fr", "es", "de"}
    assert {st for b in blogs for st in b.styles.values()} == {"id", "class", "bare"}
    assert {b.full_feed for b in blogs} == {True, False}
    assert max(len(b.authors) for b in blogs) >= 3
    assert len({b.date_style for b in blogs}) >= 4
    texts = " ".join(t["content_text"] for t in blogs[0].truth)
    assert any(ord(ch) > 127 for ch in texts)
    assert any(p.images for b in blogs for p in b.posts)
    assert 50 <= len(make_blog("static", 3, None).posts) <= 500
    assert len(make_blog("wordpress", 1, 500).posts) == 500


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_deterministic_and_growable(family):
    a, b = make_blog(family, 7), make_blog(family, 7)
    assert a.truth == b.truth
    assert a.render("/", "http://h").encoded() == b.render("/", "http://h").encoded()
    assert make_blog(family, 8).truth != a.truth
    grown = make_blog(family, 7, 30)
    new = grown.add_posts(10)
    assert len(new) == 10 and grown.truth == a.truth


def test_add_posts_shows_in_feed_and_listing(farm_blog):
    s = farm_blog("static", 1)
    before = feedparser.parse(requests.get(s.feed_urls()[0], timeout=10).content)
    new = s.add_posts(3)
    after = feedparser.parse(requests.get(s.feed_urls()[0], timeout=10).content)
    assert [e.link for e in after.entries[:3]] == [s.origin + p.path for p in reversed(new)]
    assert after.entries[3].link == before.entries[0].link
    assert requests.get(s.origin + new[0].path, timeout=10).status_code == 200
    assert s.hits["/index.xml"] == 2


def test_edit_post_changes_page_feed_and_truth(farm_blog):
    s = farm_blog("wordpress", 2, full_feed=True)
    p = s.blog.newest[1]
    before = s.truth[p.index]["content_text"]
    s.edit_post(p.index, "Update: the ferry now runs on Sundays.")
    assert s.truth[p.index]["content_text"] == before + " Update: the ferry now runs on Sundays."
    assert "the ferry now runs on Sundays" in text_of(requests.get(s.origin + p.path, timeout=10).content)
    d = feedparser.parse(requests.get(s.feed_urls()[0], timeout=10).content)
    assert "the ferry now runs on Sundays" in d.entries[1].content[0].value


# ---------------------------------------------------------------- platform traits

def test_wordpress_duplicates_and_comment_pages(farm_blog):
    s = farm_blog("wordpress", 2, comments_per_page=4)
    p = next(p for p in s.blog.posts if len(p.comments) > 4)
    page = requests.get(s.origin + p.path, timeout=10).text
    assert "?replytocom=" in page and "comment-page-2/" in page
    dup = requests.get(s.origin + p.path + f"?replytocom={p.comments[0].id}", timeout=10)
    assert dup.status_code == 200 and p.title in dup.text and "noindex" in dup.text
    page2 = requests.get(s.origin + p.path + "comment-page-2/", timeout=10)
    assert p.comments[4].author in page2.text


def test_blogger_date_header_outside_post(farm_blog):
    s = farm_blog("blogger", 1)
    p = s.blog.newest[0]
    doc = lhtml.fromstring(requests.get(s.url, timeout=10).content)
    header = doc.xpath('//h2[contains(@class, "date-header")]')[0]
    assert s.blog.show_date(p.published, False) in header.text_content()
    post = doc.xpath('//div[contains(@class, "post-outer")]')[0]
    assert s.blog.show_date(p.published, False) not in post.text_content()
    older = doc.xpath('//a[contains(@class, "blog-pager-older-link")]/@href')[0]
    assert "/search?updated-max=" in older
    r = requests.get(older, timeout=10)
    assert r.status_code == 200 and s.blog.newest[s.blog.per_page].title in r.text
    robots = Protego.parse(requests.get(s.origin + "/robots.txt", timeout=10).text)
    assert not robots.can_fetch(older, "blogharvest")  # as on blogspot.com


def test_spa_post_page_is_empty_without_javascript(farm_blog):
    s = farm_blog("spa", 1)
    p = max(s.blog.posts, key=lambda p: len(p.comments))
    page = requests.get(s.origin + p.path, timeout=10).content
    visible = text_of(page)
    assert p.title not in visible and p.text[:60] not in visible
    doc = lhtml.fromstring(page)
    src = doc.xpath('//*[@id="app"]/@data-src')[0]
    data = requests.get(urllib.parse.urljoin(s.origin + p.path, src), timeout=10).json()
    assert data["title"] == p.title and " ".join(lhtml.fromstring(data["html"]).text_content().split())
    url, got = urllib.parse.urljoin(s.url, data["comments"]["first"]), []
    while url:
        page = requests.get(url, timeout=10).json()
        got += [c["author"] for c in page["comments"]]
        url = page["next"] and urllib.parse.urljoin(s.url, page["next"])
    assert got == [c.author for c in p.comments]


CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"


@pytest.mark.browser
@pytest.mark.skipif(not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)), reason="needs chromium")
def test_spa_renders_in_headless_chromium(farm_blog):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    s = farm_blog("spa", 2, comments_per_page=3)
    p = max(s.blog.posts, key=lambda p: len(p.comments))
    assert len(p.comments) > 3
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        opts.add_argument(a)
    drv = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    try:
        drv.get(s.origin + p.path)
        wait = WebDriverWait(drv, 15, poll_frequency=0.05)
        wait.until(lambda d: d.find_element(By.ID, "app").get_attribute("data-state") == "ready")
        assert p.title in drv.title
        body = " ".join(drv.find_element(By.ID, "app").text.split())
        assert p.text[:80] in " ".join(body.split())
        comments = lambda: drv.find_elements(By.CSS_SELECTOR, "#comments ol.comment-list > li.comment")
        wait.until(lambda d: len(comments()) == 3)
        clicks = 0
        while drv.find_element(By.ID, "comments").get_attribute("data-complete") != "true":
            n = len(comments())
            drv.find_element(By.ID, "load-more-comments").click()
            clicks += 1
            wait.until(lambda d: len(comments()) > n)
        assert clicks == (len(p.comments) - 1) // 3
        assert [c.find_element(By.CLASS_NAME, "comment-author").text for c in comments()] == \
               [c.author for c in p.comments]
        assert not drv.find_element(By.ID, "load-more-comments").is_displayed()
    finally:
        drv.quit()


# ---------------------------------------------------------------- faults

@pytest.fixture
def wp(farm_blog):
    return farm_blog("wordpress", 1)


def normal(s, target):
    return s.render(target).encoded()


@pytest.mark.parametrize("kind", ["404", "410", "500", "503", "429"])
def test_fault_status(wp, kind):
    p = wp.blog.posts[3].path
    wp.faults[p] = fault(kind, retry_after=7) if kind in ("503", "429") else kind
    r = requests.get(wp.origin + p, timeout=10)
    assert r.status_code == int(kind)
    if kind in ("503", "429"):
        assert r.headers["Retry-After"] == "7"
    assert requests.get(wp.origin + wp.blog.posts[4].path, timeout=10).status_code == 200


def test_fault_transient_then_ok(wp):
    wp.faults["/feed/"] = fault("503", times=2)
    codes = [requests.get(wp.origin + "/feed/", timeout=10).status_code for _ in range(3)]
    assert codes == [503, 503, 200] and wp.hits["/feed/"] == 3


def test_fault_prefix_and_unknown_kind(wp):
    wp.faults["/category/*"] = "500"
    cat = wp.blog.categories[0]
    assert requests.get(f"{wp.origin}/category/{cat.lower()}/", timeout=10).status_code == 500 or \
        requests.get(wp.origin + next(b for b, *_ in wp.blog.archives() if b.startswith("/category/")),
                     timeout=10).status_code == 500
    assert requests.get(wp.url, timeout=10).status_code == 200
    with pytest.raises(ValueError):
        wp.faults["/"] = "teapot"


def test_fault_slow_is_bounded(wp):
    wp.faults["/"] = fault("slow", seconds=0.4)
    with pytest.raises((requests.exceptions.ReadTimeout, requests.exceptions.ConnectionError), match="timed out"):
        requests.get(wp.url, timeout=(5, 0.1))  # headers come at once; the body read times out
    start = time.monotonic()
    r = requests.get(wp.url, timeout=10)
    took = time.monotonic() - start
    assert r.status_code == 200 and 0.4 <= took < 5 and r.content == normal(wp, "/")


def test_fault_redirect_chain_and_loop(wp):
    p = wp.blog.posts[0].path
    wp.faults[p] = fault("redirect_chain", hops=4)
    r = requests.get(wp.origin + p, timeout=10)
    assert [h.status_code for h in r.history] == [301] * 4
    assert r.url == f"{wp.origin}/_hop/0{p}" and r.content == normal(wp, p)
    q = wp.blog.posts[1].path
    wp.faults[q] = "redirect_loop"
    with pytest.raises(requests.exceptions.TooManyRedirects):
        requests.get(wp.origin + q, timeout=10)
    first = requests.get(wp.origin + q, timeout=10, allow_redirects=False)
    assert first.status_code == 301 and first.headers["Location"] == f"{wp.origin}/_loop{q}"


def test_fault_charsets(farm_blog):
    s = farm_blog("wordpress", 1, lang="fr")
    p = s.blog.posts[0].path
    s.faults[p] = "wrong_charset"
    r = requests.get(s.origin + p, timeout=10)
    assert r.headers["Content-Type"].endswith("charset=iso-8859-1") and r.encoding.lower() == "iso-8859-1"
    assert r.content == normal(s, p) and r.text != r.content.decode("utf-8")  # non-ASCII turns to mojibake
    assert b'<meta charset="utf-8">' in r.content
    q = s.blog.posts[1].path
    s.faults[q] = "missing_charset"
    r = requests.get(s.origin + q, timeout=10)
    assert "charset" not in r.headers["Content-Type"].lower() and b"charset" not in r.content[:2000].lower()
    assert s.blog.posts[1].title in r.content.decode("utf-8")


def test_fault_truncated_and_malformed_feeds(wp):
    wp.faults["/feed/"] = "truncated"
    body = requests.get(wp.origin + "/feed/", timeout=10).content
    full = normal(wp, "/feed/")
    assert body == full[: len(full) // 2]
    d = feedparser.parse(body)
    assert d.bozo and len(d.entries) < wp.blog.feed_size
    wp.faults["/feed/"] = "malformed"
    body = requests.get(wp.origin + "/feed/", timeout=10).content
    with pytest.raises(etree.XMLSyntaxError):
        etree.fromstring(body)
    d = feedparser.parse(body)
    assert d.bozo and len(d.entries) == wp.blog.feed_size


def test_fault_binary_and_huge(wp):
    p = wp.blog.posts[2].path
    wp.faults[p] = fault("binary_html", size=3000)
    r = requests.get(wp.origin + p, timeout=10)
    assert r.headers["Content-Type"].startswith("text/html") and r.content.startswith(b"\x89PNG")
    assert len(r.content) == 3000
    with pytest.raises(UnicodeDecodeError):
        r.content.decode("utf-8")
    wp.faults["/"] = fault("huge", size=3_000_000)
    r = requests.get(wp.url, timeout=10)
    assert len(r.content) >= 3_000_000 and "Content-Length" not in r.headers
    assert r.content.endswith(b"</body>\n</html>\n") and lhtml.fromstring(r.content).xpath("//title")


def test_fault_robots_disallow(wp):
    p = wp.blog.posts[5].path
    wp.faults[p] = "disallow"
    wp.faults["/tag/*"] = "disallow"
    txt = requests.get(wp.origin + "/robots.txt", timeout=10).text
    robots = Protego.parse(txt)
    assert not robots.can_fetch(wp.origin + p, "blogharvest")
    assert not robots.can_fetch(wp.origin + "/tag/anything/", "blogharvest")
    assert robots.can_fetch(wp.origin + wp.blog.posts[6].path, "blogharvest")
    assert not robots.can_fetch(wp.origin + "/wp-admin/", "blogharvest")  # the blog's own rules stay
    assert requests.get(wp.origin + p, timeout=10).status_code == 200  # robots.txt is advice


def test_hostile_faults(wp):
    """The security suite's kinds (docs/security.md) do what tests/farm/faults.py says."""
    import http.client

    p, q = wp.blog.posts[3].path, wp.blog.posts[4].path
    port = int(wp.origin.rsplit(":", 1)[1])
    wp.faults[p] = fault("bad_location")
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)  # requests parses Location eagerly
    conn.request("GET", p)
    r = conn.getresponse()
    assert r.status == 302 and r.getheader("Location") == "http://[::1"
    conn.close()
    wp.faults[p] = fault("many_headers", count=150)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", p)
    with pytest.raises(http.client.HTTPException, match="more than 100 headers"):
        conn.getresponse()
    conn.close()
    wp.faults[p] = fault("charset", charset="rot13")
    r = requests.get(wp.origin + p, timeout=10)
    assert r.headers["Content-Type"].endswith("charset=rot13") and b'<meta charset="rot13">' in r.content
    wp.faults["/bomb.xml"] = fault("entity_bomb", size=100, refs=50)
    r = requests.get(wp.origin + "/bomb.xml", timeout=10)
    assert b"<!ENTITY big" in r.content and r.content.count(b"&big;") == 50
    wp.faults[p] = fault("probe", target="http://127.0.0.2/x")
    r = requests.get(wp.origin + p, timeout=10)
    assert r.text.count("http://127.0.0.2/x?via=") == 4
    wp.faults[p] = fault("dom_bomb", size=3_000_000)
    assert "'x'.repeat(1000000)" in requests.get(wp.origin + p, timeout=10).text
    wp.faults[p] = fault("set_cookie", count=3, size=10)
    assert len(requests.get(wp.origin + p, timeout=10).cookies) == 3
    wp.faults[q] = fault("require_no_cookie")
    assert requests.get(wp.origin + q, timeout=10).status_code == 200
    assert requests.get(wp.origin + q, timeout=10, headers={"Cookie": "a=b"}).status_code == 431
    wp.faults["/"] = fault("extra_link", href="/trap/")
    assert 'href="/trap/"' in requests.get(wp.url, timeout=10).text
    wp.faults["/trap/*"] = fault("deep_trap")
    t = requests.get(wp.origin + "/trap/d1/", timeout=10).text
    assert 'href="/trap/d1/d2/"' in t and 'href="/trap/d1/d1/"' in t and "?month=3" in t
    wp.faults["/"] = fault("extra_link", hrefs=["/calendar/1/", "/list/?page=1"])
    home = requests.get(wp.url, timeout=10).text
    assert 'href="/calendar/1/"' in home and 'href="/list/?page=1"' in home
    endless = {"calendar": ("/calendar/5/", ['"/calendar/6/"', '"/calendar/4/"', '"/calendar/5/5/"']),
               "paged_trap": ("/list/?page=3", ['"/list/?page=4"', '"/list/?page=5"']),
               "growing_query": ("/search/?a0=1", ['"/search/?a0=1&a1=1"', '"/search/?a0=2"']),
               "session_trap": ("/forum/", ['"/forum/?sid2='])}
    for kind, (target, links) in endless.items():
        wp.faults[target.split("/")[1].join("//") + "*"] = fault(kind, posts=[p])
        t = requests.get(wp.origin + target, timeout=10).text
        assert all(link in t for link in links) and f'href="{p}"' in t, (kind, t)


def test_fault_table_is_fully_tested():
    tested = {"404", "410", "500", "503", "429", "slow", "redirect_chain", "redirect_loop", "wrong_charset",
              "missing_charset", "truncated", "malformed", "binary_html", "huge", "disallow",
              "bad_location", "many_headers", "charset", "entity_bomb", "probe", "dom_bomb", "set_cookie",
              "require_no_cookie", "extra_link", "deep_trap", "calendar", "paged_trap", "growing_query",
              "session_trap"}
    assert set(KINDS) == tested


# ---------------------------------------------------------------- writing for harness.py, CLI

@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_written_blog_serves_through_harness(farm_written, shared_dir, family):
    options = {"n_topics": 60, "n_wiki": 40, "n_members": 10} if family == "forum" else {}
    dest = farm_written(family, 1, 15, **options)
    posts = (dest / "posts.txt").read_text(encoding="utf-8").split()
    assert len(posts) == 15 and all((dest / "site" / p).is_file() for p in posts)
    spec = importlib.util.spec_from_file_location("farm_harness", shared_dir / "eval" / "harness.py")
    harness = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(harness)
    truth = harness.read_jsonl(dest / "truth.jsonl")
    with harness.Served(dest) as served:
        home = requests.get(served.origin + "/", timeout=10)
        assert home.status_code == 200 and "127.0.0.1" in home.text or family in ("static", "spa")
        for t in truth[-3:]:
            r = requests.get(f"{served.origin}/{t['path']}", timeout=10)
            assert r.status_code == 200
            if family != "spa":
                assert t["title"] in text_of(r.content)
        d = feedparser.parse(requests.get(served.origin + make_blog(family, 1, 15, **options).feeds()[0],
                                          timeout=10).content)
        assert not d.bozo and d.entries and all(e.link.startswith(served.origin) for e in d.entries)
    # a perfect harvester scores 100 on its own truth
    records = [{"url": f"http://h/{t['path']}", **t} for t in truth]
    score = harness.score(truth, records)
    assert score["found"] == score["content_f1"] == score["title_exact"] == 100.0


def test_cli_serve(tmp_path):
    """`serve --port 0` binds a port the kernel picks and says which (no race for a picked port)."""
    proc = subprocess.Popen([sys.executable, "-m", "tests.farm", "serve", "blogger", "--port", "0",
                             "--posts", "30", "--fault", "/robots.txt=503:retry_after=3"],
                            cwd=os.path.dirname(os.path.dirname(__file__)), stdout=subprocess.PIPE, text=True)
    try:
        url = None
        for line in proc.stdout:  # it says where it serves once it listens
            if line.startswith("serving "):
                url = line.split()[1]
                break
        assert url, f"serve said no address (exit {proc.poll()})"
        port = int(url.rstrip("/").rsplit(":", 1)[1])
        r = requests.get(url, timeout=10)
        assert r.status_code == 200 and "blogger" in r.text
        robots = requests.get(f"http://127.0.0.1:{port}/robots.txt", timeout=2)
        assert robots.status_code == 503 and robots.headers["Retry-After"] == "3"
    finally:
        proc.terminate()
        proc.wait(10)
