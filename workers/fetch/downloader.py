"""The downloader of a worker: robots.txt, per-host politeness shared through Redis, limits.

Scrapy keeps its downloader apart from scheduling and pipelines; so do we. Every fetch a
task makes goes through `Downloader.get`, which is where politeness is enforced for the
whole cluster (one Redis slot reservation per request) and where limits apply.
"""
from __future__ import annotations

import ipaddress
import os
import socket
import threading
import time
import uuid
from contextlib import contextmanager
from urllib.parse import urlsplit

import requests

from tasks.fetch.http import FetchError, Response, fetch, normalize_url
from tasks.fetch.robots import RobotsPolicy
from workers.cache import Recent
from workers import heal, limits
from workers.fetch import validators
from workers.fetch.patience import HostBusy
from workers.settings import Settings
from workers.state import State

_local = threading.local()

# Politeness across the cluster: one request at a time per host (host:port), and the next
# one no sooner than `gap` after the previous one ended. A turn is a lease (holder token,
# ends at the latest after the request's time limit) so a worker killed mid-request blocks
# the host only that long. Times are the Redis clock, so workers with skewed clocks agree.
# (Reserving future slots and sleeping to them is not enough: a thread that wakes late,
# GIL- or CPU-starved, then sends right before the next slot's holder.)
_TAKE_TURN = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1e6
local turn = redis.call('HMGET', KEYS[1], 'holder', 'next')
local nxt = tonumber(turn[2] or '0')
if now < nxt then
  if turn[1] and turn[1] ~= '' then return ARGV[3] end  -- a request is out: ask again soon
  return string.format('%.6f', nxt - now)
end
local lease = tonumber(ARGV[2])
redis.call('HSET', KEYS[1], 'holder', ARGV[1], 'next', string.format('%.6f', now + lease),
           'since', string.format('%.6f', now))
local keep = math.floor(lease * 1000) + 60000
if redis.call('PTTL', KEYS[1]) < keep then redis.call('PEXPIRE', KEYS[1], keep) end
return '0'
"""
_END_TURN = """
if redis.call('HGET', KEYS[1], 'holder') ~= ARGV[1] then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1e6
local gap = tonumber(ARGV[2])
local turn = redis.call('HMGET', KEYS[1], 'since', 'took')
local since, took = tonumber(turn[1] or ''), tonumber(turn[2] or '')
if since then  -- how long a request takes, smoothed: bookings (_BOOK) leave room for it
  local this = math.min(math.max(now - since, 0), 30)
  took = took and (0.7 * took + 0.3 * this) or this
  redis.call('HSET', KEYS[1], 'took', string.format('%.6f', took))
end
redis.call('HSET', KEYS[1], 'holder', '', 'next', string.format('%.6f', now + gap))
local keep = math.floor(gap * 1000) + 60000
if redis.call('PTTL', KEYS[1]) < keep then redis.call('PEXPIRE', KEYS[1], keep) end
return 1
"""
# (issue 33) A slot booked in the host's schedule: the time a step that found the host busy (or a
# page about to be sent, workers/fetch/pacing.py) comes back at, when its turn will be free.
# Slots follow each other by the gap and the time a request takes ('took'), after the host's next
# free moment ('next', or now + gap while a request is out), so each booking gets a turn of its
# own: no herd of steps waking at the same moment, no step sleeping in a worker's thread.
_BOOK = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1e6
local gap = tonumber(ARGV[1])
local turn = redis.call('HMGET', KEYS[1], 'holder', 'next', 'booked', 'took')
local took = tonumber(turn[4] or '0') or 0
local slot = now
if turn[1] and turn[1] ~= '' then slot = now + gap + took
elseif tonumber(turn[2] or '0') > slot then slot = tonumber(turn[2]) end
local booked = tonumber(turn[3] or '0') or 0
if booked + gap + took > slot then slot = booked + gap + took end
redis.call('HSET', KEYS[1], 'booked', string.format('%.6f', slot))
local keep = math.floor((slot - now + gap) * 1000) + 60000
if redis.call('PTTL', KEYS[1]) < keep then redis.call('PEXPIRE', KEYS[1], keep) end
return {string.format('%.6f', slot - now), string.format('%.6f', slot)}
"""
# A turn whose holder died is free at once, not when its lease ends: the holder token begins
# with the worker's heal id, and a request out for HOLDER_LOOK s has its holder looked at
# (reclaimed by the sweep, or its connections to Redis gone: workers/heal.py).
HOLDER_LOOK = 0.5
_FREE_TURN = """
if redis.call('HGET', KEYS[1], 'holder') ~= ARGV[1] then return 0 end
local t = redis.call('TIME')
redis.call('HSET', KEYS[1], 'holder', '', 'next', string.format('%.6f', tonumber(t[1]) + tonumber(t[2]) / 1e6))
return 1
"""
# (issue 20, 33) a task waits at most this long in all for a host's turn (the time a request
# before it takes); a turn farther away books a slot of the host's schedule (_BOOK) and raises
# HostBusy: the step is done at that slot (workers.fetch.patience), and the thread goes to
# other hosts' pages meanwhile. No thread sleeps through a politeness gap, let alone a Crawl-delay.
INLINE_WAIT = 0.25
ROBOTS_TRIES = 2  # robots.txt asked at most this often where the network fails (read as missing after)


# Cookies belong to one crawl: a jar per crawl id (a worker thread serves many blogs, and one
# blog's cookies must never reach another on the same host). A jar that grows past these is
# emptied: a site flooding cookies would otherwise make its own later requests answer 431.
MAX_COOKIES = 50
MAX_COOKIE_BYTES = 8192


def _session() -> requests.Session:
    """This thread's connection pool; its cookie jar is swapped in per fetch (`Downloader.crawl`)."""
    s = getattr(_local, "session", None)
    if s is None:
        s = _local.session = requests.Session()
        # no proxy variables nor ~/.netrc from the environment: a crawled site must not get the
        # machine's credentials, nor its requests go through a proxy nobody configured
        s.trust_env = False
        proxy = os.environ.get("BLOGHARVEST_PROXY")
        if proxy:
            s.proxies = {"http": proxy, "https": proxy}
    return s


def _trim(jar) -> None:
    cookies = list(jar)
    if len(cookies) > MAX_COOKIES or sum(len(c.name) + len(c.value or "") for c in cookies) > MAX_COOKIE_BYTES:
        jar.clear()


def is_local_host(host: str) -> bool:
    """Loopback or private: our own machine or network, where politeness delays buy nothing."""
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return False
    for info in infos:
        ip = ipaddress.ip_address(info[4][0].split("%")[0])
        if not (ip.is_loopback or ip.is_private):
            return False
    return bool(infos)


class Downloader:
    def __init__(self, state: State, settings: Settings, recorder=None):
        self.state = state
        self.s = settings
        self.recorder = recorder  # called with each Response (WARC); revisit=True where a same payload may be a revisit
        self._robots: dict[str, tuple[float, RobotsPolicy]] = {}
        self._local: dict[str, bool] = {}
        self._jars = Recent(256)  # crawl id -> its cookie jar
        self._take_turn = state.r.register_script(_TAKE_TURN)
        self._end_turn = state.r.register_script(_END_TURN)
        self._free_turn = state.r.register_script(_FREE_TURN)
        self._book = state.r.register_script(_BOOK)
        self._warned: set = set()  # (crawl id, origin) told of a capped Crawl-delay

    @contextmanager
    def turn(self, host: str, gap: float):
        """Hold `host`'s turn for one request (redirect hops included): no other worker of
        the cluster sends to it meanwhile, nor within `gap` seconds after."""
        if gap <= 0:
            yield
            return
        key, token = f"bh:host:{{{host}}}:turn", f"{heal.WORKER_ID} {uuid.uuid4().hex}"
        lease = self.s.request_timeout + 5.0  # fetch() ends by its deadline; a killed holder blocks no longer
        start = time.monotonic()
        looked = False
        while True:
            wait = float(self._take_turn(keys=[key], args=[token, lease, min(gap, 0.05)]))
            if wait <= 0:
                break
            if not looked and time.monotonic() - start > HOLDER_LOOK:  # a request out this long: its holder alive?
                looked = True
                if self._free_if_dead(key):
                    continue
            if time.monotonic() - start + wait > INLINE_WAIT:  # (issue 20, 33) no long sleep in a worker
                raise HostBusy(host, self.book(host, gap))
            time.sleep(wait)  # a short politeness gap: until the host's next turn, then ask again
        try:
            yield
        finally:
            self._end_turn(keys=[key], args=[token, gap])

    def book(self, host: str, gap: float) -> float:
        """Seconds until the slot booked for one more request to `host` (0: it may go now)."""
        return self.book_at(host, gap)[0]

    def book_at(self, host: str, gap: float) -> tuple[float, float]:
        """(seconds until, Redis time of) the slot booked for one more request to `host`."""
        if gap <= 0:
            return 0.0, 0.0
        wait, slot = self._book(keys=[f"bh:host:{{{host}}}:turn"], args=[gap])
        return max(0.0, float(wait)), float(slot)

    def gap_for(self, url: str) -> tuple[str, float]:
        """(host key, politeness gap) of `url` as its fetch will see them, from what this process
        or Redis knows of the site's robots.txt (never fetched here: a page about to be sent)."""
        p = urlsplit(url)
        host = p.netloc.lower()
        origin = f"{p.scheme}://{p.netloc}"
        cached = self._robots.get(origin)
        policy = cached[1] if cached else None
        if policy is None:
            text = self.state.robots(origin)
            if text is not None:
                policy = RobotsPolicy.parse(text, self.s.user_agent)
                self._robots[origin] = (time.monotonic(), policy)
        return host, self.host_gap(p.hostname or host, policy, None)

    def _free_if_dead(self, key: str) -> bool:
        """Free the host's turn if a dead worker holds it: one the sweep reclaimed, or one whose
        connections to Redis are gone (a killed process's close with it)."""
        r = self.state.r
        holder = r.hget(key, "holder") or ""
        worker = holder.split(" ", 1)[0]
        if " " not in holder or worker == heal.WORKER_ID:
            return False
        if not heal.is_dead(r, worker) and not heal.gone(r, [worker]):
            return False
        return bool(self._free_turn(keys=[key], args=[holder]))

    @contextmanager
    def crawl(self, crawl_id: str | None):
        """Fetches in this block (this thread) use `crawl_id`'s cookie jar."""
        previous = getattr(_local, "crawl", None)
        _local.crawl = crawl_id
        try:
            yield
        finally:
            _local.crawl = previous

    def _jar(self):
        crawl_id = getattr(_local, "crawl", None)
        if crawl_id is None:
            return requests.cookies.RequestsCookieJar()  # outside a crawl: nothing kept
        jar = self._jars.get(crawl_id)
        if jar is None:
            jar = requests.cookies.RequestsCookieJar()
            self._jars[crawl_id] = jar
        return jar

    def host_gap(self, host: str, robots: RobotsPolicy | None, delay: float | None) -> float:
        if host not in self._local:
            self._local[host] = is_local_host(host)
        base = self.s.local_delay if self._local[host] else self.s.delay
        if delay is not None:
            base = delay
        crawl_delay = float(robots.crawl_delay or 0) if robots else 0.0
        # (issue 34) a Crawl-delay above the cap is capped (Heritrix: 300 s), and the crawl told
        return max(base, min(crawl_delay, self.s.max_crawl_delay))

    def robots(self, url: str) -> RobotsPolicy:
        p = urlsplit(url)
        origin = f"{p.scheme}://{p.netloc}"
        cached = self._robots.get(origin)
        if cached and time.monotonic() - cached[0] < 600:
            self._note_cap(origin, cached[1])
            return cached[1]
        text = self.state.robots(origin)
        while text is None:
            try:
                r = self._fetch(origin + "/robots.txt", max_bytes=500_000, delay=None, robots=None)
                text = r.text if r.status < 400 else ""
            except FetchError as e:
                # a network error (a timeout, a reset) is asked once more, not read as "no robots.txt";
                # counted in Redis: the next try may wait for the host's next turn (HostBusy), and the
                # step run again then must go on counting, not start over (it looped for good)
                if e.status is None and self.state.robots_failed(origin) < ROBOTS_TRIES:
                    continue
                # RFC 9309: unreachable (5xx) means "disallow all"; missing (4xx) means "allow all"
                text = "User-agent: *\nDisallow: /\n" if (e.status or 0) >= 500 else ""
            self.state.save_robots(origin, text)
        policy = RobotsPolicy.parse(text, self.s.user_agent)
        self._robots[origin] = (time.monotonic(), policy)
        self._note_cap(origin, policy)
        return policy

    def _note_cap(self, origin: str, policy: RobotsPolicy) -> None:
        """(issue 34) The crawl's report says when the site's Crawl-delay is capped (once a crawl)."""
        crawl_id = getattr(_local, "crawl", None)
        asked = float(policy.crawl_delay or 0)
        if crawl_id is None or asked <= self.s.max_crawl_delay or (crawl_id, origin) in self._warned:
            return
        self._warned.add((crawl_id, origin))
        self.state.warn(crawl_id, "crawl_delay", f"{origin}/robots.txt asks for a Crawl-delay of {asked:g} s; "
                        f"capped at {self.s.max_crawl_delay:g} s (BLOGHARVEST_MAX_CRAWL_DELAY)")

    def _fetch(self, url: str, *, max_bytes: int | None = None, delay: float | None,
               robots: RobotsPolicy | None, revisit: bool = False, headers: dict | None = None) -> Response:
        host = urlsplit(url).netloc.lower()
        session, jar = _session(), self._jar()
        with self.turn(host, self.host_gap(urlsplit(url).hostname or host, robots, delay)):
            session.cookies = jar
            try:
                resp = fetch(url, timeout=self.s.request_timeout, max_bytes=max_bytes or self.s.max_page_bytes,
                             max_redirects=self.s.max_redirects, allow_private=self.s.allow_private,
                             user_agent=self.s.user_agent, session=session, headers=headers)
            finally:
                session.cookies = requests.cookies.RequestsCookieJar()
                _trim(jar)
        if self.recorder and resp.status != 304:
            if revisit:
                self.recorder(resp, revisit=True)
            else:
                self.recorder(resp)
        return resp

    def get(self, url: str, *, delay: float | None = None, obey_robots: bool = True,
            max_bytes: int | None = None, revisit: bool = False, conditional: bool = False) -> Response:
        """Fetch `url` politely; raises FetchError (kind "robots" when robots.txt forbids it,
        "bad_url" for a URL the guard's parser refuses).
        revisit=True (update crawls): archive an unchanged payload as a WARC revisit record.
        conditional=True (update crawls): If-None-Match / If-Modified-Since from the validators
        an earlier crawl of the blog kept (workers/fetch/validators.py); a 304 comes back as
        a Response of status 304 and no body (not archived: nothing was sent)."""
        url = normalize_url(url)
        limits.check()  # (issue 20) the task's deadline, checked before every request
        robots = None
        if obey_robots:
            robots = self.robots(url)
            if not robots.allowed(url):
                raise FetchError("robots", url, "disallowed by robots.txt")
        crawl_id = getattr(_local, "crawl", None)
        headers = validators.request_headers(self.state.r, crawl_id, url) if conditional and crawl_id else None
        resp = self._fetch(url, max_bytes=max_bytes, delay=delay, robots=robots, revisit=revisit, headers=headers)
        if crawl_id and resp.status == 200:
            validators.keep(self.state.r, crawl_id, url, resp)
        return resp
