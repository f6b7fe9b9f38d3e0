"""A page an update crawl tells to wait: how many times it has, and how many pages wait now.

An update crawl defers a page that the home's listing or the posts' chain may soon prove not
needed (workers/discover/update.py: WAIT, SOON). Its waits are counted per page (in a row with no
progress of what it waits for, and in all), so that no page waits for ever; the pages waiting now
are counted in the crawl hash (`waiting`), so that they take no hand-out slot; and a page waits no
longer where the crawl has nothing else to read. Each count changes in one Lua step.
"""
from __future__ import annotations

from workers.state import Keys

MAX_WAITS = 10  # waits in a row at most (then read: the home's listing may never get there)


def one_more(rt, crawl_id: str, url: str, most: int = MAX_WAITS, progress: bool = False) -> bool:
    """One more wait for `url`, unless it has waited `most` times in a row with no PROGRESS
    meanwhile (where `progress`: what ends the wait, the home's listing or the chain, is read page
    by page), or, where `progress`, what it waits for has gone PROGRESS_MAX pages on since its
    first wait: the bound is in pages read, not in waits, so that a crawl leaves the same pages
    unread on a quiet machine and a loaded one (counted in waits, a loaded machine's slower chain
    ran out of them and every listing was read: 61 requests alone, 359 beside two other crawls;
    `most` waits between two of those pages at most, so never more than `most` x (PROGRESS_MAX + 1)
    waits in all); no longer where nothing was read since its last wait and the crawl has nothing else to read
    (its frontier empty, every other page in flight waiting too): the wait would only make the
    crawl longer."""
    k = Keys(crawl_id)
    return bool(rt.state.r.eval(_WAIT, 4, k.crawl, f"{k.crawl}:waits", k.frontier, k.inflight, url, most,
                                most * (PROGRESS_MAX + 1) if progress else most, PROGRESS if progress else "",
                                PROGRESS_MAX if progress else 0))


PROGRESS = "progress"  # the crawl hash's count of pages of the home's listing read and posts' neighbours noted


PROGRESS_MAX = 100  # pages of the home's listing read and posts' neighbours noted a page waits for at most
WAITING = "waiting"  # the crawl hash's count of pages waiting now (`waiting`)
MAX_WAITING = 10_000  # (a bound on what the count can add to the hand-out room)
# a page's waits: "n all at w first" (waits in a row, in all, the progress count at the last one,
# whether it waits now: counted in the crawl hash's `waiting`, and the progress count at its first)
_WAIT = """
local pages = '0'
if ARGV[4] ~= '' then pages = redis.call('HGET', KEYS[1], ARGV[4]) or '0' end
local v = redis.call('HGET', KEYS[2], ARGV[1])
local f = {}
if v then for x in string.gmatch(v, '%S+') do f[#f + 1] = x end end
local n, all, at, w = tonumber(f[1] or '0'), tonumber(f[2] or '0'), f[3] or '', f[4] or '0'
local first = f[5] or pages
all = all + 1
if at == pages then n = n + 1 else n = 1 end
local now = '0'
if n <= tonumber(ARGV[2]) and all <= tonumber(ARGV[3]) then now = '1' end
if ARGV[5] ~= '0' and tonumber(pages) - tonumber(first) > tonumber(ARGV[5]) then now = '0' end
if now == '1' and n > 1 and redis.call('ZCARD', KEYS[3]) == 0 then
  -- nothing read since its last wait, and nothing else to read: every other page in flight waits
  -- too; waiting longer reads nothing sooner (a moment between two pages of a chain is no such)
  local others = tonumber(redis.call('HGET', KEYS[1], 'waiting') or '0')
  if w == '1' then others = others - 1 end
  if redis.call('HLEN', KEYS[4]) - redis.call('HEXISTS', KEYS[4], ARGV[1]) <= others then now = '0' end
end
if now ~= w then redis.call('HINCRBY', KEYS[1], 'waiting', tonumber(now) * 2 - 1) end
redis.call('HSET', KEYS[2], ARGV[1], n .. ' ' .. all .. ' ' .. pages .. ' ' .. now .. ' ' .. first)
return tonumber(now)
"""
# a page told anything but to wait: no longer counted as waiting
_UNWAIT = """
local v = redis.call('HGET', KEYS[2], ARGV[1])
local f = {}
if v then for x in string.gmatch(v, '%S+') do f[#f + 1] = x end end
if f[4] == '1' then
  f[4] = '0'
  redis.call('HSET', KEYS[2], ARGV[1], table.concat(f, ' '))
  redis.call('HINCRBY', KEYS[1], 'waiting', -1)
end
return 0
"""


def waiting(rt, crawl_id: str) -> int:
    """How many of the crawl's pages in flight are waiting now (deferred by WAIT or SOON): the
    crawl's hand-out room leaves them out (workers/traverse.hand_out). Eight categories waiting for
    the home's listing filled the eight pages in flight a crawl hands out, while the posts that
    would prove the listing past since stood in the frontier: nothing was read for 20 s."""
    n = rt.state.r.hget(Keys(crawl_id).crawl, WAITING)
    return max(0, min(int(n or 0), MAX_WAITING))


def unwait(rt, crawl_id: str, url: str) -> None:
    """`url` was told anything but to wait: it is no longer counted as waiting."""
    k = Keys(crawl_id)
    rt.state.r.eval(_UNWAIT, 2, k.crawl, f"{k.crawl}:waits", url)
