"""The home page's listing read in page order by an update crawl (issue 35).

The home page names its numbered listing (/page/2/, ?paged=2: `main_series` in the crawl's hash);
its pages are read one after the other, ahead of the posts they list (SERIES_PRIORITY), so that
the listing reads down past `since` as soon as it can: then its later pages are left
(`past:<listing>`, "pagination"), and the new posts are all known (`covered`: proof.HOME_COVER).
A page ahead of the next one to read is parked (`crawl:C:later`) and put back when the page
before it is read; both in one Lua step each, so that no page is lost between the two.

    series_order(rt, crawl_id, url, home, others)   priorities of a listing page's numbered pages
                                                    (its next page under a URL of its own taken in)
    park / read_in_series                           a page ahead parked; put back in its turn
    past(rt, crawl_id, url, home, links)            a page showing only older posts past it: bound
    release(rt, crawl_id, url)                      a page read that a held cover waited for
"""
from __future__ import annotations

import json

from tasks.discover.recency import next_in_series, series
from tasks.discover.traversal import POST_PRIORITY, SEED_PRIORITY
from workers.discover import proof
from workers.discover.skipped import skip
from workers.keys import Keys

# the home page's listing, read in page order before the posts it lists (which are read anyway):
# the sooner it reads down past since, the fewer other listings are read (`covered`); between the
# posts (POST_PRIORITY, a listing's undated ones just above it: listed.py) and the feed's seeds
SERIES_PRIORITY = (POST_PRIORITY + SEED_PRIORITY) / 2


def last_page(rt, crawl_id: str, url: str, others: list[str], old_item: bool = False) -> bool:
    """A page of the home's listing that links no next page ends it (`ended:` in the crawl's
    hash): the listings waiting for it to reach past since wait no more. `old_item`: this page
    lists a post older than since (`reached:` noted). True where the listing ends here and one
    of its pages listed an older post: read whole, the listing showed every post it has down
    past since, though not in date order (a bulk import's days shuffled, or days within the
    time zones' margin on every page): a proof as `past` is (the caller gives it)."""
    k = Keys(crawl_id).crawl
    main = json.loads(rt.state.r.hget(k, "main_series") or "[]")
    base, n = series(url) or (main[0] if main else url, 1)
    if base not in main:
        return False
    if old_item:
        rt.state.r.hset(k, "reached:" + base, n)
    if any(series(u) == (base, n + 1) for u in others) or next_in_series(url, others):
        return False
    rt.state.r.hset(k, "ended:" + base, n)
    return n > 1 and (old_item or rt.state.r.hexists(k, "reached:" + base))


def in_main_series(rt, crawl_id: str, url: str) -> bool:
    s = series(url)
    if not s:
        return False
    return s[0] in json.loads(rt.state.r.hget(Keys(crawl_id).crawl, "main_series") or "[]")


def series_order(rt, crawl_id: str, url: str, home: str, others: list[str]) -> dict:
    """The home page's listing (its numbered pages: /page/2/, ?page=2...) read in page order,
    ahead of the posts; the home page names which series is its listing."""
    numbered = {u: s for u in others if (s := series(u))}
    if not numbered:
        return {}
    if url == home:
        first = min(numbered.values(), key=lambda s: s[1])
        rt.state.r.hsetnx(Keys(crawl_id).crawl, "main_series", json.dumps([first[0]]))
        main = first[0]
        if first[1] == 1:  # its first page a URL of its own (/a/P1.html): page 2 waits for it too
            rt.state.r.hsetnx(Keys(crawl_id).crawl, "read:" + main, 0)
    else:
        main = series(url)[0]
        if (nxt := next_in_series(url, others)) and _adopt(rt, crawl_id, nxt, series(url)[1]):
            return {u: SERIES_PRIORITY - s[1] for u, s in numbered.items() if s[0] == main or u == nxt}
    return {u: SERIES_PRIORITY - s[1] for u, s in numbered.items() if s[0] == main}


MAX_BASES = 200  # URLs of its own the home's listing takes in at most (each page one, in a mirror)
_ADOPT = """
local m = cjson.decode(redis.call('HGET', KEYS[1], 'main_series') or '[]')
for _, b in ipairs(m) do if b == ARGV[1] then return 1 end end
if #m >= tonumber(ARGV[3]) then return 0 end
table.insert(m, ARGV[1])
redis.call('HSET', KEYS[1], 'main_series', cjson.encode(m))
redis.call('HSET', KEYS[1], 'read:' .. ARGV[1], ARGV[2])
return 1
"""


def _adopt(rt, crawl_id: str, nxt: str, n: int) -> bool:
    """The next page of the home's listing under a URL of its own (`next_in_series`) is of the
    listing: read in its turn (page n, the one naming it, is read), judged and bounded as the
    listing's pages are."""
    return bool(rt.state.r.eval(_ADOPT, 1, Keys(crawl_id).crawl, series(nxt)[0], n, MAX_BASES))


def past(rt, crawl_id: str, url: str, home: str, links: list[str] = ()) -> None:
    """A listing showing only posts older than `since` past this page (only older ones, or
    newest first down past it): its later pages are left (the first page of a listing, not
    numbered, bounds the numbered ones after it), and where it is the home page's listing,
    the new posts were all reached through it, once its earlier pages among the page's `links`
    are read too (a page 1 of a URL of its own that only page 2 links, saved at another time
    with posts the home page does not list: `_hold`)."""
    k = Keys(crawl_id)
    s = series(url)
    if url != home:
        base, n = s or (url, 1)
        script = ("local v = redis.call('HGET', KEYS[1], ARGV[1]) "
                  "if not v or tonumber(v) > tonumber(ARGV[2]) then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end")
        rt.state.r.eval(script, 1, k.crawl, "past:" + base, n)
        parked = rt.state.r.hgetall(parked_key(crawl_id))
        left = [u for f, u in parked.items() if f.rsplit(" ", 1)[0] == base and int(f.rsplit(" ", 1)[1]) > n]
        if left:  # parked pages past the bound: never read
            skip(rt, crawl_id, "pagination", left)
            for u in left:
                rt.state.mark_done(crawl_id, u)
    if url == home or (s and in_main_series(rt, crawl_id, url)):
        if not _hold(rt, crawl_id, s, links):
            proof.cover(rt.state.r, k.crawl, proof.HOME_COVER)


def held_key(crawl_id: str) -> str:
    return f"{Keys(crawl_id).crawl}:held"  # set: earlier pages of the home's listing the cover waits for


def _hold(rt, crawl_id: str, s: tuple[str, int] | None, links: list[str]) -> bool:
    """Does the cover of page s[1] of the home's listing wait for an earlier page of it that its
    `links` name and that is not read yet (`held_cover` in the crawl's hash until `release`)?"""
    if not s:
        return False
    k, r = Keys(crawl_id), rt.state.r
    lower = sorted({u for u in links if (t := series(u)) and t[0] == s[0] and t[1] < s[1]})
    if not lower:
        return False
    unread = [u for u, done in zip(lower, r.smismember(k.done, lower)) if not done]
    if not unread:
        return False
    with r.pipeline(transaction=False) as p:
        p.sadd(held_key(crawl_id), *unread)
        p.hset(k.crawl, "held_cover", 1)
        p.execute()
    return True


_RELEASE = """
redis.call('SREM', KEYS[2], ARGV[1])
if redis.call('SCARD', KEYS[2]) == 0 and redis.call('HDEL', KEYS[1], 'held_cover') == 1 then return 1 end
return 0
"""


def release(rt, crawl_id: str, url: str) -> None:
    """A page of the home's listing is read: a cover held for it (`_hold`), the last one it waited
    for, is given."""
    k = Keys(crawl_id)
    if rt.state.r.eval(_RELEASE, 2, k.crawl, held_key(crawl_id), url):
        proof.cover(rt.state.r, k.crawl, proof.HOME_COVER)


def before_bound(rt, crawl_id: str, url: str, others: list[str]) -> list[str]:
    """`others` without the later pages of `url`'s listing, which it showed to run past since."""
    base, n = series(url) or (url, 1)
    later = [u for u in others if (s := series(u)) and s[0] == base and s[1] > n]
    later += [nxt] if (nxt := next_in_series(url, others)) else []
    skip(rt, crawl_id, "pagination", later)
    return [u for u in others if u not in set(later)]


def parked_key(crawl_id: str) -> str:
    return f"{Keys(crawl_id).crawl}:later"  # hash: "<listing> <page number>" -> url parked


# A page of the home's listing ahead of the next one to read is parked in one step with the
# check (`park`), and put back on the frontier in one step with the note that the page before
# it was read (`read_in_series`): no page is lost between the two (issue 35). The seen set is
# left alone: a process's memory of it (workers/seen.py) must stay true.
_PARK = """
local v = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '1')
if tonumber(ARGV[2]) <= v + 1 then return 0 end
redis.call('HSET', KEYS[2], ARGV[3], ARGV[4])
redis.call('HDEL', KEYS[3], ARGV[4])
redis.call('HDEL', KEYS[1], 'in_flight')  -- (the page ends' in-flight count: counted again, workers/lua.py)
redis.call('HINCRBY', KEYS[4], ARGV[4], -1)
return 1
"""
_READ_IN_SERIES = """
redis.call('HINCRBY', KEYS[1], 'progress', 1)
local v = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '1')
if tonumber(ARGV[2]) > v then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]); v = tonumber(ARGV[2]) end
local f = ARGV[3] .. ' ' .. string.format('%d', v + 1)
local u = redis.call('HGET', KEYS[2], f)
if not u then return 0 end
redis.call('HDEL', KEYS[2], f)
local bound = redis.call('HGET', KEYS[1], ARGV[4])
if bound and v + 1 > tonumber(bound) then return 0 end
redis.call('ZADD', KEYS[3], ARGV[5], u)
return 1
"""


def park(rt, crawl_id: str, url: str, s: tuple[str, int]) -> bool:
    """Park `url`, page s[1] of the home's listing, unless the page before it was read (False)."""
    k = Keys(crawl_id)
    return bool(rt.state.r.eval(_PARK, 4, k.crawl, parked_key(crawl_id), k.inflight, f"{k.crawl}:attempts",
                                "read:" + s[0], s[1], f"{s[0]} {s[1]}", url))


def read_in_series(rt, crawl_id: str, s: tuple[str, int]) -> None:
    """Page s[1] of the home's listing is read: the page after it, if parked, goes back on the
    frontier (unless past the listing's bound)."""
    k = Keys(crawl_id)
    rt.state.r.eval(_READ_IN_SERIES, 3, k.crawl, parked_key(crawl_id), k.frontier,
                    "read:" + s[0], s[1], s[0], "past:" + s[0], SERIES_PRIORITY - (s[1] + 1))
