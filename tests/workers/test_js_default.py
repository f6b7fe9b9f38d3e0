"""`blogharvest crawl URL --out F` as the README runs it (default options: --js auto, the
embedded Redis and workers), watched from outside: a blog that needs no script never has a
browser process in the command's tree, and its records are complete; a blog whose comments
a script loads still gets them, and no browser outlives the command.

Every Chromium start goes through a wrapper (BLOGHARVEST_CHROMIUM) that notes its process id
before it execs the real browser, so a start is seen however short the browser lived; the
command's process tree is also looked at (psutil) while it runs."""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import psutil
import pytest

from tests.conftest import score
from tests.farm import make_blog
from tests.farm.server import FarmServer

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
_missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.path.exists(p)]
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.skipif(bool(_missing), reason=f"needs {_missing}")]

CLI = [sys.executable, "-m", "workers.cli"]


def _browsers(proc: psutil.Process, starts: Path) -> tuple[set, list]:
    """Names of the browser processes in the tree, and the browsers running now: the processes
    the wrapper started (its pid is the browser's main process: it execs Chromium) that are
    still in the tree and not exiting, each as "pid parent-name cmdline" for the report."""
    names, mains = set(), []
    try:
        kids = proc.children(recursive=True)
        started = {int(x) for x in starts.read_text().split()} if starts.exists() else set()
    except (psutil.Error, OSError, ValueError):
        return names, mains
    for k in kids:
        try:
            if "chrom" in k.name().lower():
                names.add(k.name())
            if k.pid in started and k.status() not in (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD):
                parent = k.parent()
                mains.append(f"{k.pid} {parent.name() if parent else '-'} {' '.join(k.cmdline())[:120]}")
        except psutil.Error:
            pass
    return names, mains


def crawl_as_readme(url: str, tmp_path: Path) -> tuple[list[dict], list[int], set, list]:
    """Run the README's command on `url`: (records, browser starts (their pids), names of
    the browser processes seen in the command's tree, the most browsers seen running at once)."""
    starts = tmp_path / "chromium-starts"
    wrapper = tmp_path / "chromium"
    wrapper.write_text(f'#!/bin/sh\necho "$$" >> {starts}\nexec {CHROMIUM} "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    out = tmp_path / "posts.jsonl"
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env.update(BLOGHARVEST_ALLOW_PRIVATE="1", BLOGHARVEST_HOME=str(tmp_path / "home"),
               BLOGHARVEST_LOCAL_DELAY="0", BLOGHARVEST_CHROMIUM=str(wrapper))
    proc = subprocess.Popen(CLI + ["crawl", url, "--out", str(out), "--quiet"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seen: set = set()
    most: list = [[]]  # the most browsers seen running at once
    done = threading.Event()

    def watch():
        me = psutil.Process(proc.pid)
        while not done.is_set():
            names, mains = _browsers(me, starts)
            seen.update(names)
            if len(mains) > len(most[0]):
                most[0] = mains
            done.wait(0.02)

    t = threading.Thread(target=watch, daemon=True)
    t.start()
    try:
        _, err = proc.communicate(timeout=400)
    finally:
        done.set()
        t.join()
    assert proc.returncode == 0, err[-3000:]
    pids = [int(x) for x in starts.read_text().split()] if starts.exists() else []
    records = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    return records, pids, seen, most[0]


@pytest.mark.parametrize("family,options", [("wordpress", {}), ("threaded", {"decoys": True})],
                         ids=["wordpress", "threaded-with-scripts-and-a-frame"])
def test_a_blog_that_needs_no_script_never_starts_a_browser(tmp_path, family, options):
    """WordPress as the farm serves it, and a blog whose complete static comments sit beside a
    share script, an iframe and a "show comments" toggle: no browser process at any time, and
    every post with its fields and comments."""
    blog = make_blog(family, 5, 30, **options)
    with FarmServer(blog) as site:
        records, starts, seen, _ = crawl_as_readme(site.url, tmp_path)
        if options.get("decoys"):
            assert site.hits["/share/share.js"] == 0  # only a browser would have loaded it
    assert starts == [] and seen == set(), (starts, seen)
    got = score(blog.truth, records)
    assert {k: got[k] for k in ("found", "title_exact", "content_f1", "author", "date")} == \
        {"found": 100, "title_exact": 100, "content_f1": 100, "author": 100, "date": 100}, got
    assert got["comments"] >= 95, got


def test_a_blog_with_script_loaded_comments_gets_them_from_one_browser_that_ends_with_the_crawl(tmp_path):
    """The embedded workers keep one browser between them (only the first takes the render
    queue), and it ends with the command."""
    blog = make_blog("widget", 4, 12, lang="de")
    with FarmServer(blog) as site:
        records, starts, seen, most = crawl_as_readme(site.url, tmp_path)
    assert starts and seen, "the widget's comments need a browser"
    assert len(most) == 1, f"{len(most)} browsers at once: {most}"
    got = score(blog.truth, records)
    assert got["found"] == 100 and got["comments"] >= 98, got
    left = [p for p in starts if psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE]
    assert left == [], "browsers outlived the crawl command"
