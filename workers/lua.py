"""The Lua scripts of workers/state.py: the steps that happen whole, each in one round trip.

A script is atomic (no other client runs in between, and a worker dying cannot leave half
of it written), which is what the exactly-once guarantees rest on: a url queued once, a
page handed out once, a record streamed once per new content. The pieces are Lua local
functions, so the script that ends a page (`END_PAGE`: its record, its sample, its links,
done, the next pages handed out) runs the very steps the smaller scripts run alone.
Keys come in KEYS only, all of one blog (one hash tag) but the records stream.
"""
from __future__ import annotations

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

# A page's links: posts ({url, priority, ...}) at their priority; other urls not seen before
# at their estimate less TIE x their discovery number (first found, first served among equals).
_QUEUE = """
local function queue(seen, frontier, crawl, tie, posts, estimates)
  local n = 0
  for i = 1, #posts, 2 do
    if redis.call('SADD', seen, posts[i]) == 1 then
      redis.call('ZADD', frontier, string.format('%.17g', tonumber(posts[i + 1])), posts[i])
      n = n + 1
    end
  end
  for i = 1, #estimates, 2 do
    if redis.call('SADD', seen, estimates[i]) == 1 then
      local seq = redis.call('HINCRBY', crawl, 'sequence', 1)
      redis.call('ZADD', frontier, string.format('%.17g', tonumber(estimates[i + 1]) - tie * seq), estimates[i])
      n = n + 1
    end
  end
  return n
end
"""

ENQUEUE_ESTIMATED = _QUEUE + """
local posts, estimates = {}, {}
local n = tonumber(ARGV[2])
for i = 3, 2 + 2 * n do table.insert(posts, ARGV[i]) end
for i = 3 + 2 * n, #ARGV do table.insert(estimates, ARGV[i]) end
return queue(KEYS[1], KEYS[2], KEYS[3], tonumber(ARGV[1]), posts, estimates)
"""

# Queue the urls not seen before (ARGV: url, priority, ...) as one step: `queue`'s posts.
ENQUEUE = _QUEUE + """
return queue(KEYS[1], KEYS[2], nil, 0, ARGV, {})
"""

# Hand out up to `limit` urls (the room left under the crawl's parallelism, within its page
# budget): the best of the frontier popped into the in-flight hash. Finish a crawl when
# nothing is queued (or the page budget is spent) and nothing is in flight.
_HAND_OUT = """
local function hand_out(frontier, inflight, crawl, limit, now, max_pages)
  if redis.call('HGET', crawl, 'state') ~= 'running' then return {} end
  local handed = tonumber(redis.call('HGET', crawl, 'handed') or '0')
  local room = limit - redis.call('HLEN', inflight)
  local out = {}
  while room > 0 and handed < max_pages do
    local top = redis.call('ZPOPMAX', frontier)
    if #top == 0 then break end
    redis.call('HSET', inflight, top[1], now)
    table.insert(out, top[1])
    room = room - 1
    handed = handed + 1
  end
  redis.call('HSET', crawl, 'handed', handed)
  return out
end

local function finish(frontier, inflight, crawl, active, now, max_pages, crawl_id)
  if redis.call('HGET', crawl, 'state') ~= 'running' then return 0 end
  if redis.call('HLEN', inflight) > 0 then return 0 end
  local handed = tonumber(redis.call('HGET', crawl, 'handed') or '0')
  local queued = redis.call('ZCARD', frontier)
  if queued > 0 and handed < max_pages then return 0 end
  local ended = 'done'
  if queued > 0 then ended = 'budget_exhausted' end
  redis.call('HSET', crawl, 'state', ended, 'finished', now)
  if redis.call('GET', active) == crawl_id then redis.call('DEL', active) end
  return 1
end
"""

# {finished, url...}: the urls handed out; when none and ARGV[4] (the crawl id) is given,
# whether the crawl finished.
DISPATCH = _HAND_OUT + """
local out = hand_out(KEYS[1], KEYS[2], KEYS[3], tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3]))
local finished = 0
if #out == 0 and ARGV[4] then
  finished = finish(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[2], tonumber(ARGV[3]), ARGV[4])
end
table.insert(out, 1, finished)
return out
"""

MAYBE_FINISH = _HAND_OUT + """
return finish(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1], tonumber(ARGV[2]), ARGV[3])
"""

# A record saved in one step: streamed when its digest changed, stored, listed, counted. A
# worker killed mid-save leaves all of it or none, and two deliveries of one page (a page
# reclaimed from a worker thought dead) cannot both stream it: once per new content.
# r: {url, digest, crawl id, record id, stream maxlen ('' none), listed ('1': an unchanged
# record joins the crawl's output too), source ('' none)}, all strings.
_SAVE = """
local function save(hashes, records, posts, stream, crawl, r, data)
  local url = r[1]
  local changed = redis.call('HGET', hashes, url) ~= r[2]
  if changed then
    if r[5] == '' then
      redis.call('XADD', stream, '*', 'crawl', r[3], 'url', url, 'id', r[4], 'record', data)
    else
      redis.call('XADD', stream, 'MAXLEN', '~', r[5], '*', 'crawl', r[3], 'url', url, 'id', r[4], 'record', data)
    end
  end
  redis.call('HSET', records, url, data)
  redis.call('HSET', hashes, url, r[2])
  local added = 0
  if changed or r[6] == '1' then added = redis.call('SADD', posts, url) end
  if added == 1 and r[7] ~= '' then redis.call('HINCRBY', crawl, 'found_' .. r[7], 1) end
  if changed then return 1 end
  return 0
end

local function claim(bodies, body, url)
  if body == '' then return url end
  local owner = redis.call('HGET', bodies, body)
  if owner then return owner end
  redis.call('HSET', bodies, body, url)
  return url
end
"""

SAVE_RECORD = _SAVE + """
return save(KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], ARGV, ARGV[8])
"""

# The end of a page, its writes in one step: its post's record (claimed for its body first:
# when another URL holds the body, nothing at all is written and that URL is returned), its
# sample of the priority model, the urls it was read under marked seen, its links queued, the
# trace, the page done (and counted), then, when asked, the next pages handed out (or the
# crawl finished, when there are none).
# KEYS: seen frontier crawl done inflight samples sampled hashes records posts stream bodies
# trace active; ARGV: the spec (JSON: url, crawl, counted, tie, posts, estimates, seen,
# max_samples, save {r, body}, hand {limit, now, max_pages}), the record JSON, the sample,
# the trace entry.
# Returns {'', saved (1 new or changed, 0 same, -1 no record), samples ever (-1: no sample),
# urls queued, finished, {handed urls}}, or {owner} when the body is another URL's. A page
# done already (a second delivery) or of a crawl no longer running writes nothing.
END_PAGE = _QUEUE + _HAND_OUT + _SAVE + """
local spec = cjson.decode(ARGV[1])
if redis.call('SISMEMBER', KEYS[4], spec.url) == 1 or redis.call('HGET', KEYS[3], 'state') ~= 'running' then
  -- a second delivery (a page reclaimed from a slow worker) or a crawl that ended meanwhile:
  -- nothing is written again (pages counted, samples, links, record), the page only leaves in-flight
  redis.call('HDEL', KEYS[5], spec.url)
  return {'', -1, -1, 0, 0, {}}
end
local saved, sampled = -1, -1
if ARGV[2] ~= '' then
  local owner = claim(KEYS[12], spec.save.body, spec.save.r[1])
  if owner ~= spec.save.r[1] then return {owner} end
  saved = save(KEYS[8], KEYS[9], KEYS[10], KEYS[11], KEYS[3], spec.save.r, ARGV[2])
end
if ARGV[3] ~= '' then
  redis.call('RPUSH', KEYS[6], ARGV[3])
  redis.call('LTRIM', KEYS[6], -spec.max_samples, -1)
  sampled = redis.call('INCR', KEYS[7])
end
for _, u in ipairs(spec.seen) do redis.call('SADD', KEYS[1], u) end
-- (issue 33) the page's own sub-pages its step read (comment pages, its comment feed): never read again
for _, u in ipairs(spec.read or {}) do redis.call('SADD', KEYS[1], u); redis.call('ZREM', KEYS[2], u) end
local queued = queue(KEYS[1], KEYS[2], KEYS[3], spec.tie, spec.posts, spec.estimates)
if ARGV[4] ~= '' then redis.call('RPUSH', KEYS[13], ARGV[4]) end
redis.call('SADD', KEYS[4], spec.url)
redis.call('HDEL', KEYS[5], spec.url)
if spec.counted then redis.call('HINCRBY', KEYS[3], 'pages', 1) end
local handed, finished = {}, 0
if spec.hand then
  local h = spec.hand
  handed = hand_out(KEYS[2], KEYS[5], KEYS[3], tonumber(h.limit), h.now, tonumber(h.max_pages))
  if #handed == 0 then
    finished = finish(KEYS[2], KEYS[5], KEYS[3], KEYS[14], h.now, tonumber(h.max_pages), spec.crawl)
  end
end
return {'', saved, sampled, queued, finished, handed}
"""
