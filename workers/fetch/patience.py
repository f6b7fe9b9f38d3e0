"""Politeness that never sleeps in a worker: when a host's next turn is farther than a task
may wait (a gap between requests, a Crawl-delay of minutes, a host busy with other crawls),
the step is done at a slot booked in the host's schedule, and the worker's thread goes to
other blogs meanwhile.

- `HostBusy` is what the downloader raises instead of sleeping past `INLINE_WAIT`, with the
  wait until the slot it booked (workers/fetch/downloader.py, `_BOOK`);
- a page of the traversal is deferred to the due set in Redis (`bh:delayed`, due times on
  the Redis clock), whatever the wait: no countdown message waits in a worker's memory (nor
  past the broker's visibility timeout); each worker's pacer (workers/fetch/pacing.py)
  sends the pages that fall due, and the heal sweep (workers.heal) does too, as a backstop;
- discovery and learning, retried by Celery at their slot (a countdown, a few per blog), read
  what they already fetched from Redis (`Remembering`), so each retry gets one request further.
"""
from __future__ import annotations

import json
import threading

from tasks.fetch.http import FetchError, Response
from workers.state import Keys

DELAYED = "bh:delayed"  # zset: JSON [crawl id, url] -> due time (Redis clock)
# set when this process adds to the due set: its pacer (workers/fetch/pacing.py) looks again at
# once, so that with nothing due it may look seldom (each look is a script of four commands)
ADDED = threading.Event()
COUNTDOWN_MAX = 300.0  # a task retried for politeness comes back at most this far ahead (the Crawl-delay cap)
REMEMBER_TTL = 86400


class HostBusy(BaseException):
    """The host's next turn is `wait` seconds away, more than a task may wait for it.

    Not an Exception: no `except Exception` of a step (a feed candidate that failed, a post's
    comments kept apart when they fail) may take a politeness wait for the step's failure;
    it reaches the task, which defers the step to its slot (`except HostBusy`)."""

    def __init__(self, host: str, wait: float):
        super().__init__(f"host {host} busy for {wait:.1f} s (politeness)")
        self.host, self.wait = host, float(wait)


def _now(r) -> float:
    s, us = r.time()
    return s + us / 1e6


def defer_page(rt, crawl_id: str, url: str, wait: float, send=None) -> None:
    """Process `url` again in `wait` seconds (its slot); it stays in flight (its time set to when
    it is due, so the stale sweep leaves it alone meanwhile) and waits in the due set."""
    r = rt.state.r
    due = _now(r) + wait
    k = Keys(crawl_id)
    with r.pipeline() as p:
        p.hset(k.inflight, url, due)
        p.hincrby(f"{k.crawl}:attempts", url, -1)  # a wait for politeness is not a failed delivery
        p.zadd(DELAYED, {json.dumps([crawl_id, url]): due})
        p.execute()
    ADDED.set()


_POP_DUE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1e6
if ARGV[2] and ARGV[2] ~= '' then now = tonumber(ARGV[2]) end
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', string.format('%.6f', now), 'LIMIT', 0, tonumber(ARGV[1]))
for _, m in ipairs(due) do redis.call('ZREM', KEYS[1], m) end
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local following = ''
if first[2] then following = string.format('%.6f', tonumber(first[2]) - now) end
table.insert(due, 1, following)
return due
"""


_pop_script = None


def pop_due(r, limit: int = 500, now: float | None = None) -> tuple[list[tuple[str, str]], float | None]:
    """(the pages due now (Redis clock, or `now`), taken off the due set in one step; seconds
    until the next one falls due, None when the set is empty)."""
    global _pop_script
    if _pop_script is None:
        _pop_script = r.register_script(_POP_DUE)  # EVALSHA: the pacer looks when a page falls due, a second apart at most
    got = _pop_script(keys=[DELAYED], args=[limit, "" if now is None else repr(now)], client=r)
    following = float(got[0]) if got and got[0] not in ("", b"") else None
    pages = []
    for member in got[1:]:
        try:
            crawl_id, url = json.loads(member)
            pages.append((str(crawl_id), str(url)))
        except (ValueError, TypeError):
            continue
    return pages, following


def release_due(rt, send, now: float | None = None, limit: int = 500) -> int:
    """Send the deferred pages whose time has come (the pacer does, and the heal sweep as a
    backstop). `send` sends a page as it is (start.send_due): its slot is booked already."""
    pages, _ = pop_due(rt.state.r, limit, now)
    for crawl_id, url in pages:
        send(crawl_id, url)
    return len(pages)


def delayed(rt) -> list[tuple[str, str, float]]:
    return [(*json.loads(m), due) for m, due in rt.state.r.zrange(DELAYED, 0, -1, withscores=True)]


class Remembering:
    """A downloader for a step that HostBusy interrupts and that runs again from its start
    (discovery, one page with its comment feeds and media): what it fetched is kept in the
    process while the step runs, written to Redis only when the step is deferred (`keep`),
    and read back by the step's next run, which so gets at least one request further."""

    def __init__(self, rt, crawl_id: str, scope: str | None = None, eager: bool = False):
        self.downloader, self.r = rt.downloader, rt.state.r
        self.key = Keys(crawl_id).fetched(scope)
        self.kept: dict[str, str] | None = None  # field -> JSON, loaded on first use
        self.stored = False
        # (issue 36) each fetch written as it comes: a step longer than a worker's life (discovery,
        # its worker killed every few seconds) gets further each run instead of starting over
        self.eager = eager
        self.fresh = 0  # fetches this run made (not read back): a run with none got no further

    def _load(self) -> dict:
        if self.kept is None:
            self.kept = self.r.hgetall(self.key) or {}
            self.stored = bool(self.kept)
        return self.kept

    def get(self, url: str, **kw) -> Response:
        field = json.dumps([url, sorted(kw.items())])
        raw = self._load().get(field)
        if raw:
            d = json.loads(raw)
            if "error" in d:
                raise FetchError.from_dict(d["error"])
            return Response.from_dict(d)
        try:
            resp = self.downloader.get(url, **kw)
        except FetchError as e:
            self._note(field, json.dumps({"error": e.to_dict()}))
            raise
        self._note(field, json.dumps(resp.to_dict()))
        return resp

    def _note(self, field: str, value: str) -> None:
        self.kept[field] = value
        self.fresh += 1
        if self.eager:
            with self.r.pipeline() as p:
                p.hset(self.key, field, value)
                p.expire(self.key, REMEMBER_TTL)
                p.execute()
            self.stored = True

    def keep(self) -> None:
        """The step is deferred: what it fetched goes to Redis for its next run."""
        if self.kept:
            with self.r.pipeline() as p:
                p.hset(self.key, mapping=self.kept)
                p.expire(self.key, REMEMBER_TTL)
                p.execute()
            self.stored = True

    def worked_out(self, name: str, compute):
        """A result the step works out from what it fetched (a comment rule learned on a sample
        post: pure, and costly), kept with its fetches: the step's next run reads it back
        instead of working it out again (issue 33: a step that goes a request further each run
        would otherwise redo every earlier run's work, n^2). JSON values only."""
        field = json.dumps(["worked out", name])
        raw = self._load().get(field)
        if raw is not None:
            return json.loads(raw)
        value = compute()
        self._note(field, json.dumps(value))
        return value

    def forget(self) -> None:
        """The step is done: nothing kept for it any more."""
        if self.stored:
            self.r.delete(self.key)
            self.stored = False
        self.kept = None

    def __getattr__(self, name):
        return getattr(self.downloader, name)


def read_along(rt, url: str) -> list[str]:
    """(issue 33) The URLs below page `url` (its comment pages, its comment feed) that the page's
    step fetched with it, by its Remembering downloader: the traversal need not read them again.
    Only those below the page: a step may also read other posts (a comment rule's sample), which
    stay the traversal's to read."""
    memo = getattr(rt, "downloader", None)
    if not isinstance(memo, Remembering) or not memo.kept:
        return []
    below = url.split("#")[0].split("?")[0].rstrip("/") + "/"
    out = []
    for field in memo.kept:
        try:
            u = json.loads(field)[0]
        except (ValueError, TypeError, IndexError):
            continue
        if isinstance(u, str) and u.startswith(below) and u.rstrip("/") != url.rstrip("/"):
            out.append(u)
    return out


def recall(rt, crawl_id: str, url: str, kept: dict) -> None:
    """What a deferred run of page `url` fetched, read with the page's state (State.page_context,
    no round trip of its own), handed to the step's Remembering downloader when it has one."""
    memo = getattr(rt, "downloader", None)
    if isinstance(memo, Remembering) and memo.kept is None and memo.key == Keys(crawl_id).fetched(url):
        memo.kept, memo.stored = dict(kept), bool(kept)


class _Runtime:
    """The worker's runtime with another downloader."""

    def __init__(self, rt, downloader):
        self._rt, self.downloader = rt, downloader

    def __getattr__(self, name):
        return getattr(self._rt, name)


def remembering(rt, crawl_id: str, scope: str | None = None, eager: bool = False):
    """(runtime whose downloader remembers, the memory) for a step run again after HostBusy
    (or, `eager`, after its worker died)."""
    memo = Remembering(rt, crawl_id, scope, eager)
    return _Runtime(rt, memo), memo
