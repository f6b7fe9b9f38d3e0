"""A process's memory of the URLs its crawls queued already, so a page's links are checked
against it before Redis (issue 33: most links of a page are the blog's menus and sidebars,
queued long ago; sending each to the seen set again was most of a crawl's Redis commands).

Only a cache: a URL is noted once a script has added it to the crawl's seen set (or said it
was there), and a URL not noted is sent to Redis as before, which decides atomically. The
one way a noted URL could be missing from Redis is Redis losing its last writes (a crash
between AOF fsyncs, a failover to a replica that lagged): that needs a new connection, so
every (re)connect of the client's pool forgets the whole memory, and a note whose write
raced with such a reconnect is not taken.
"""
from __future__ import annotations

import threading
import weakref

LIMIT = 200_000  # urls remembered per process, all crawls together (about 25 MB at most)


class _Reconnects:
    """Tells the caches of a connection pool when one of its connections (re)connects."""

    def __init__(self, pool):
        self.caches: weakref.WeakSet = weakref.WeakSet()
        make = pool.make_connection

        def made():
            conn = make()
            conn.register_connect_callback(self.fire)
            return conn

        pool.make_connection = made
        for conn in [*getattr(pool, "_available_connections", []), *getattr(pool, "_in_use_connections", [])]:
            conn.register_connect_callback(self.fire)

    def fire(self, _conn) -> None:
        for cache in list(self.caches):
            cache.forget()


class SeenCache:
    """crawl id -> urls known to be in the crawl's seen set (in this process)."""

    def __init__(self, client, limit: int = LIMIT):
        self.limit = limit
        self._urls: dict[str, set[str]] = {}
        self._n = 0
        self.epoch = 0  # one more at every forgetting: a note taken across one is dropped
        self._lock = threading.Lock()
        pool = getattr(client, "connection_pool", None)
        self.enabled = pool is not None and hasattr(pool, "make_connection")
        if self.enabled:
            watch = getattr(pool, "_bh_reconnects", None)
            if watch is None:
                watch = pool._bh_reconnects = _Reconnects(pool)
            watch.caches.add(self)

    def forget(self) -> None:
        with self._lock:
            self._urls.clear()
            self._n = 0
            self.epoch += 1

    def unknown(self, crawl_id: str, urls):
        """`urls` (an iterable, or a dict whose keys are urls) less those known seen."""
        known = self._urls.get(crawl_id)
        if not known:
            return urls
        if isinstance(urls, dict):
            return {u: v for u, v in urls.items() if u not in known}
        return [u for u in urls if u not in known]

    def note(self, crawl_id: str, urls, epoch: int) -> None:
        """`urls` are in the crawl's seen set: written by a call begun at `epoch` (taken
        before it was sent: a reconnect since then may have lost the write)."""
        if not self.enabled:
            return
        with self._lock:
            if epoch != self.epoch:
                return
            if self._n >= self.limit:
                self._urls.clear()
                self._n = 0
            known = self._urls.setdefault(crawl_id, set())
            before = len(known)
            known.update(urls)
            self._n += len(known) - before
