"""Render cost per page and browser memory: headless Chromium through tasks.fetch.browser.BrowserPool
on a loopback site (a script-drawn post, a static post, a post with "load more" comments).

    python bench/render.py [--pages 30] [--max-pages 50]

Prints seconds per page by kind and the proportional memory (PSS, summed over chromedriver and
every Chromium process) after each kind.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tasks.fetch.browser import BrowserPool  # noqa: E402
from tests.httpd import LoopbackServer  # noqa: E402
from tests.tasks.test_render import routes  # noqa: E402


def rss_mb(pids) -> float:
    import psutil

    total = 0
    for pid in set(pids):
        try:
            total += psutil.Process(pid).memory_full_info().pss  # shared pages counted once
        except psutil.Error:
            pass
    return total / 2**20


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=30)
    ap.add_argument("--max-pages", type=int, default=50)
    a = ap.parse_args()
    with LoopbackServer(routes) as site, BrowserPool(size=1, max_pages=a.max_pages, remote_url="") as pool:
        t0 = time.monotonic()
        pool.render(site.url + "static-post")
        print(f"session start + first page: {time.monotonic() - t0:.2f} s, browser PSS {rss_mb(pool.browser_pids()):.0f} MB")
        for kind in ("static-post", "js-post", "comments"):
            times, clicks = [], 0
            for _ in range(a.pages):
                out = pool.render(site.url + kind)
                times.append(out["elapsed"])
                clicks += out["clicks"]
            print(f"{kind:12s} {statistics.mean(times) * 1000:7.0f} ms/page (median {statistics.median(times) * 1000:.0f},"
                  f" max {max(times) * 1000:.0f}), clicks/page {clicks / a.pages:.1f}, "
                  f"browser PSS {rss_mb(pool.browser_pids()):.0f} MB, sessions started {pool.started}")


if __name__ == "__main__":
    main()
