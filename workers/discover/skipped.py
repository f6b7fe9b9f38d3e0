"""Pages an update crawl leaves unread, counted by reason (issue 35): each URL once per crawl,
in the crawl hash's `skip:<reason>` fields, which the report reads (workers/discover/update.summary)."""
from __future__ import annotations

from workers.keys import Keys

SKIP = "skip:"  # crawl hash fields: pages an update crawl left unread, by reason


def skip(rt, crawl_id: str, reason: str, urls: list[str]) -> int:
    """Count `urls` as left unread for `reason` (each URL once per crawl); returns how many new."""
    urls = list(dict.fromkeys(u for u in urls if u))
    if not urls:
        return 0
    k = Keys(crawl_id)
    with rt.state.r.pipeline(transaction=False) as p:
        for u in urls:
            p.sadd(f"{k.crawl}:skipped", u)
        p.expire(f"{k.crawl}:skipped", 7 * 86400)
        fresh = sum(p.execute()[:-1])
    if fresh:
        rt.state.r.hincrby(k.crawl, SKIP + reason, fresh)
    return fresh
