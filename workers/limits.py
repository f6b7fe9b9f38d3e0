"""Time limits that hold in the threads pool (the default): Celery's soft and hard limits
need signals or child processes, which threads have not. So each task carries a deadline,
set when it starts (its soft limit), and the long steps check it: before every fetch,
between the pages a task chains, before learning on a page. A check past the deadline
raises SoftTimeLimitExceeded, which the tasks already turn into a `timeout` entry of the
crawl's report. Every blocking call has its own bound (request timeout, browser page load
and script timeouts, politeness waits of at most INLINE_WAIT), so a task ends at most one
such bound after its deadline. In the prefork pool Celery's hard limit also holds.
"""
from __future__ import annotations

import threading
import time

from celery.exceptions import SoftTimeLimitExceeded

_local = threading.local()


def start(seconds: float | None) -> None:
    _local.deadline = time.monotonic() + seconds if seconds else None


def clear() -> None:
    _local.deadline = None


def remaining() -> float | None:
    d = getattr(_local, "deadline", None)
    return None if d is None else d - time.monotonic()


def check() -> None:
    left = remaining()
    if left is not None and left <= 0:
        raise SoftTimeLimitExceeded(f"task deadline passed {-left:.1f} s ago")


def connect(app) -> None:
    from celery import signals

    def on_prerun(sender=None, **_):
        if getattr(sender, "name", "").startswith("blogharvest."):
            start(getattr(sender, "soft_time_limit", None) or app.conf.task_soft_time_limit)

    def on_postrun(**_):
        clear()

    signals.task_prerun.connect(on_prerun, weak=False)
    signals.task_postrun.connect(on_postrun, weak=False)
