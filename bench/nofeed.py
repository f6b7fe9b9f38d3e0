"""Extraction cost with rules learned without a feed (issue 18), beside trafilatura.

    python bench/nofeed.py [--blogs DIR] [--train 30] [--rounds 5]

For each eval blog: pseudo feed entries (tasks.learn.pseudo_feed) from up to --train of its
post pages, Algorithm 2 rules learned from them, then every post page: parse + apply rules
+ the hybrid's failure check (what a worker does per post when the rules hold), against
trafilatura.bare_extraction on the same page. A page's cost is its least round; the ratio
is of medians. Also printed: the share of posts where the rules fail (the fallback's share).
Speed only: which pages are posts is given by the blog's posts.txt here (the crawl finds
them itself; docs/no-feed.md has the harness figures).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tasks.extract.post import extract_post  # noqa: E402
from tasks.learn.fields import learn_page, reduce_rules  # noqa: E402
from tasks.learn.pseudo_feed import page_facts, pseudo_entries  # noqa: E402
from workers.extract.fallback import rules_failed  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--blogs", default=str(Path(__file__).resolve().parents[2] / "shared" / "eval" / "blogs"))
    ap.add_argument("--train", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    import trafilatura

    ours_all, traf_all = [], []
    for blog in sorted(Path(a.blogs).iterdir()):
        paths = (blog / "posts.txt").read_text().split()
        pages = {p: (blog / "site" / p).read_text(encoding="utf-8", errors="replace") for p in paths}
        url = lambda p: "http://blog.test/" + p  # noqa: E731
        train = paths[-a.train:]
        entries = pseudo_entries([page_facts(pages[p], url(p)) for p in train])
        rules = reduce_rules([learn_page(pages[e["url"][len("http://blog.test/"):]], e["url"], {
            "title": e["title"], "content": e["content_html"], "authors": e["authors"],
            "published": e["published"]}) for e in entries])
        ours, traf, failed = {}, {}, 0
        for _ in range(a.rounds):
            for p in paths:
                t = time.perf_counter()
                got = extract_post(pages[p], url(p), rules)
                bad = rules_failed(got, rules)
                ours[p] = min(ours.get(p, 1e9), time.perf_counter() - t)
                failed += bad
            for p in paths:
                t = time.perf_counter()
                trafilatura.bare_extraction(pages[p], url=url(p), with_metadata=True)
                traf[p] = min(traf.get(p, 1e9), time.perf_counter() - t)
        o, tr = statistics.median(ours.values()), statistics.median(traf.values())
        ours_all += ours.values()
        traf_all += traf.values()
        print(f"{blog.name:14s} {len(entries):3d} entries  rules {o * 1000:6.2f} ms/post  trafilatura "
              f"{tr * 1000:6.2f} ms/post  x{tr / o:5.1f}  rules failed on {failed / a.rounds / len(paths):.0%}")
    o, tr = statistics.median(ours_all), statistics.median(traf_all)
    print(f"{'ALL':14s}      rules {o * 1000:6.2f} ms/post  trafilatura {tr * 1000:6.2f} ms/post  x{tr / o:5.1f}")


if __name__ == "__main__":
    main()
