"""The embedded default (workers/embedded.py): lean worker processes, a quick clean stop,
and a private Redis that keeps only what lasts once the crawl command ends."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import redis

from tests.conftest import wait_for
from tests.farm.server import FarmServer
from tests.farm.wordpress import WordPress

CLI = [sys.executable, "-m", "workers.cli"]


def test_lean_workers_answer_and_stop_cleanly(redis_server, tmp_path):
    """`python -m workers.embedded` is a Celery worker like `celery worker`: it answers the
    control ping under its node name and stops warm (exit status 0) when asked."""
    from workers.app import app
    from workers.embedded import WorkerProcesses

    pool = WorkerProcesses(redis_server.url, n=2, concurrency=2, log_dir=tmp_path).start()
    try:
        assert all("workers.embedded" in " ".join(p.args) for p in pool.procs)
        wait_for(lambda: {n for r in app.control.ping(timeout=0.5) or [] for n in r} >= set(pool.names),
                 120, "both workers to answer a ping")
    finally:
        pool.stop()
    assert [p.returncode for p in pool.procs] == [0, 0]


def test_stopping_one_pool_leaves_another_on_the_same_redis_running(redis_server, tmp_path):
    """Two pools of one process on one Redis (a test's pool beside the session's): the stop's
    remote shutdown reaches only the stopped pool's workers."""
    from workers.app import app
    from workers.embedded import WorkerProcesses

    a = WorkerProcesses(redis_server.url, n=1, concurrency=1, log_dir=tmp_path).start()
    b = WorkerProcesses(redis_server.url, n=1, concurrency=1, log_dir=tmp_path).start()
    try:
        assert set(a.names).isdisjoint(b.names)
        wait_for(lambda: {n for r in app.control.ping(timeout=0.5) or [] for n in r} >= set(a.names + b.names),
                 120, "both pools to answer a ping")
        a.stop()
        assert [p.returncode for p in a.procs] == [0]
        assert b.procs[0].poll() is None, "the other pool's worker was shut down too"
        assert {n for r in app.control.ping(destination=b.names, timeout=1.0) or [] for n in r} == set(b.names)
    finally:
        a.stop()
        b.stop()


def test_deferred_workers_start_once_the_first_consumes(redis_server, tmp_path, monkeypatch):
    """`start(first_alone=True)`: one worker now, the others only after it says it consumes
    (the readiness pipe), and then they consume too. (Their bound on waiting for it, a few
    seconds, is raised here: a loaded machine starts the first worker slower than that.)"""
    from workers import embedded
    from workers.app import app
    from workers.embedded import WorkerProcesses

    monkeypatch.setattr(embedded, "DEFER_AT_MOST", 100.0)
    pool = WorkerProcesses(redis_server.url, n=3, concurrency=1, log_dir=tmp_path).start(first_alone=True)
    try:
        assert len(pool.procs) == 1 and len(pool.deferred) == 2
        wait_for(lambda: not pool.start_deferred(wait=0.5), 120, "the deferred workers to start")
        assert pool.ready[pool.procs[0]].ready, "the others started before the first consumed"
        assert len(pool.procs) == 3
        wait_for(lambda: {n for r in app.control.ping(timeout=0.5) or [] for n in r} >= set(pool.names),
                 120, "all three workers to answer a ping")
    finally:
        pool.stop()
    assert [p.returncode for p in pool.procs] == [0, 0, 0]


def test_deferred_workers_start_when_the_first_dies_starting(redis_server, tmp_path):
    """A first worker that ends before it consumes does not hold the others back."""
    from workers.embedded import WorkerProcesses

    pool = WorkerProcesses(redis_server.url, n=2, concurrency=1, log_dir=tmp_path).start(first_alone=True)
    try:
        pool.procs[0].kill()
        pool.procs[0].wait()
        wait_for(lambda: not pool.start_deferred(wait=0.5), 30, "the deferred worker to start")
        assert len(pool.procs) == 2 and pool.procs[1].poll() is None
        assert not pool.ready[pool.procs[0]].ready
    finally:
        pool.stop()


def test_drop_expiring_keeps_what_lasts(redis_server):
    """Keys with an expiry (an ended crawl's working keys, caches) go; the rest stays, and so
    do expiring keys a later crawl reads (a URL's capture, which an update crawl's revisit
    record points at), with their expiry."""
    from workers.archive.sinks import capture_key
    from workers.embedded import Embedded

    r = redis.Redis.from_url(redis_server.url)
    capture = capture_key("http://blog.test/test-embedded/post/")
    r.set("bh:test-embedded:cache", "x", ex=3600)
    r.hset("bh:test-embedded:records", "u", "{}")
    r.hset(capture, "id", "<urn:uuid:x>")
    r.expire(capture, 3600)
    emb = Embedded()
    emb.redis_url = redis_server.url
    assert emb.drop_expiring() >= 1
    assert not r.exists("bh:test-embedded:cache") and r.exists("bh:test-embedded:records")
    assert r.exists(capture) and r.ttl(capture) > 0
    r.delete("bh:test-embedded:records", capture)


def test_the_private_stream_is_capped_unless_asked(monkeypatch):
    from workers.embedded import Embedded

    monkeypatch.delenv("BLOGHARVEST_STREAM_MAXLEN", raising=False)
    assert Embedded().env["BLOGHARVEST_STREAM_MAXLEN"] == "0"
    monkeypatch.setenv("BLOGHARVEST_STREAM_MAXLEN", "5000")
    assert "BLOGHARVEST_STREAM_MAXLEN" not in Embedded().env  # the workers inherit the user's


def test_an_embedded_crawl_leaves_records_and_report_only(tmp_path):
    """After `blogharvest crawl` the private Redis holds the records, the crawl's report and
    counts: no learning cache, no working keys of the ended crawl, nothing set to expire."""
    from workers.redis_server import RedisServer

    blog = WordPress(seed=12, n_posts=20)
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env.update(BLOGHARVEST_ALLOW_PRIVATE="1", BLOGHARVEST_HOME=str(home))
    with FarmServer(blog) as site:
        p = subprocess.run(CLI + ["crawl", site.url, "--out", str(tmp_path / "o.jsonl"), "--quiet", "--js", "never"],
                           env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    with RedisServer(Path(home) / "redis", persist=True) as server:
        r = redis.Redis.from_url(server.url, decode_responses=True)
        keys = list(r.scan_iter(count=1000))
        assert keys
        assert [k for k in keys if r.pttl(k) > 0] == []
        assert not [k for k in keys if k.endswith((":pages", ":entries", ":seen", ":frontier", ":done"))]
        [records] = [k for k in keys if k.endswith(":records") and r.type(k) == "hash"]
        assert r.hlen(records) == 20
        [crawl] = [k for k in keys if ":crawl:" in k and r.type(k) == "hash" and r.hexists(k, "state")]
        assert r.hget(crawl, "state") == "done"


def test_workers_still_starting_are_stopped_at_once(redis_server, tmp_path):
    """A worker that has not yet said it consumes has taken nothing: the stop ends it at once
    instead of waiting `asked` seconds for a remote shutdown it never heard (a refused crawl's
    command waited five seconds for it)."""
    import time

    from workers.embedded import WorkerProcesses

    pool = WorkerProcesses(redis_server.url, n=2, concurrency=1, log_dir=tmp_path).start()
    began = time.monotonic()
    pool.stop(timeout=60, asked=120)
    assert time.monotonic() - began < 60
    assert all(p.poll() is not None for p in pool.procs)


def test_a_worker_says_when_it_consumes(redis_server, tmp_path):
    """The readiness pipe: a worker answering the control ping has said it consumes."""
    from workers.app import app
    from workers.embedded import WorkerProcesses

    pool = WorkerProcesses(redis_server.url, n=1, concurrency=1, log_dir=tmp_path).start()
    try:
        wait_for(lambda: {n for r in app.control.ping(timeout=0.5) or [] for n in r} >= set(pool.names),
                 120, "the worker to answer a ping")
        assert pool.ready[pool.procs[0]].is_ready()
    finally:
        pool.stop()
    assert pool.procs[0].returncode == 0


def test_unblocking_a_brpop_pops_nothing(redis_server):
    """CLIENT UNBLOCK (what wakes a stopping worker's poll) makes BRPOP return empty, as at
    its timeout: the message queued after it is still there for the next worker."""
    import threading

    from workers.embedded import WorkerProcesses

    r = redis.Redis.from_url(redis_server.url)
    key = "bh:test-embedded:queue"
    got = {}
    client = redis.Redis.from_url(redis_server.url, client_name="bh-test-poller")
    poller = threading.Thread(target=lambda: got.update(v=client.brpop(key, 60)))
    poller.start()
    wait_for(lambda: any(c["name"] == "bh-test-poller" and "b" in c["flags"] for c in r.client_list()), 30,
             "the BRPOP to block")
    assert WorkerProcesses(redis_server.url)._unblock() >= 1
    poller.join(30)
    assert not poller.is_alive() and got["v"] is None
    r.lpush(key, "message")
    assert r.rpop(key) == b"message"


def test_redis_stops_at_once_with_its_data_kept(tmp_path):
    """SHUTDOWN NOSAVE (the embedded stop's) still flushes the AOF: what was written just
    before the stop is there after a restart. With a password set since, SIGTERM instead."""
    from workers.redis_server import RedisServer

    server = RedisServer(tmp_path / "redis", persist=True).start()
    redis.Redis.from_url(server.url).set("bh:test-embedded:last", "written")
    assert server._shutdown()  # the command, not the SIGTERM fallback
    assert server.proc.wait(timeout=20) == 0
    again = RedisServer(tmp_path / "redis", persist=True).start()
    assert redis.Redis.from_url(again.url).get("bh:test-embedded:last") == b"written"
    redis.Redis.from_url(again.url).config_set("requirepass", "secret")
    again.stop(at_once=True)
    assert again.proc.returncode == 0


def test_workers_started_before_their_redis_connect_when_it_answers(tmp_path):
    """The embedded start launches redis-server and the workers together: a worker whose
    Redis is not listening yet waits for it, then consumes."""
    from workers.embedded import WorkerProcesses
    from workers.redis_server import RedisServer, free_port

    port = free_port()
    pool = WorkerProcesses(f"redis://127.0.0.1:{port}/0", n=1, concurrency=1, log_dir=tmp_path).start()
    try:
        with RedisServer(tmp_path / "redis", port=port, persist=False):
            wait_for(lambda: pool.ready[pool.procs[0]].is_ready(), 120, "the worker to consume")
            pool.stop()
            assert pool.procs[0].returncode == 0
    finally:
        pool.stop()


def test_a_free_port_taken_before_redis_binds_it_is_traded_for_another(tmp_path, monkeypatch):
    """free_port() only says a port was free a moment ago: another process of a busy machine may
    bind it first (a kill test's private Redis failed so under a loaded suite). A port the
    server picked itself is picked again; one it was given is not."""
    import socket

    from workers import redis_server
    from workers.redis_server import RedisServer

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    busy = taken.getsockname()[1]
    real = redis_server.free_port
    picks = iter([busy])
    monkeypatch.setattr(redis_server, "free_port", lambda: next(picks, None) or real())
    try:
        server = RedisServer(tmp_path / "picked", persist=False).start()
        try:
            assert server.port != busy and redis.Redis(port=server.port).ping()
        finally:
            server.stop()
        with pytest.raises(RuntimeError, match="in use"):
            RedisServer(tmp_path / "given", port=busy, persist=False).start()
    finally:
        taken.close()


def test_only_the_first_embedded_worker_takes_the_render_queue():
    """One browser in the embedded tree: the render queue (pages a browser draws) goes to the
    first worker only; a pool told nothing gives every worker the queues it was given."""
    from workers.embedded import RENDER_WORKERS, WorkerProcesses
    from workers.settings import DEFAULT_QUEUE, RENDER_QUEUE, WORKER_QUEUES

    pool = WorkerProcesses("redis://127.0.0.1:1/0", n=3, render_workers=RENDER_WORKERS)
    queues = [pool.queues_of(pool.node_name(i)).split(",") for i in range(3)]
    assert RENDER_WORKERS == 1
    assert RENDER_QUEUE in queues[0] and DEFAULT_QUEUE in queues[0]
    assert queues[1] == queues[2] == [DEFAULT_QUEUE]
    plain = WorkerProcesses("redis://127.0.0.1:1/0", n=2)
    assert [plain.queues_of(plain.node_name(i)) for i in range(2)] == [WORKER_QUEUES] * 2


def test_a_crawl_whose_workers_all_exit_ends_with_a_clear_error(tmp_path):
    """Workers that cannot start (a broken install: their code does not import) leave the crawl
    queued: the command says the workers exited and where their logs are, and exits 1, instead of
    waiting for pages no one will take (seen when a syntax error reached the workers only)."""
    broken = tmp_path / "broken"
    broken.mkdir()
    # only the worker processes (`python -m workers.embedded`) fail at start; the command runs
    (broken / "sitecustomize.py").write_text(
        "import sys\nif 'workers.embedded' in getattr(sys, 'orig_argv', []):\n    raise SystemExit(3)\n")
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env.update(BLOGHARVEST_ALLOW_PRIVATE="1", BLOGHARVEST_HOME=str(home),
               PYTHONPATH=os.pathsep.join([str(broken), env.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    with FarmServer(WordPress(seed=12, n_posts=5)) as site:
        p = subprocess.run(CLI + ["crawl", site.url, "--out", str(tmp_path / "o.jsonl"), "--js", "never"],
                           env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 1, p.stderr[-2000:]
    assert "workers all exited" in p.stderr and "logs" in p.stderr
