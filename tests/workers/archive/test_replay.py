"""Archives that replay for real: a crawl's WARC served by pywb gives every post back as
the HTML page with its title (not the JSON record), its WACZ validates, and an update
crawl's revisit records replay through the first crawl's captures."""
from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
import zipfile

import lxml.html
import pytest
from warcio.archiveiterator import ArchiveIterator

from tasks.archive.wacz import validate_wacz
from tests.farm import make_blog
from tests.farm.server import FarmServer
from tests.replay import Wayback

CLI = [sys.executable, "-m", "workers.cli"]
pytestmark = pytest.mark.slow


def _env(tmp_path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "BLOGHARVEST_WACZ_DIR")}
    env.update(BLOGHARVEST_ALLOW_PRIVATE="1", BLOGHARVEST_HOME=str(tmp_path / "home"), **extra)
    return env


def _crawl(site, tmp_path, *args, name="blog", env=None) -> tuple[list[dict], str]:
    out = tmp_path / f"{name}.jsonl"
    p = subprocess.run(CLI + ["crawl", site.url, "--out", str(out), "--quiet", *args],
                       env=env or _env(tmp_path), capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    return [json.loads(line) for line in open(out, encoding="utf-8") if line.strip()], p.stderr


def _title(body: bytes) -> str | None:
    m = re.search(rb"<title[^>]*>(.*?)</title>", body, re.S | re.I)
    return html.unescape(m.group(1).decode("utf-8", "replace")).strip() if m else None


def _kinds(path) -> dict:
    """WARC-Type -> [target URI] of a WARC file."""
    out: dict = {}
    with open(path, "rb") as f:
        for rec in ArchiveIterator(f):
            out.setdefault(rec.rec_type, []).append(rec.rec_headers.get_header("WARC-Target-URI"))
    return out


def assert_replays(wb: Wayback, site) -> None:
    """Every post of the farm blog comes back from pywb as its HTML page, with its title."""
    failures = []
    for post, url in zip(site.blog.posts, site.post_urls()):
        status, headers, body = wb.get(url)
        ctype = headers.get("Content-Type", "")
        title = _title(body)
        if status != 200 or "html" not in ctype or not title or post.title not in title:
            failures.append((url, status, ctype, title, body[:120]))
    assert not failures, f"{len(failures)}/{len(site.blog.posts)} posts do not replay: {failures[:3]}"


@pytest.mark.parametrize("family", ["wordpress", "blogger", "static"])
def test_every_post_replays_in_pywb_and_the_wacz_validates(tmp_path, family):
    blog = make_blog(family, seed=21, n_posts=15)
    warc, wacz = tmp_path / "blog.warc.gz", tmp_path / "blog.wacz"
    with FarmServer(blog) as site:
        records, _ = _crawl(site, tmp_path, "--warc", str(warc), "--wacz", str(wacz))
        posts = set(site.post_urls())
    assert {r["url"] for r in records} == posts

    check = subprocess.run([sys.executable, "-m", "warcio.cli", "check", str(warc)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    kinds = _kinds(warc)
    assert posts <= set(kinds["response"]) and len(kinds["request"]) == len(kinds["response"])
    assert all(t.startswith("urn:blogharvest:record:") for t in kinds["metadata"])
    assert not posts & set(kinds["metadata"])  # nothing but the server's response sits on a post's URL

    with Wayback([warc]) as wb:
        assert_replays(wb, site)
        # the extracted record stays in the archive, under its URN
        status, headers, body = wb.get("urn:blogharvest:record:" + site.post_urls()[0], mode="id_")
        assert status == 200 and json.loads(body)["title"] == blog.posts[0].title

    ok, said = validate_wacz(str(wacz))
    assert ok, said
    with zipfile.ZipFile(wacz) as z:
        lines = [json.loads(x) for x in z.read("pages/pages.jsonl").decode().splitlines()[1:]]
        inside = z.read("archive/" + warc.name)
    assert {x["url"] for x in lines} == posts
    titles = {p.title for p in blog.posts}
    assert {x["title"] for x in lines} == titles and all(x.get("ts") for x in lines)
    assert inside == warc.read_bytes()


def test_wacz_dir_names_the_package_after_the_crawl(tmp_path):
    blog = make_blog("wordpress", seed=22, n_posts=6)
    waczs = tmp_path / "waczs"
    with FarmServer(blog) as site:
        _crawl(site, tmp_path, env=_env(tmp_path, BLOGHARVEST_WACZ_DIR=str(waczs)))
    made = list(waczs.glob("*.wacz"))
    assert len(made) == 1 and validate_wacz(str(made[0]))[0]
    assert [p.name for p in waczs.iterdir()] == [made[0].name]  # no WARC parts or temp files left beside it


def test_update_crawl_writes_revisits_that_replay(tmp_path):
    """An update crawl reads again what may hold something new (the home page, the listings)
    and leaves the posts it holds that nothing says changed (issue 35, docs/update.md): a page
    read again unchanged is a revisit record pointing at the first crawl's capture; pywb over
    both crawls' WARCs replays every post."""
    blog = make_blog("wordpress", seed=23, n_posts=10)
    first, second = tmp_path / "first.warc.gz", tmp_path / "second.warc.gz"
    env = _env(tmp_path)
    with FarmServer(blog) as site:
        _crawl(site, tmp_path, "--warc", str(first), name="first", env=env)
        _crawl(site, tmp_path, "--warc", str(second), "--since", "1990-01-01", name="second", env=env)
    kinds = _kinds(second)
    revisited = set(kinds.get("revisit", []))
    posts = set(site.post_urls())
    fetched = revisited | set(kinds.get("response", []))
    assert site.url in revisited  # read again, unchanged
    assert posts - fetched  # posts held, that nothing says changed, are not read again
    check = subprocess.run([sys.executable, "-m", "warcio.cli", "check", str(second)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr

    with Wayback([first, second]) as wb:
        assert_replays(wb, site)


def _words(text: str) -> str:
    return " ".join(html.unescape(text).split())


# per family: how a reader's browser waits for the post and pages through its comments
SCRIPT_COMMENTS = {
    "spa": lambda blog: ('#app[data-state="ready"]', ["#load-more-comments"]),
    "widget": lambda blog: (None, ["." + blog.c("next")]),
}


@pytest.mark.browser
@pytest.mark.parametrize("family", sorted(SCRIPT_COMMENTS))
def test_a_replayed_script_comments_post_shows_its_comments_in_chromium(tmp_path, family):
    """Comments that a script loads from JSON ("load more" for the rest): what Chromium
    fetched while the crawl rendered the posts (scripts, every page of comment JSON) is in
    the WARC, so with the blog gone, headless Chromium on pywb's replay runs the same
    scripts and shows each post with all its comments, which the page as served lacks."""
    from tasks.fetch.browser import BrowserPool

    blog = make_blog(family, seed=24, n_posts=6, comments_per_page=2)
    wait, more = SCRIPT_COMMENTS[family](blog)
    warc = tmp_path / "blog.warc.gz"
    with FarmServer(blog) as site:
        _crawl(site, tmp_path, "--warc", str(warc))  # --js auto: it finds the script comments itself
        urls = dict(zip([p.path for p in blog.posts], site.post_urls()))
        served = {p.path: _words(lxml.html.fromstring(blog.render(p.path, site.origin).body).text_content())
                  for p in blog.posts}
    commented = [p for p in blog.posts if len(p.comments) > 3]  # more than one load: "load more" was clicked
    assert commented, "the farm blog has posts with several pages of comments"

    with Wayback([warc]) as wb, BrowserPool(size=1, page_load_timeout=30, script_timeout=10, remote_url="",
                                            allow_private=True) as browsers:
        for post in commented:
            out = browsers.render(wb.replay_url(urls[post.path]), load_more_selectors=more, wait_selector=wait)
            root = lxml.html.fromstring(out["html"])
            assert post.title in (root.findtext(".//title") or ""), post.title
            shown = _words(root.text_content())
            for c in post.comments:
                said = _words(lxml.html.fromstring(f"<div>{c.html}</div>").text_content())
                assert said not in served[post.path]  # the page as served does not hold it: a script does
                assert c.author in shown and said in shown, (urls[post.path], c.author, said[:60])
