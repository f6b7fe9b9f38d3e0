"""The Lua scripts of workers/state.py: the steps that happen whole, each in one round trip.

A script is atomic (no other client runs in between, and a worker dying cannot leave half
of it written), which is what the exactly-once guarantees rest on: a url queued once, a
page handed out once, a record streamed once per new content. The pieces are Lua local
functions, so the script that ends a page (`END_PAGE`: its record, its sample, its links,
done, the next pages handed out) runs the very steps the smaller scripts run alone.
Keys come in KEYS only, all of one blog (one hash tag) but the records stream.
"""
from __future__ import annotations

from workers.facts import FIELDS

# the crawl hash's fields a page's first read asks (State.page_context): a page's end reads them
# for the pages it hands out, named here and not in each call's arguments (issue 33)
AHEAD = ("state", "options", "since", *FIELDS)

# Note again as handed out now (ARGV[1]) the urls (ARGV[3]...) still in flight, not done, and
# handed out at or before ARGV[2] (still stale: not deferred to a later time nor touched by
# another sweeper since they were read); the ones noted are returned, to be sent again. A page
# that finished meanwhile stays finished: put back in flight, nobody would take it out.
TOUCH_INFLIGHT = """
local out = {}
local cutoff = tonumber(ARGV[2])
for i = 3, #ARGV do
  local at = tonumber(redis.call('HGET', KEYS[1], ARGV[i]))
  if at and at <= cutoff and redis.call('SISMEMBER', KEYS[2], ARGV[i]) == 0 then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[1])
    table.insert(out, ARGV[i])
  end
end
return out
"""

# A new token (ARGV[2]) for a kind (ARGV[1], `facts:<kind>`) of a crawl's seldom-written facts
# (workers/facts.py), written in the crawl hash only when it exists: a late write to a crawl
# whose hash expired must not make it again.
BUMP_FACTS = """
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
return 0
"""

# A page's links: posts ({url, priority, ...}) at their priority; other urls not seen before
# at their estimate less TIE x their discovery number (first found, first served among equals),
# `seq` being the crawl's discovery counter before them. Which are new is asked of the seen
# set in one SMISMEMBER and they are added in one SADD and one ZADD (per 1,000 urls): a page's
# links cost three commands, not one SADD each (issue 33; commands in a script count as the
# server's commands too). Returns (urls queued, the discovery counter after them).
_QUEUE = """
local CHUNK = 1000
-- a page's links gathered once: `urls` (each once, posts first), `at` (url -> its index),
-- by index their `score` and whether an estimate (`est`: those take the tie-break)
local function gather(posts, estimates)
  local l = {urls = {}, at = {}, score = {}, est = {}}
  for i = 1, #posts, 2 do
    local u = posts[i]
    if l.at[u] == nil then
      local n = #l.urls + 1
      l.urls[n], l.at[u], l.score[n] = u, n, tonumber(posts[i + 1])
    end
  end
  for i = 1, #estimates, 2 do
    local u = estimates[i]
    if l.at[u] == nil then
      local n = #l.urls + 1
      l.urls[n], l.at[u], l.score[n], l.est[n] = u, n, tonumber(estimates[i + 1]), true
    end
  end
  return l
end

-- which of the links the seen set holds (`known`, by index: 1 or 0), one SMISMEMBER per 1,000
local function ask_seen(seen, l)
  l.known = {}
  for i = 1, #l.urls, CHUNK do
    local last = math.min(i + CHUNK - 1, #l.urls)
    local got = redis.call('SMISMEMBER', seen, unpack(l.urls, i, last))
    for j = i, last do l.known[j] = got[j - i + 1] end
  end
end

local function is_known(l, u)
  local i = l.at[u]
  return i ~= nil and l.known[i] == 1
end

-- the links not seen yet queued (asked of the seen set here unless the caller asked already)
local function queue(seen, frontier, tie, l, seq)
  local new, args, urls = {}, {}, l.urls
  local function take(i)
    new[#new + 1] = urls[i]
    local s = l.score[i]
    if l.est[i] then
      seq = seq + 1
      s = s - tie * seq
    end
    args[#args + 1] = string.format('%.17g', s)
    args[#args + 1] = urls[i]
  end
  if l.known then
    for i = 1, #urls do
      if l.known[i] == 0 and not (l.probe and l.probe[i]) then take(i) end
    end
  else  -- asked here, each reply read as it comes
    for i = 1, #urls, CHUNK do
      local last = math.min(i + CHUNK - 1, #urls)
      local got = redis.call('SMISMEMBER', seen, unpack(urls, i, last))
      for j = i, last do
        if got[j - i + 1] == 0 then take(j) end
      end
    end
  end
  local adds = new
  if l.pending and #l.pending > 0 then  -- urls the caller marks seen unqueued, in the same SADD
    adds = {}
    for i = 1, #new do adds[i] = new[i] end
    for _, u in ipairs(l.pending) do adds[#adds + 1] = u end
  end
  for i = 1, #adds, CHUNK do redis.call('SADD', seen, unpack(adds, i, math.min(i + CHUNK - 1, #adds))) end
  if #new == 0 then return 0, seq end
  for i = 1, #args, 2 * CHUNK do redis.call('ZADD', frontier, unpack(args, i, math.min(i + 2 * CHUNK - 1, #args))) end
  return #new, seq
end
"""

ENQUEUE_ESTIMATED = _QUEUE + """
local posts, estimates = {}, {}
local n = tonumber(ARGV[2])
for i = 3, 2 + 2 * n do table.insert(posts, ARGV[i]) end
for i = 3 + 2 * n, #ARGV do table.insert(estimates, ARGV[i]) end
local seq = tonumber(redis.call('HGET', KEYS[3], 'sequence') or '0')
local queued, after = queue(KEYS[1], KEYS[2], tonumber(ARGV[1]), gather(posts, estimates), seq)
if after ~= seq then redis.call('HSET', KEYS[3], 'sequence', after) end
return queued
"""

# Queue the urls not seen before (ARGV: url, priority, ...) as one step: `queue`'s posts.
ENQUEUE = _QUEUE + """
local queued = queue(KEYS[1], KEYS[2], 0, gather(ARGV, {}), 0)
return queued
"""

# The crawl hash as a script sees it: its fields read in one HMGET (`c`, numbers where they
# count), its writes gathered (`c.w`) and written in one HSET at the end (`flush`).
_CRAWL = """
local function crawl_fields(crawl, extra, raw)
  local names = {'state', 'handed', 'pages', 'sequence', 'in_flight'}
  for _, f in ipairs(extra or {}) do names[#names + 1] = f end
  local ne = #names
  for _, f in ipairs(raw or {}) do names[#names + 1] = f end
  local got = redis.call('HMGET', crawl, unpack(names))
  local c = {state = got[1], handed = tonumber(got[2] or '0'), pages = tonumber(got[3] or '0'),
             sequence = tonumber(got[4] or '0'), hint = tonumber(got[5] or ''), extra = {}, w = {}, raw = {}}
  for i = 6, ne do c.extra[names[i]] = tonumber(got[i] or '0') end
  for i = ne + 1, #names do c.raw[#c.raw + 1] = {names[i], got[i]} end
  return c
end

-- the `raw` fields as the script leaves them (its own writes over what it read), false for none
local function raw_fields(c)
  local out = {}
  for i, fv in ipairs(c.raw) do
    local v = c.w[fv[1]]
    if v == nil then v = fv[2] end
    out[i] = v
  end
  return out
end

local function set(c, field, value) c.w[field] = value end

local function flush(crawl, c)
  local args = {}
  for f, v in pairs(c.w) do
    args[#args + 1] = f
    args[#args + 1] = v
  end
  if #args > 0 then redis.call('HSET', crawl, unpack(args)) end
end
"""

# Hand out up to `limit` urls (the room left under the crawl's parallelism, within its page
# budget): the best of the frontier popped (one ZPOPMAX) into the in-flight hash (one HSET).
# Finish a crawl when nothing is queued (or the page budget is spent) and nothing is in flight.
# The room comes from the in-flight count the crawl hash keeps (`in_flight`, written by every
# hand-out and page end: no HLEN a page, issue 33) where asked (`hinted`); the hash itself is
# counted (HLEN) where there is no such count, where it leaves no room (other steps take pages
# out of flight without it: it can only be too high, and then costs one HLEN), by every
# `DISPATCH` (a sweep's too), and always before a crawl is finished.
_HAND_OUT = _CRAWL + """
local function hand_out(frontier, inflight, c, limit, now, max_pages, hinted)
  if c.state ~= 'running' then return {} end
  local n = hinted and c.hint
  if not n or n < 0 or n >= limit then
    n = redis.call('HLEN', inflight)
    c.exact = true
  end
  c.inflight = n
  local room = math.min(limit - n, max_pages - c.handed)
  local out, args = {}, {}
  if room > 0 then
    local top = redis.call('ZPOPMAX', frontier, room)
    for i = 1, #top, 2 do
      out[#out + 1] = top[i]
      args[#args + 1] = top[i]
      args[#args + 1] = now
    end
  end
  if #out > 0 then
    c.inflight = c.inflight + redis.call('HSET', inflight, unpack(args))
    c.handed = c.handed + #out
    set(c, 'handed', c.handed)
  end
  if c.inflight ~= c.hint then set(c, 'in_flight', c.inflight) end
  return out
end

local function finish(frontier, inflight, c, active, now, max_pages, crawl_id)
  if c.state ~= 'running' then return 0 end
  if not c.exact then c.inflight = redis.call('HLEN', inflight) end
  if c.inflight > 0 then return 0 end
  local queued = redis.call('ZCARD', frontier)
  if queued > 0 and c.handed < max_pages then return 0 end
  local ended = 'done'
  if queued > 0 then ended = 'budget_exhausted' end
  c.state = ended
  set(c, 'state', ended)
  set(c, 'finished', now)
  if redis.call('GET', active) == crawl_id then redis.call('DEL', active) end
  return 1
end
"""

# {finished, url...}: the urls handed out; when none and ARGV[4] (the crawl id) is given,
# whether the crawl finished.
DISPATCH = _HAND_OUT + """
local c = crawl_fields(KEYS[3])
local out = hand_out(KEYS[1], KEYS[2], c, tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3]))
local finished = 0
if #out == 0 and ARGV[4] then
  finished = finish(KEYS[1], KEYS[2], c, KEYS[4], ARGV[2], tonumber(ARGV[3]), ARGV[4])
end
flush(KEYS[3], c)
table.insert(out, 1, finished)
return out
"""

MAYBE_FINISH = _HAND_OUT + """
local c = crawl_fields(KEYS[3])
local finished = finish(KEYS[1], KEYS[2], c, KEYS[4], ARGV[1], tonumber(ARGV[2]), ARGV[3])
flush(KEYS[3], c)
return finished
"""

# A page's part of the site (its family, tasks/discover/traps.py), before its links are queued:
# a page bringing a new post starts its family's count again; one bringing new pages of its own
# family and no new post counts one more barren page in a row; at `limit` the family is cut.
# Returns the count when this page cut it, else 0.
_BARREN = """
local function barren(l, counts, cut, t, posts, estimates)
  local fresh = false
  for i = 1, #posts, 2 do
    if not is_known(l, posts[i]) then fresh = true break end
  end
  if not fresh then
    for _, i in ipairs(t.post) do
      if not is_known(l, estimates[2 * i - 1]) then fresh = true break end
    end
  end
  if fresh then
    redis.call('HDEL', counts, t.family)
    return 0
  end
  local kin = false
  for _, i in ipairs(t.kin) do
    if not is_known(l, estimates[2 * i - 1]) then kin = true break end
  end
  if not kin then return 0 end
  local n = redis.call('HINCRBY', counts, t.family, 1)
  if n >= tonumber(t.limit) and redis.call('HSETNX', cut, t.family, n) == 1 then return n end
  return 0
end
"""

# A record saved in one step: streamed when its digest changed, stored, listed, counted. A
# worker killed mid-save leaves all of it or none, and two deliveries of one page (a page
# reclaimed from a worker thought dead) cannot both stream it: once per new content.
# r: {url, digest, crawl id, record id, stream maxlen ('' none), listed ('1': an unchanged
# record joins the crawl's output too), source ('' none)}, all strings; `data` the record's
# JSON (the stream's), `packed` the same compressed (the records hash's: workers/state.py,
# `pack`); `bump(field)` counts one more of a crawl counter.
_SAVE = """
local function save(hashes, records, posts, stream, r, data, packed, bump)
  local url = r[1]
  local changed = redis.call('HGET', hashes, url) ~= r[2]
  if changed then
    if r[5] == '' then
      redis.call('XADD', stream, '*', 'crawl', r[3], 'url', url, 'id', r[4], 'record', data)
    else
      redis.call('XADD', stream, 'MAXLEN', '~', r[5], '*', 'crawl', r[3], 'url', url, 'id', r[4], 'record', data)
    end
    redis.call('HSET', hashes, url, r[2])
  end
  redis.call('HSET', records, url, packed)
  local added = 0
  if changed or r[6] == '1' then added = redis.call('SADD', posts, url) end
  if added == 1 and r[7] ~= '' then bump('found_' .. r[7]) end
  if changed then return 1 end
  return 0
end

-- the url holding `body` (one record per post): `url` itself when the body was free
local function claim(bodies, body, url)
  if body == '' then return url end
  if redis.call('HSETNX', bodies, body, url) == 1 then return url end
  return redis.call('HGET', bodies, body)
end
"""

SAVE_RECORD = _SAVE + """
return save(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV, ARGV[8], ARGV[9],
            function(f) redis.call('HINCRBY', KEYS[5], f, 1) end)
"""

# The end of a page, its writes in one step: its post's record (claimed for its body first:
# when another URL holds the body, nothing at all is written and that URL is returned), its
# sample of the priority model, the urls it was read under marked seen, its links queued, the
# trace, the page done (and counted), then, when asked, the next pages handed out (or the
# crawl finished, when there are none). The crawl hash is read once and written once, and
# the arguments come flat (no JSON to decode: a cjson.decode cost as much as three commands).
# KEYS: seen frontier crawl done inflight samples sampled hashes records posts stream bodies
# trace active; ARGV (workers/state.py, `State.end_page`): 1 url, 2 crawl id, 3 counted ('1'),
# 4 tie, 5 max samples, 6-8 hand-out limit, time, page budget (limit '': none), 9 the record
# JSON ('': none), 10 the record compressed, 11 its body key, 12 the sample, 13 the trace
# entry, 14-16 how many posts (pairs), estimates (pairs), seen urls follow, 17-23 the save's
# `r` (see _SAVE), then the posts, estimates and seen urls, then the page's trap count: its
# family ('': not counted), the limit, how many kin and post indices, the indices (1-based, of
# the estimates: the page's urls of its own family, and those that are posts), then how many
# sub-pages the page's step read (its comment pages, its comment feed) and their urls, then a new
# token of the crawl's cut parts (written when this page cuts one: workers/facts.py), then the
# page's slots of links that may list posts, as JSON ('': none; issue 30).
# Then how many image pages below a post the page links (left unread), the crawl hash's field
# counting them, and their urls; then '1' where the crawl hash's AHEAD fields are to be read for
# the pages handed out (returned last, as the script leaves them).
# KEYS 15, 16: the barren count and the cut parts of the site (traps, tasks/discover/traps.py);
# KEY 17: the pages' slots of links (`inlist`).
# Returns {'', saved (1 new or changed, 0 same, -1 no record), samples ever (-1: no sample),
# urls queued, finished, {handed urls}, written (1: the links are in the seen set now), barren
# pages in a row when this page cut its family (else 0), {the fields read ahead}}, or
# {owner} when the body is another URL's. A page done already (a second delivery) or of a
# crawl no longer running writes nothing.
END_PAGE = _QUEUE + _HAND_OUT + _SAVE + _BARREN + """
local url = ARGV[1]
local r = {ARGV[17], ARGV[18], ARGV[19], ARGV[20], ARGV[21], ARGV[22], ARGV[23]}
local np, ne, ns = tonumber(ARGV[14]), tonumber(ARGV[15]), tonumber(ARGV[16])
local t0 = 24 + 2 * np + 2 * ne + ns
local nk, npo = tonumber(ARGV[t0 + 2]), tonumber(ARGV[t0 + 3])
local r0 = t0 + 4 + nk + npo
local nr = tonumber(ARGV[r0])
local l0 = r0 + nr + 3
local nl = tonumber(ARGV[l0] or '0')
local extra = {}
if ARGV[9] ~= '' and r[7] ~= '' then extra[#extra + 1] = 'found_' .. r[7] end
if nl > 0 then extra[#extra + 1] = ARGV[l0 + 1] end
-- fields of the crawl hash the next page's first read would ask for (read here when pages are
-- handed out: the worker that keeps one of them need not ask again, issue 33)
local ahead = {}
if ARGV[6] ~= '' and ARGV[l0 + 2 + nl] == '1' then ahead = {""" + ", ".join(f"'{f}'" for f in AHEAD) + """} end
local c = crawl_fields(KEYS[3], extra, ahead)
-- done from here on (SADD says whether it was already: a second delivery, as a page reclaimed
-- from a slow worker; nothing is written again then, nor for a crawl that ended meanwhile:
-- the page only leaves in-flight)
if c.state ~= 'running' or redis.call('SADD', KEYS[4], url) == 0 then
  redis.call('HDEL', KEYS[5], url)  -- (the in-flight count left as it is: too high costs one HLEN)
  return {'', -1, -1, 0, 0, {}, 0, 0}
end
local saved, sampled = -1, -1
if ARGV[9] ~= '' then
  local owner = claim(KEYS[12], ARGV[11], r[1])
  if owner ~= r[1] then
    redis.call('SREM', KEYS[4], url)  -- nothing at all written
    return {owner}
  end
  saved = save(KEYS[8], KEYS[9], KEYS[10], KEYS[11], r, ARGV[9], ARGV[10], function(f)
    c.extra[f] = c.extra[f] + 1
    set(c, f, c.extra[f])
  end)
end
-- the blog's samples ever: the list's length until it is full (issue 33: no count of its own to
-- write), then the count kept beside it (`State.sampled` reads the larger of the two)
if ARGV[12] ~= '' then
  local max_samples = tonumber(ARGV[5])
  sampled = redis.call('RPUSH', KEYS[6], ARGV[12])
  if sampled > max_samples then
    redis.call('LTRIM', KEYS[6], -max_samples, -1)
    local ever = redis.call('INCR', KEYS[7])
    if ever < sampled then redis.call('SET', KEYS[7], sampled) else sampled = ever end
  end
end
local posts, estimates, seen = {}, {}, {}
for i = 24, 23 + 2 * np do posts[#posts + 1] = ARGV[i] end
for i = 24 + 2 * np, 23 + 2 * np + 2 * ne do estimates[#estimates + 1] = ARGV[i] end
for i = 24 + 2 * np + 2 * ne, 23 + 2 * np + 2 * ne + ns do seen[#seen + 1] = ARGV[i] end
for i = 1, #seen, CHUNK do redis.call('SADD', KEYS[1], unpack(seen, i, math.min(i + CHUNK - 1, #seen))) end
-- the page's links, asked of the seen set once for its trap count and its queue, with the
-- sub-pages its step read and the image pages it leaves (`probe`: asked, never queued)
local l = gather(posts, estimates)
l.probe = {}
local function probe(u)
  if l.at[u] == nil then
    local n = #l.urls + 1
    l.urls[n], l.at[u], l.probe[n] = u, n, true
  end
end
for i = r0 + 1, r0 + nr do probe(ARGV[i]) end
for i = l0 + 2, l0 + 1 + nl do probe(ARGV[i]) end
if #l.urls > 0 then ask_seen(KEYS[1], l) end
local cut = 0
if ARGV[t0] ~= '' then
  local t = {family = ARGV[t0], limit = ARGV[t0 + 1], kin = {}, post = {}}
  for i = t0 + 4, t0 + 3 + nk do t.kin[#t.kin + 1] = tonumber(ARGV[i]) end
  for i = t0 + 4 + nk, t0 + 3 + nk + npo do t.post[#t.post + 1] = tonumber(ARGV[i]) end
  cut = barren(l, KEYS[15], KEYS[16], t, posts, estimates)
end
-- urls marked seen and taken off the frontier: one the seen set did not hold is on no frontier
-- (whatever is queued is seen) and is added with the queue's links (`pending`, one SADD); one it
-- held needs only its ZREM (issue 33). Returns how many were new to the seen set or taken off
-- the frontier.
l.pending = {}
local function settle(urls)
  local rem, n = {}, 0
  for _, u in ipairs(urls) do
    local i = l.at[u]  -- (every one probed above)
    if l.known[i] == 0 then
      l.pending[#l.pending + 1] = u
      l.known[i] = 1  -- (the queue leaves it)
      n = n + 1
    else
      rem[#rem + 1] = u
    end
  end
  for i = 1, #rem, CHUNK do n = n + redis.call('ZREM', KEYS[2], unpack(rem, i, math.min(i + CHUNK - 1, #rem))) end
  return n
end
-- (issue 33) the page's own sub-pages its step read (comment pages, its comment feed): never read again
if nr > 0 then
  local sub = {}
  for i = r0 + 1, r0 + nr do sub[#sub + 1] = ARGV[i] end
  settle(sub)
end
-- the page's image pages below a post (attachment pages: tasks/discover/canonical.py): classified,
-- never read; counted once each in the crawl hash's field ARGV[l0 + 1] (those new to the seen set
-- or taken off the frontier: one queued before, from another page, is left too)
if nl > 0 then
  local left = {}
  for i = l0 + 2, l0 + 1 + nl do left[#left + 1] = ARGV[i] end
  local n = settle(left)
  local f = ARGV[l0 + 1]
  if n > 0 then
    c.extra[f] = c.extra[f] + n
    set(c, f, c.extra[f])
  end
end
-- a part of the site cut now: the crawl's copies of its cut parts are out of date (workers/facts.py)
if cut > 0 then set(c, 'facts:cut', ARGV[r0 + nr + 1]) end
-- (issue 30) the page's slots of links that may list posts, judged when the crawl ends
if ARGV[r0 + nr + 2] and ARGV[r0 + nr + 2] ~= '' then redis.call('HSET', KEYS[17], url, ARGV[r0 + nr + 2]) end
local queued, seq = queue(KEYS[1], KEYS[2], tonumber(ARGV[4]), l, c.sequence)
if seq ~= c.sequence then set(c, 'sequence', seq) end
if ARGV[13] ~= '' then redis.call('RPUSH', KEYS[13], ARGV[13]) end
if redis.call('HDEL', KEYS[5], url) == 1 and c.hint then
  c.hint = c.hint - 1
  set(c, 'in_flight', c.hint)
end
if ARGV[3] == '1' then set(c, 'pages', c.pages + 1) end
local handed, finished = {}, 0
if ARGV[6] ~= '' then
  local max_pages = tonumber(ARGV[8])
  handed = hand_out(KEYS[2], KEYS[5], c, tonumber(ARGV[6]), ARGV[7], max_pages, true)
  if #handed == 0 then
    finished = finish(KEYS[2], KEYS[5], c, KEYS[14], ARGV[7], max_pages, ARGV[2])
  end
end
flush(KEYS[3], c)
return {'', saved, sampled, queued, finished, handed, 1, cut, raw_fields(c)}
"""
