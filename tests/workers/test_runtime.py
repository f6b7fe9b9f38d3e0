"""Per-process caches of a worker stay bounded however many crawls it serves."""
from __future__ import annotations

import threading

from workers.cache import Recent


def test_recent_keeps_the_most_recently_used_entries():
    r = Recent(size=3)
    for i in range(3):
        r[f"crawl-{i}"] = i
    assert r.get("crawl-0") == 0  # used: now the newest
    r["crawl-3"] = 3
    assert set(r) == {"crawl-0", "crawl-2", "crawl-3"}
    assert r.get("crawl-1") is None and r.get("crawl-1", "gone") == "gone"


def test_recent_stays_bounded_under_threads():
    r = Recent(size=50)

    def churn(t):
        for i in range(2000):
            r[f"{t}-{i}"] = i
            r.get(f"{t}-{i - 1}")

    threads = [threading.Thread(target=churn, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(r) == 50
