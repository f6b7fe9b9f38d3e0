"""A whole crawl with SELENIUM_REMOTE_URL naming a real Grid (chromedriver as a standalone
WebDriver server): without BLOGHARVEST_PROXY_ADVERTISE the workers render nothing and the
crawl's report says once what to set, the pages being read as served; with it (`auto`) the
Grid's browser fetches every page through the workers' guarding proxies (which record what
they fetched in the WARC: a browser that went around them would leave no such capture)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tasks.archive.warc import dom_target
from tasks.fetch.grid import ENV_ADVERTISE, ENV_CLIENTS, ENV_PORTS, ENV_UNGUARDED
from tests.farm.server import FarmServer
from tests.farm.wordpress import WordPress
from tests.tasks.fetch.test_grid_guard import grid  # noqa: F401  (the fixture)

CLI = [sys.executable, "-m", "workers.cli"]
N_POSTS = 6


def _env(tmp_path, grid_url: str, **extra) -> dict:
    import os

    drop = {"REDIS_URL", ENV_ADVERTISE, ENV_PORTS, ENV_CLIENTS, ENV_UNGUARDED}
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(BLOGHARVEST_ALLOW_PRIVATE="1", BLOGHARVEST_HOME=str(tmp_path / "home"),
               SELENIUM_REMOTE_URL=grid_url, BLOGHARVEST_BROWSERS="1", **extra)
    return env


def _captures(warc) -> dict:
    """WARC-Target-URI -> how many response records (and rendered DOMs, resource records on
    `urn:blogharvest:dom:<url>`) the WARC holds for it."""
    from collections import Counter

    from warcio.archiveiterator import ArchiveIterator

    with open(warc, "rb") as f:
        return Counter(r.rec_headers.get_header("WARC-Target-URI") for r in ArchiveIterator(f)
                       if r.rec_type in ("response", "resource"))


def _crawl(tmp_path, env: dict, site) -> tuple[subprocess.CompletedProcess, list, dict]:
    out, report, warc = tmp_path / "posts.jsonl", tmp_path / "report.html", tmp_path / "blog.warc.gz"
    p = subprocess.run(CLI + ["crawl", site.url, "--out", str(out), "--report", str(report), "--js", "always",
                              "--workers", "1", "--warc", str(warc)],
                       env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines() if line.strip()]
    page = report.read_text(encoding="utf-8")
    facts = json.loads(page.split("id='facts'>", 1)[1].split("</script>", 1)[0])
    facts["captures"] = _captures(warc)
    return p, records, facts


@pytest.mark.browser
@pytest.mark.parametrize("advertise", [None, "auto"])
def test_a_crawl_renders_on_the_grid_only_through_the_guard(tmp_path, grid, advertise):  # noqa: F811
    blog = WordPress(seed=21, n_posts=N_POSTS)
    extra = {ENV_ADVERTISE: advertise} if advertise else {}
    with FarmServer(blog) as site:
        p, records, facts = _crawl(tmp_path, _env(tmp_path, grid, **extra), site)
        post_hits = [site.hits[post.path] for post in blog.posts]
        captures = [facts["captures"][url] for url in site.post_urls()]
        drawn = [facts["captures"][dom_target(url)] for url in site.post_urls()]
    assert len(records) == N_POSTS  # read as served, or rendered: every post either way
    assert not [g for g in facts["errors"] if g["kind"] in ("render", "browser_refused")], facts["errors"]
    if advertise is None:  # fail closed: no browser fetched anything, the operator is told once
        assert p.stderr.count(f"{ENV_ADVERTISE} is not set") == 1, p.stderr[-2000:]
        assert "unguarded-grid" in facts["warnings"] and ENV_UNGUARDED in facts["warnings"]["unguarded-grid"]
        assert post_hits == [1] * N_POSTS and captures == [1] * N_POSTS and drawn == [0] * N_POSTS
    else:  # the Grid's browser drew each post, asking a worker's proxy for it, which answered with
        # the crawler's copy (a browser that went round the guard would have asked the blog again)
        assert "unguarded-grid" not in facts["warnings"] and ENV_ADVERTISE not in p.stderr
        assert post_hits == [1] * N_POSTS and captures == [1] * N_POSTS
        assert all(d >= 1 for d in drawn), drawn
