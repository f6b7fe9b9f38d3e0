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
import urllib.request
import uuid
from contextlib import contextmanager
from urllib.parse import urlsplit

import requests

from tasks.fetch.http import FetchError, Response, fetch
from tasks.fetch.robots import RobotsPolicy
from workers import limits
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
redis.call('HSET', KEYS[1], 'holder', ARGV[1], 'next', string.format('%.6f', now + lease))
redis.call('PEXPIRE', KEYS[1], math.floor(lease * 1000) + 60000)
return '0'
"""
_END_TURN = """
if redis.call('HGET', KEYS[1], 'holder') ~= ARGV[1] then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1e6
local gap = tonumber(ARGV[2])
redis.call('HSET', KEYS[1], 'holder', '', 'next', string.format('%.6f', now + gap))
redis.call('PEXPIRE', KEYS[1], math.floor(gap * 1000) + 60000)
return 1
"""
# (issue 20) a task waits at most this long in all for a host's turn; a turn farther away
# raises HostBusy and the step is done later (workers.fetch.patience): no thread sleeps
# through a Crawl-delay while other blogs wait for it
INLINE_WAIT = 2.0


def _session() -> requests.Session:
    s = getattr(_local, "session", None)
    if s is None:
        s = _local.session = requests.Session()
        # without proxy variables, skip requests' per-request look into the environment and
        # ~/.netrc (slow, and no crawled site should get the machine's netrc credentials)
        s.trust_env = bool(urllib.request.getproxies() or os.environ.get("REQUESTS_CA_BUNDLE")
                           or os.environ.get("CURL_CA_BUNDLE"))
        adapter = requests.adapters.HTTPAdapter(pool_connections=16, pool_maxsize=16, max_retries=0)
        s.mount("http://", adapter)
        s.mount("https://", adapter)
    return s


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
        self.recorder = recorder  # called with each Response (WARC)
        self._robots: dict[str, tuple[float, RobotsPolicy]] = {}
        self._local: dict[str, bool] = {}
        self._take_turn = state.r.register_script(_TAKE_TURN)
        self._end_turn = state.r.register_script(_END_TURN)

    @contextmanager
    def turn(self, host: str, gap: float):
        """Hold `host`'s turn for one request (redirect hops included): no other worker of
        the cluster sends to it meanwhile, nor within `gap` seconds after."""
        if gap <= 0:
            yield
            return
        key, token = f"bh:host:{{{host}}}:turn", uuid.uuid4().hex
        lease = self.s.request_timeout + 5.0  # fetch() ends by its deadline; a killed holder blocks no longer
        start = time.monotonic()
        while True:
            wait = float(self._take_turn(keys=[key], args=[token, lease, min(gap, 0.05)]))
            if wait <= 0:
                break
            if time.monotonic() - start + wait > INLINE_WAIT:  # (issue 20) no long sleep in a worker
                raise HostBusy(host, max(wait, gap, 1.0))
            time.sleep(wait)  # a short politeness gap: until the host's next turn, then ask again
        try:
            yield
        finally:
            self._end_turn(keys=[key], args=[token, gap])

    def host_gap(self, host: str, robots: RobotsPolicy | None, delay: float | None) -> float:
        if host not in self._local:
            self._local[host] = is_local_host(host)
        base = self.s.local_delay if self._local[host] else self.s.delay
        if delay is not None:
            base = delay
        crawl_delay = robots.crawl_delay if robots else None
        return max(base, float(crawl_delay or 0))

    def robots(self, url: str) -> RobotsPolicy:
        p = urlsplit(url)
        origin = f"{p.scheme}://{p.netloc}"
        cached = self._robots.get(origin)
        if cached and time.monotonic() - cached[0] < 600:
            return cached[1]
        text = self.state.robots(origin)
        if text is None:
            try:
                r = self._fetch(origin + "/robots.txt", max_bytes=500_000, delay=None, robots=None)
                text = r.text if r.status < 400 else ""
            except FetchError as e:
                # RFC 9309: unreachable (5xx) means "disallow all"; missing (4xx) means "allow all"
                text = "User-agent: *\nDisallow: /\n" if (e.status or 0) >= 500 else ""
            self.state.save_robots(origin, text)
        policy = RobotsPolicy.parse(text, self.s.user_agent)
        self._robots[origin] = (time.monotonic(), policy)
        return policy

    def _fetch(self, url: str, *, max_bytes: int | None = None, delay: float | None,
               robots: RobotsPolicy | None) -> Response:
        host = urlsplit(url).netloc.lower()
        with self.turn(host, self.host_gap(urlsplit(url).hostname or host, robots, delay)):
            resp = fetch(url, timeout=self.s.request_timeout, max_bytes=max_bytes or self.s.max_page_bytes,
                         max_redirects=self.s.max_redirects, allow_private=self.s.allow_private,
                         user_agent=self.s.user_agent, session=_session())
        if self.recorder:
            self.recorder(resp)
        return resp

    def get(self, url: str, *, delay: float | None = None, obey_robots: bool = True,
            max_bytes: int | None = None) -> Response:
        """Fetch `url` politely; raises FetchError (kind "robots" when robots.txt forbids it)."""
        limits.check()  # (issue 20) the task's deadline, checked before every request
        robots = None
        if obey_robots:
            robots = self.robots(url)
            if not robots.allowed(url):
                raise FetchError("robots", url, "disallowed by robots.txt")
        return self._fetch(url, max_bytes=max_bytes, delay=delay, robots=robots)
