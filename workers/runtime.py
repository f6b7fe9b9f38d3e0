"""Per-process handles a worker needs (Redis client, settings, downloader), made once."""
from __future__ import annotations

import threading
from functools import cached_property

from workers.cache import Recent
from workers.settings import Settings, settings
from workers.state import Keys, State


class Runtime:
    def __init__(self, s: Settings):
        self.settings = s
        self.models = Recent()  # crawl id -> (samples seen, fitted priority model); a cache only
        self.max_pages = Recent(1024)  # crawl id -> its page budget; a cache only
        self.updating = Recent(1024)  # crawl id -> whether it is an update crawl; a cache only

    @cached_property
    def state(self) -> State:
        from workers.heal import WORKER_ID

        # connections named after the worker: a sweeper tells a dead one by their absence
        st = State.from_url(self.settings.redis_url or "redis://127.0.0.1:6379/0", name=WORKER_ID)
        st.finished_ttl = self.settings.finished_ttl
        st.stream_maxlen = self.settings.stream_maxlen
        return st

    @cached_property
    def downloader(self):
        from workers.fetch.downloader import Downloader
        from workers.archive.sinks import warc_recorder

        return Downloader(self.state, self.settings, recorder=warc_recorder(self.settings, self.state))

    @staticmethod
    def keys(crawl_id: str) -> Keys:
        return Keys(crawl_id)


_lock = threading.Lock()
_runtime: Runtime | None = None


def runtime() -> Runtime:
    global _runtime
    with _lock:
        if _runtime is None:
            _runtime = Runtime(settings())
        return _runtime
