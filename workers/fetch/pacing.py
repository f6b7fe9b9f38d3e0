"""Every host busy at its own pace, never a worker's thread waiting for one (issue 33).

A page of a host that politeness paces (a gap between requests: BLOGHARVEST_DELAY, a
Crawl-delay) is not sent when the frontier hands it out, but booked a slot of its host's
schedule (`Downloader.book_at`: slots follow each other by the gap and the time a request
takes) and sent when the slot comes:

- a slot that is now goes out at once (`schedule` says so);
- a later one waits in the due set (`bh:delayed`, the same set a step deferred by HostBusy
  waits in: workers/fetch/patience.py), the page in flight with its due time (so the stale
  sweep leaves it alone, and workers/orphans.py counts the set as carrying it);
- each worker process runs a `Pacer` thread that sends the pages falling due, to the
  millisecond rather than at the heal sweep's period (one atomic pop, `patience.pop_due`).

So the broker holds only pages whose host is free: a worker's threads never take a page
only to sleep through its host's gap, and while one host waits, the pages of every other
host go out. No countdown or ETA message carries a politeness wait (those sit in a worker's
memory, out of every other worker's reach).
"""
from __future__ import annotations

import json
import logging
import threading

import redis

from workers.fetch.downloader import INLINE_WAIT
from workers.fetch.patience import ADDED, DELAYED, pop_due
from workers.state import Keys

log = logging.getLogger("blogharvest")

REDIS_DOWN = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)
IDLE = 1.0  # the pacer's longest pause between two looks at the due set: a page this process adds
# wakes it at once (patience.ADDED), one another process adds is that process's pacer's to send
# (and, should it die, the other pacers' within IDLE); looking ten times a second whatever the
# set held cost a worker 40 commands a second (issue 33)
BATCH = 200  # pages sent per look at most
# The broker priority (kombu's Redis transport: 0, the default, is taken first, 9 last) of a page
# that makes no request of a paced host: every worker thread that comes free takes the pages whose
# host's slot is now before it, and the cached pages fill the time between slots. When twenty blogs
# end their learning together, the thirty posts each read for it used to stand in the broker ahead
# of every host's next request: each host idled seconds (the bench/polite.py traversal turn).
BEHIND = 6


def schedule(rt, crawl_id: str, url: str) -> bool | None:
    """True: `url` may be sent now (its host is not paced, or its slot is now). False: it is
    booked a later slot and waits in the due set; the pacer sends it then. None: a page of a
    paced host that makes no request of its own (read for learning already): sent now, behind
    the pages whose hosts wait for them (`BEHIND`)."""
    dl = rt.downloader
    host, gap = dl.gap_for(url)
    if gap <= 0:
        return True
    k = Keys(crawl_id)
    if rt.state.r.hexists(k.pages, url):
        return None  # read for learning already: no request of its own to book a slot for
    wait, slot = dl.book_at(host, gap)
    if wait <= INLINE_WAIT:
        return True
    with rt.state.r.pipeline() as p:
        p.hset(k.inflight, url, slot)  # in flight, due then: the stale sweep leaves it alone meanwhile
        p.zadd(DELAYED, {json.dumps([crawl_id, url]): slot})
        p.execute()
    ADDED.set()
    return False


class Pacer(threading.Thread):
    """A worker's thread that sends the pages of the due set when they fall due (any worker's
    pacer may send any page: the pop is atomic)."""

    def __init__(self, rt, send):
        super().__init__(name="blogharvest-pacer", daemon=True)
        self.rt, self.send = rt, send
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.is_set():
            try:
                ADDED.clear()  # (before the look: a page added during it wakes the next wait)
                due, following = pop_due(self.rt.state.r, BATCH)
                for crawl_id, url in due:
                    self.send(crawl_id, url)
                wait = 0.0 if len(due) == BATCH else IDLE if following is None else min(IDLE, max(0.002, following))
            except REDIS_DOWN:
                wait = 1.0  # the heal thread says so in the log; the set waits in Redis meanwhile
            except Exception:  # the thread must outlive any bug of one look
                log.exception("pacer: sending due pages failed")
                wait = 1.0
            if wait:
                ADDED.wait(wait)
            if self.stopped.is_set():
                return

    def stop(self) -> None:
        self.stopped.set()
        ADDED.set()


_pacer: Pacer | None = None


def start(rt, send) -> Pacer:
    global _pacer
    if _pacer is None or not _pacer.is_alive():
        _pacer = Pacer(rt, send)
        _pacer.start()
    return _pacer


def stop() -> None:
    if _pacer is not None:
        _pacer.stop()


def connect(app) -> None:
    """The pacer starts with the worker (Celery's worker_ready) and stops when it shuts down."""
    from celery import signals

    def on_ready(sender=None, **_):
        from workers.runtime import runtime
        from workers.start import send_due

        start(runtime(), send_due)

    signals.worker_ready.connect(on_ready, weak=False)
    signals.worker_shutting_down.connect(lambda **_: stop(), weak=False)
