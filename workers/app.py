"""The Celery app: JSON only, late acks, one message at a time, bounded tasks.

Other services enqueue crawls by task name (`blogharvest.new_crawl`, ...) over the
Celery protocol without importing this code; everything they send is JSON.
"""
from __future__ import annotations

import ssl

from celery import Celery
from celery.signals import worker_shutdown

from workers.broker import TRANSPORT
from workers.settings import DEFAULT_QUEUE, settings

_s = settings()
REDIS_URL = _s.redis_url or "redis://127.0.0.1:6379/0"

app = Celery("blogharvest", broker=REDIS_URL, backend=REDIS_URL, include=["workers.crawl"])
app.conf.update(
    task_serializer="json",
    result_serializer="json",
    accept_content=["json"],
    result_accept_content=["json"],
    event_serializer="json",
    task_acks_late=True,
    worker_prefetch_multiplier=1,
    task_soft_time_limit=_s.soft_time_limit,
    task_time_limit=_s.hard_time_limit,
    # a chord of rule learning may wait on slow pages: results outlive the longest chord
    result_expires=24 * 3600,
    broker_transport_options={"visibility_timeout": _s.visibility_timeout},
    result_backend_transport_options={"visibility_timeout": _s.visibility_timeout},
    broker_connection_retry_on_startup=True,
    # kombu's Redis transport, a closed connection's late steps failing as connection errors
    broker_transport=TRANSPORT,
    task_default_queue=DEFAULT_QUEUE,
    task_track_started=False,
    worker_hijack_root_logger=False,
    worker_send_task_events=False,
    # redbeat keeps schedules in the same Redis, so a restarted beat loses nothing
    redbeat_redis_url=REDIS_URL,
    redbeat_key_prefix="bh:redbeat:",
    beat_scheduler="redbeat.RedBeatScheduler",
    beat_max_loop_interval=5,
    worker_soft_shutdown_timeout=float(__import__("os").environ.get("BLOGHARVEST_WORKER_SOFT_SHUTDOWN", 0) or 0),
)


def _exit_without_collecting(**_):
    """A stopping worker has nothing left to free: the cyclic collector's last pass over a
    whole worker heap at interpreter exit took seconds on a loaded machine (warm shutdown
    was 0.05 s of stopping and 2.5 s of collecting). Objects are still released by
    reference counting, files flushed and closed; only the exit's full cycle scan goes."""
    import gc

    gc.freeze()


worker_shutdown.connect(_exit_without_collecting, weak=False)

if REDIS_URL.startswith("rediss://"):
    # TLS to Redis (managed Redis): verify the server's certificate, broker and results alike
    _tls = {"ssl_cert_reqs": ssl.CERT_REQUIRED}
    app.conf.update(broker_use_ssl=_tls, redis_backend_use_ssl=_tls)
