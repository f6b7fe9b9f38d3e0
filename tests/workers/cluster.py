"""A private cluster for tests that break things: its own Redis (AOF), worker processes and a
plain Celery client.

The session fixtures (`redis_server`, `workers`) are shared by every test; a test that
SIGKILLs a worker, restarts Redis or needs other limits (request timeout, page size) starts
this instead, so nothing it does leaks into other tests. The client sends tasks by name,
as another service would, and sweeps (re-sends pages whose worker died) the way the CLI's
follower does, through the `blogharvest.sweep` task.
"""
from __future__ import annotations

from contextlib import contextmanager

import json
import os
import signal
import time
from collections import Counter
from pathlib import Path

import pytest
from celery import Celery

from workers.embedded import WorkerProcesses
from workers.start import start_crawl
from workers.redis_server import RedisServer
from workers.state import STREAM, State


class Cluster:
    def __init__(self, base: Path, n: int = 2, concurrency: int = 2, env: dict | None = None,
                 password: str | None = None):
        self.base = Path(base)
        self.password = password
        self.n, self.concurrency = n, concurrency
        self.env = {"BLOGHARVEST_ALLOW_PRIVATE": "1", **(env or {})}
        self.redis: RedisServer | None = None
        self.pool: WorkerProcesses | None = None
        self.client: Celery | None = None
        self.state: State | None = None
        self.sweeps: list = []  # AsyncResults of the sweeps sent

    # ---------------------------------------------------------------- lifecycle
    def start(self) -> "Cluster":
        self.redis = RedisServer(self.base / "redis", persist=True).start()
        if self.password:  # from now on every client must authenticate
            import redis

            redis.Redis(port=self.redis.port).config_set("requirepass", self.password)
        self.log_dir = self.base / "logs"
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.pool = WorkerProcesses(self.url, self.n, self.concurrency, env=self.env,
                                    log_dir=self.log_dir).start()
        self.client = Celery("bh-test-client", broker=self.url, backend=self.url)
        self.client.conf.update(task_serializer="json", accept_content=["json"],
                                result_serializer="json", broker_connection_retry_on_startup=True)
        self.state = State.from_url(self.url)
        return self

    def stop(self) -> None:
        if self.pool:
            for p in self.pool.procs:  # workers may be stuck reconnecting: no warm shutdown wait
                if p.poll() is None:
                    p.send_signal(signal.SIGTERM)
            self.pool.stop(timeout=15)
        self.sweeps.clear()  # their results unsubscribe when collected: while Redis is up
        if self.client:
            self.client.close()
        if self.redis:
            self.redis.stop()

    @property
    def url(self) -> str:
        if self.password:
            return f"redis://:{self.password}@127.0.0.1:{self.redis.port}/0"
        return self.redis.url

    def kill_worker(self, i: int = 0) -> int:
        """SIGKILL one worker process (no warm shutdown, nothing acked or restored)."""
        p = self.pool.procs[i]
        os.kill(p.pid, signal.SIGKILL)
        p.wait(timeout=10)
        return p.returncode

    def restart_redis(self) -> None:
        """Stop Redis (SIGTERM: the AOF is flushed) and start it again on the same port and data."""
        port = self.redis.port
        self.redis.stop()
        self.redis = RedisServer(self.base / "redis", port=port, persist=True).start()

    def worker_logs(self) -> str:
        return "".join(p.read_text(errors="replace") for p in sorted(self.log_dir.glob("*.log")))

    # ---------------------------------------------------------------- crawls
    def enqueue(self, url: str, since: str | None = None, **options) -> str:
        """What workers.follow.enqueue does, with this cluster's client."""
        if since:
            options = dict(options, update=True)
        cid = self.state.create_crawl(url, since, options)
        start_crawl(self.client, self.state, cid, url, since, options)
        return cid

    def sweep(self, cid: str) -> None:
        self.sweeps.append(self.client.send_task("blogharvest.sweep", kwargs={"crawl_id": cid}))

    def swept(self) -> int:
        """Pages handed out again so far by the sweeps that finished."""
        return sum(r.result for r in self.sweeps if r.ready() and isinstance(r.result, int))

    def wait(self, cid: str, timeout: float = 60, sweep_every: float = 1.0, until=None) -> dict:
        """Poll the crawl until it ends (or `until(info)` holds), sweeping as the follower does."""
        deadline = time.monotonic() + timeout
        last_sweep = time.monotonic()
        while True:
            try:
                info = self.state.crawl_info(cid)
            except Exception:  # Redis restarting: keep polling
                info = None
            if info and (until(info) if until else info["state"] in ("done", "failed", "budget_exhausted")):
                return info
            if time.monotonic() > deadline:
                pytest.fail(f"timed out after {timeout}s waiting for crawl {cid}: {info}")
            if sweep_every and time.monotonic() - last_sweep > sweep_every:
                last_sweep = time.monotonic()
                try:
                    self.sweep(cid)
                except Exception:
                    pass
            time.sleep(0.1)  # polling interval, not synchronisation

    def crawl(self, url: str, since: str | None = None, timeout: float = 60, **options) -> tuple[dict, list]:
        cid = self.enqueue(url, since, **options)
        info = self.wait(cid, timeout)
        info["error_report"] = self.state.errors(cid)
        return info, self.state.crawl_records(cid)

    def where(self, cid: str, url: str) -> dict:
        """Where a url stands in a crawl (a diagnostic for failed assertions)."""
        from workers.state import Keys

        k, r = Keys(cid), self.state.r
        return {"url": url, "seen": r.sismember(k.seen, url), "done": r.sismember(k.done, url),
                "queued": r.zscore(k.frontier, url), "in_flight": r.hget(k.inflight, url),
                "attempts": r.hget(f"{k.crawl}:attempts", url), "record": r.hexists(k.records, url),
                "in_output": r.sismember(k.posts, url)}

    def stream_counts(self, cid: str) -> Counter:
        """How many times each url of crawl `cid` went to the bh:records stream."""
        out: Counter = Counter()
        for _, fields in self.state.r.xrange(STREAM):
            if fields.get("crawl") == cid:
                out[fields["url"]] += 1
        return out


def comparable(records: list[dict], origin: str) -> dict:
    """Records keyed by path, with the fields that must not depend on how the crawl ran."""
    out = {}
    for r in records:
        path = r["url"][len(origin):] if r["url"].startswith(origin) else r["url"]
        out[path] = {k: r.get(k) for k in ("title", "content_text", "authors", "published")}
        out[path]["comments"] = json.dumps(r.get("comments"), sort_keys=True).replace(origin, "")
    return out


@contextmanager
def clusters(base: Path, env: dict):
    """`make(**kw) -> Cluster`: started clusters under `base` (`env` by default), all stopped
    at the end (the make_cluster fixtures of the crash and outage tests)."""
    made: list[Cluster] = []

    def make(**kw) -> Cluster:
        made.append(Cluster(base / f"c{len(made)}", **{"env": env, **kw}).start())
        return made[-1]

    try:
        yield make
    finally:
        for c in made:
            c.stop()
