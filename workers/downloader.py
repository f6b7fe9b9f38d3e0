"""The downloader of a worker: robots.txt, per-host politeness shared through Redis, limits.

Scrapy keeps its downloader apart from scheduling and pipelines; so do we. Every fetch a
task makes goes through `Downloader.get`, which is where politeness is enforced for the
whole cluster (one Redis slot reservation per request) and where limits apply.
"""
from __future__ import annotations

import ipaddress
import socket
import threading
import time
from urllib.parse import urlsplit

import requests

from tasks.fetch import FetchError, Response, fetch
from tasks.robots import RobotsPolicy
from workers.settings import Settings
from workers.state import State

_local = threading.local()


def _session() -> requests.Session:
    s = getattr(_local, "session", None)
    if s is None:
        s = _local.session = requests.Session()
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
        wait = self.state.host_wait(host, self.host_gap(urlsplit(url).hostname or host, robots, delay))
        if wait > 0:
            time.sleep(min(wait, 120))  # politeness: the slot reserved for us in Redis
        resp = fetch(url, timeout=self.s.request_timeout, max_bytes=max_bytes or self.s.max_page_bytes,
                     max_redirects=self.s.max_redirects, allow_private=self.s.allow_private,
                     user_agent=self.s.user_agent, session=_session())
        if self.recorder:
            self.recorder(resp)
        return resp

    def get(self, url: str, *, delay: float | None = None, obey_robots: bool = True,
            max_bytes: int | None = None) -> Response:
        """Fetch `url` politely; raises FetchError (kind "robots" when robots.txt forbids it)."""
        robots = None
        if obey_robots:
            robots = self.robots(url)
            if not robots.allowed(url):
                raise FetchError("robots", url, "disallowed by robots.txt")
        return self._fetch(url, max_bytes=max_bytes, delay=delay, robots=robots)
