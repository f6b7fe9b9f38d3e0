"""The processes of a local browser session: finding binaries, the process tree, killing it,
and the memory watch that stops a renderer grown too large (a DOM bomb)."""
from __future__ import annotations

import os
import threading


def _first_existing(paths) -> str | None:
    for p in paths:
        if os.path.exists(p):
            return p
    return None


def _process_tree(pid: int) -> list[int]:
    try:
        import psutil
    except ImportError:  # pragma: no cover - psutil is optional
        return [pid]
    try:
        p = psutil.Process(pid)
        return [pid] + [c.pid for c in p.children(recursive=True)]
    except psutil.Error:
        return []


def _kill(pids: list[int]) -> None:
    try:
        import psutil
    except ImportError:  # pragma: no cover
        return
    procs = []
    for pid in pids:
        try:
            procs.append(psutil.Process(pid))
        except psutil.Error:
            pass
    for p in procs:
        try:
            p.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(procs, timeout=5)


def _is_timeout(exc: BaseException) -> bool:
    from selenium.common.exceptions import TimeoutException

    if isinstance(exc, TimeoutException):
        return True
    text = f"{type(exc).__name__} {exc}".lower()
    return "timed out" in text or "timeout" in text


class _MemoryWatch:
    """While a page renders, look at the resident memory of each of the session's processes
    every tenth of a second; one past `limit` bytes, or grown by more than `growth` bytes since
    the render began (a renderer building a DOM bomb in one script task, which the in-page
    guard cannot interrupt), gets the browser killed, and the render fails as "too_large".
    Per process, not summed: shared pages are counted in every process's RSS."""

    EVERY = 0.1  # seconds between looks: at 1 GB/s of growth, 100 MB past the bound at most

    def __init__(self, s, limit: int, growth: int = 0):
        self.s, self.limit, self.growth = s, limit, growth
        self._stop = threading.Event()

    def __enter__(self):
        if self.s.pids and self.limit:
            threading.Thread(target=self._run, name="renderer-memory", daemon=True).start()
        return self

    def __exit__(self, *exc):
        self._stop.set()

    def _run(self) -> None:
        try:
            import psutil
        except ImportError:  # pragma: no cover
            return
        procs, base = {}, {}
        first = True
        while first or not self._stop.wait(self.EVERY):
            first = False
            pids = _process_tree(self.s.pids[0])
            for pid in pids:
                try:
                    p = procs.get(pid) or procs.setdefault(pid, psutil.Process(pid))
                    rss = p.memory_info().rss
                    start = base.setdefault(pid, rss)
                    if rss > self.limit or (self.growth and rss - start > self.growth):
                        break
                except psutil.Error:
                    continue
            else:
                continue
            self.s.over_memory = True
            _kill(pids[1:])  # the browser; its driver then reports the crash
            return
