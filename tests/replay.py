"""pywb, the replay tool archivists run, serving WARC files on loopback for the tests.

pywb 2.10 pins redis<3 and fakeredis 0.16, which would break celery/redis in the
project's environment, so it lives in a virtualenv of its own, built once and cached
under the temp directory (BLOGHARVEST_PYWB_VENV overrides where), and runs as a
subprocess: `wb-manager init/add` builds a collection, `wayback` serves it.

    with Wayback([warc_path, ...]) as wb:
        wb.get(url)          -> (status, headers, body) of the replay of `url` (mp_: the page
                                as a browser in pywb's frame gets it, links rewritten)
        wb.replay_url(url)   -> the address of that replay
"""
from __future__ import annotations

import fcntl
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

PYWB_VERSION = "2.10.0"
START_TRIES = 3  # ports picked: another process may take a picked port before wayback binds it
START_SECONDS = 120  # for wayback to answer, on a machine loaded by the whole suite
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback, never a proxy


def pywb_venv() -> Path:
    """The cached virtualenv holding pywb (built on first use; a lock keeps parallel runs apart)."""
    root = Path(os.environ.get("BLOGHARVEST_PYWB_VENV")
                or Path(tempfile.gettempdir()) / f"blogharvest-pywb-{PYWB_VERSION}")
    ready = root / ".ready"
    if ready.exists():
        return root
    root.parent.mkdir(parents=True, exist_ok=True)
    with open(str(root) + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if ready.exists():
            return root
        shutil.rmtree(root, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(root)], check=True, timeout=300)
        p = subprocess.run([str(root / "bin" / "pip"), "install", "-q", f"pywb=={PYWB_VERSION}"],
                           capture_output=True, text=True, timeout=900)
        if p.returncode != 0:
            shutil.rmtree(root, ignore_errors=True)
            pytest.skip(f"pywb {PYWB_VERSION} could not be installed into its own venv: {p.stderr[-500:]}")
        ready.touch()
    return root


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Wayback:
    """A pywb collection of `warcs`, served by `wayback` on a free loopback port."""

    def __init__(self, warcs: list, collection: str = "blog", framed: bool = False):
        self.warcs = [str(w) for w in warcs]
        self.framed = framed  # False: pages replay at the top level (a browser sees them as a reader would)
        self.collection = collection
        self.dir = None
        self.proc = None
        self.port = None

    def __enter__(self) -> "Wayback":
        venv = pywb_venv()
        self.dir = tempfile.mkdtemp(prefix="blogharvest-pywb-")
        run = lambda *cmd: subprocess.run([str(venv / "bin" / cmd[0]), *cmd[1:]], cwd=self.dir,
                                          capture_output=True, text=True, timeout=300, check=True)
        if not self.framed:  # else pywb sends a browser's top-level mp_ load to its frame page
            Path(self.dir, "config.yaml").write_text("framed_replay: false\n")
        run("wb-manager", "init", self.collection)
        run("wb-manager", "add", self.collection, *self.warcs)
        for attempt in range(START_TRIES):
            if self._serve(venv, last=attempt == START_TRIES - 1):
                return self
        raise AssertionError("unreachable")

    def _serve(self, venv: Path, last: bool) -> bool:
        """Start `wayback` on a freshly picked port and wait until it answers. Another process may
        take the port between the pick and wayback's bind (a test's redis-server, which resets an
        HTTP request): wayback then exits, and False asks for another port; on the last try, or
        when wayback does not answer in time, the error carries wayback's log."""
        self.port = _free_port()
        self.log = open(os.path.join(self.dir, "wayback.log"), "wb")
        self.proc = subprocess.Popen([str(venv / "bin" / "wayback"), "-p", str(self.port), "-b", "127.0.0.1"],
                                     cwd=self.dir, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + START_SECONDS
        while True:  # readiness: wayback answers its collection page
            if self.proc.poll() is not None:
                log = self._stop()
                if last:
                    self.__exit__(None, None, None)
                    raise RuntimeError(f"wayback exited at start: {log[-2000:]}")
                return False
            try:
                _OPENER.open(f"http://127.0.0.1:{self.port}/{self.collection}/", timeout=2).read()
                if self.proc.poll() is None:  # wayback answered, not a process that held the port
                    return True
            except (urllib.error.URLError, ConnectionError, OSError):
                if time.monotonic() > deadline:
                    log = self._stop()
                    self.__exit__(None, None, None)
                    raise RuntimeError(f"wayback did not answer in {START_SECONDS} s: {log[-2000:]}")
                time.sleep(0.2)

    def _stop(self) -> str:
        """Stop the wayback process; its log."""
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.terminate()
                try:
                    self.proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait(timeout=20)
            self.proc = None
            self.log.close()
        return self.logtext()

    def logtext(self) -> str:
        if not self.dir:
            return ""
        try:
            return Path(self.dir, "wayback.log").read_text(errors="replace")
        except OSError:
            return ""

    def index(self) -> str:
        """The collection's CDXJ index, as pywb wrote it."""
        return Path(self.dir, "collections", self.collection, "indexes", "index.cdxj").read_text()

    def replay_url(self, url: str, mode: str = "mp_") -> str:
        return f"http://127.0.0.1:{self.port}/{self.collection}/{mode}/{url}"

    def get(self, url: str, mode: str = "mp_") -> tuple[int, dict, bytes]:
        try:
            with _OPENER.open(self.replay_url(url, mode), timeout=30) as r:
                return r.status, dict(r.headers), r.read()
        except urllib.error.HTTPError as e:
            return e.code, dict(e.headers), e.read()

    def __exit__(self, *exc) -> None:
        self._stop()
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
