"""Pages an update crawl leaves unread, counted by reason (issue 35): each URL once per crawl,
in the crawl hash's `skip:<reason>` fields, which the report reads (workers/discover/update.summary);
the reason each was left is kept (`crawl:C:skipped`, url -> reason), so that a page left and
then found needed after all (`revive`) is read and counted as read, not as left."""
from __future__ import annotations

from workers.keys import Keys
from workers.state import KEPT_SECONDS

SKIP = "skip:"  # crawl hash fields: pages an update crawl left unread, by reason


def skipped_key(crawl_id: str) -> str:
    return f"{Keys(crawl_id).crawl}:skipped"  # hash: url -> the reason it was left


def skip(rt, crawl_id: str, reason: str, urls: list[str]) -> int:
    """Count `urls` as left unread for `reason` (each URL once per crawl); returns how many new."""
    urls = list(dict.fromkeys(u for u in urls if u))
    if not urls:
        return 0
    k = Keys(crawl_id)
    with rt.state.r.pipeline(transaction=False) as p:
        for u in urls:
            p.hsetnx(skipped_key(crawl_id), u, reason)
        p.expire(skipped_key(crawl_id), KEPT_SECONDS)
        fresh = sum(p.execute()[:-1])
    if fresh:
        rt.state.r.hincrby(k.crawl, SKIP + reason, fresh)
    return fresh


def was_skipped(rt, crawl_id: str, url: str) -> bool:
    return bool(rt.state.r.hexists(skipped_key(crawl_id), url))


# A page left unread (done, counted under its reason) goes back on the frontier in one step with
# its count taken back: no page is read twice (one read, or in the output, stays done) and none
# is counted both as read and as left. A link left on a page and never queued is only uncounted.
_REVIVE = """
local why = redis.call('HGET', KEYS[1], ARGV[1])
if not why then return 0 end
if redis.call('SISMEMBER', KEYS[5], ARGV[1]) == 1 or redis.call('HEXISTS', KEYS[6], ARGV[1]) == 1 then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HINCRBY', KEYS[4], 'skip:' .. why, -1)
if redis.call('SREM', KEYS[2], ARGV[1]) == 1 then
  redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
  return 2
end
return 1
"""


def revive(rt, crawl_id: str, url: str, priority: float) -> int:
    """`url`, left unread, is needed after all (a copy of a post names it its own): back on the
    frontier at `priority` if it was left when popped (2), only uncounted if it was a link left
    on a page (1: queued as any link if unseen), nothing if it was never left or was read (0)."""
    k = Keys(crawl_id)
    return int(rt.state.r.eval(_REVIVE, 6, skipped_key(crawl_id), k.done, k.frontier, k.crawl, k.posts,
                               k.aliases, url, repr(float(priority))))
