"""A bounded cache for what a worker keeps per crawl across thousands of crawls."""
from __future__ import annotations

import threading
from collections import OrderedDict


class Recent(OrderedDict):
    """A dict that keeps its `size` most recently used entries: per-crawl caches of a worker
    that lives through thousands of crawls."""

    def __init__(self, size: int = 64):
        super().__init__()
        self.size = size
        self._lock = threading.Lock()  # worker threads share it

    def get(self, key, default=None):
        with self._lock:
            if key in self:
                self.move_to_end(key)
                return self[key]
            return default

    def pop(self, key, default=None):
        with self._lock:
            return super().pop(key, default)

    def __setitem__(self, key, value):
        with self._lock:
            super().__setitem__(key, value)
            self.move_to_end(key)
            while len(self) > self.size:
                self.popitem(last=False)
