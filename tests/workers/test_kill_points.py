"""A worker killed at each step of a page's and a crawl's life, and the crawl still ends (issue 36).

A worker process here names each Redis write it sends by where it comes from and SIGKILLs
itself just before the N-th write of one name (tests/workers/killpoint/sitecustomize.py):
it dies between two of its Redis writes, wherever those are (a page handed out and not yet
sent, a lock held, a chord's part counted and its callback not yet sent, the finishing step
half written, the sweep lock held). The victim runs the crawl alone (one thread: the same
writes in the same order every time); a second worker, up from the start but consuming an
idle queue, is told to consume the crawl's queue once the victim is dead (a replacement
pod), so only the workers' own heal sweep (workers/heal.py, workers/orphans.py) can bring
the crawl to its end. Each case asserts: the crawl done, every post of an undisturbed crawl
once in the output and once in the stream, within RECOVERY seconds of the kill, and its
working keys retired (set to expire). The heal timers run fast here (a 0.5 s beat) in the
defaults' order (a death told before a page it handed out is old enough to be an orphan), and
the periodic recovery pass is out of play (RECOVER_EVERY 600 s): what a kill leaves must be
taken up by the reclaim and its follow-up passes, so recovery is bounded by the heal timers
alone (docs/reliability.md). The cases run in LANES lanes at once (each its own Redis and
workers); the defaults and a 233-post crawl are measured by bench/kill.py.
"""
from __future__ import annotations

import json
import os
import subprocess
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from celery import Celery

from bench.kill import diagnose
from tests.farm.faults import Fault
from tests.farm.server import FarmServer
from tests.farm.wordpress import WordPress
from tests.workers.cluster import comparable
from workers import heal
from workers.embedded import WorkerProcesses
from workers.redis_server import RedisServer
from workers.start import start_crawl
from workers.state import ENDED, STREAM, Keys, State

ROOT = Path(__file__).resolve().parents[2]
HOOK = Path(__file__).resolve().parent / "killpoint"
ENV = {"BLOGHARVEST_ALLOW_PRIVATE": "1", "BLOGHARVEST_LOCAL_DELAY": "0", "BLOGHARVEST_REQUEST_TIMEOUT": "5",
       "BLOGHARVEST_BEAT_EVERY": "0.5", "BLOGHARVEST_GONE_AFTER": "1.5", "BLOGHARVEST_DEAD_AFTER": "4",
       "BLOGHARVEST_SWEEP_EVERY": "0.5", "BLOGHARVEST_RECOVER_EVERY": "600", "BLOGHARVEST_ORPHAN_AFTER": "3",
       "PYTHONPATH": os.pathsep.join([str(HOOK), str(ROOT)])}
IDLE = "bh-idle"  # the queue the rescuer consumes until the victim is dead
RECOVERY = 30.0  # seconds from the kill to the crawl's end (the default timers: bench/kill.py)
LANES = int(os.environ.get("BLOGHARVEST_KILL_LANES") or 6)  # cases at once

# (name of the write, which one: 1 the first, -1 the last, 0 the middle one), in a crawl's order
CASES = [
    ("workers.crawl._start", 1),  # (new_crawl, update_crawl) discovery done, the learning chord being sent
    ("workers.state.cache_page", 1),  # discovery half way
    ("celery.append", 2),  # a message taken from the queue, not yet noted held (kombu's unacked)
    ("workers.heal.hold_message", 2),  # ... in kombu's unacked, the hold being noted
    ("celery._set", 1),  # a chord part's result stored, its part not yet counted
    ("celery.on_chord_part_return", -1),  # the last part counted: the callback claimed, not sent
    ("celery._put", 1),  # the chord's callback (reduce_rules) being sent
    ("celery.ack", 1),  # a task done, its message not yet acked
    ("workers.heal.release_message", 1),  # ... acked after its hold is dropped
    ("workers.state.set_phase", -1),  # seeds queued, the phase not yet traverse
    ("workers.state.hand_out", 1),  # the first pages about to be handed out
    ("workers.start.send_due", 1),  # first pages handed out (in flight), none sent
    ("workers.state.page_context", 2),  # a kept page, noted held in this round trip
    ("workers.state.end_page", 0),  # a page's writes, mid-crawl
    ("workers.start.send_due", 0),  # a page's end handed pages out, not all sent
    ("workers.heal.release_page", 1),  # a chain's last page done, still noted held
    ("workers.state.mark_done", 1),
    ("workers.heal.take_lock", 2),  # holding the comment-rule lock
    ("workers.state.end_page", -1),  # the last page's writes, which finish the crawl
    ("workers.state.retire", 1),  # the crawl done, its finishing step not begun
    ("workers.state.retire", -1),  # ... half written
    ("workers.heal.sweep", 2),  # holding the sweep lock
]


def _blog() -> WordPress:
    return WordPress(seed=3, n_posts=6, feed_size=5)


class Lane:
    """A private Redis, a victim worker (its kill point in its environment) and a rescuer."""

    def __init__(self, base: Path, kill_at: str | None = None, log: Path | None = None):
        self.redis = RedisServer(base / "redis").start()
        env = dict(ENV, **({"BLOGHARVEST_KILL_AT": kill_at} if kill_at else {}),
                   **({"BLOGHARVEST_KILL_LOG": str(log)} if log else {}))
        (base / "logs").mkdir(parents=True, exist_ok=True)
        self.victim = WorkerProcesses(self.redis.url, 0, 1, env=env, log_dir=base / "logs")
        self.victim.start_one("victim@%h")
        self.rescuer = WorkerProcesses(self.redis.url, 0, 2, env=ENV, queues=IDLE, log_dir=base / "logs")
        self.rescuer.start_one("rescuer@%h")
        self.client = Celery("bh-kill-test", broker=self.redis.url, backend=self.redis.url)
        self.client.conf.update(task_serializer="json", accept_content=["json"],
                                broker_connection_retry_on_startup=True)
        self.state = State.from_url(self.redis.url)

    def ready(self, timeout: float = 60) -> None:
        for pool in (self.victim, self.rescuer):
            for p in pool.procs:
                assert pool.ready[p].wait(timeout), "a worker did not start"

    def rescue(self) -> None:
        """The rescuer consumes the crawl's queues from now on."""
        from kombu import Connection
        from kombu.pidbox import Mailbox

        mailbox = Mailbox(self.client.conf.control_exchange, type="fanout", accept=["json"], serializer="json")
        with Connection(self.redis.url, connect_timeout=2) as conn:
            for q in ("celery", "render"):
                mailbox(conn)._broadcast("add_consumer", {"queue": q}, destination=self.rescuer.names)

    def crawl(self, url: str) -> str:
        cid = self.state.create_crawl(url, None, {"js": "never"})
        start_crawl(self.client, self.state, cid, url, None, {"js": "never"})
        return cid

    def stop(self) -> None:
        for pool in (self.victim, self.rescuer):
            pool.stop(timeout=10, asked=3)
        self.client.close()
        self.redis.stop()


def _ended(st: State, cid: str) -> bool:
    return st.state_of(cid) in ENDED


def _poll(cond, timeout: float, what: str, why=lambda: "") -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"timed out after {timeout} s: {what} {why()}"
        time.sleep(0.05)  # polling interval, not synchronisation


@pytest.fixture(scope="module")
def undisturbed(tmp_path_factory):
    """A crawl of the blog by the victim alone, not killed: its records, and how many writes of
    each name it sent (the cases' -1 and 0 are read off these)."""
    base = tmp_path_factory.mktemp("undisturbed")
    log = base / "writes.txt"
    lane = Lane(base, log=log)
    try:
        lane.ready()
        with FarmServer(_blog()) as site:
            cid = lane.crawl(site.url)
            _poll(lambda: _ended(lane.state, cid), 120, "the undisturbed crawl")
            assert lane.state.state_of(cid) == "done"
            records = comparable(lane.state.crawl_records(cid), site.url.rstrip("/"))
    finally:
        lane.stop()
    return records, Counter(log.read_text().split())


def _which(name: str, n: int, counts: Counter) -> int:
    total = counts[name]
    assert total, f"the undisturbed crawl sends no write named {name}: {sorted(counts)}"
    return {-1: total, 0: (total + 1) // 2}.get(n, n)


def _case(base: Path, want: dict, at: str) -> float:
    """One kill at `at` and the crawl's end: seconds from the kill to done (asserts the rest)."""
    lane = Lane(base, kill_at=at)
    try:
        lane.ready()
        with FarmServer(_blog()) as site:
            cid = lane.crawl(site.url)
            victim = lane.victim.procs[0]
            _poll(lambda: victim.poll() is not None or _ended(lane.state, cid), 120, f"the victim to reach {at}")
            try:  # (a kill in the finishing step comes just after the crawl reads ended)
                victim.wait(timeout=15)
            except subprocess.TimeoutExpired:
                pytest.fail(f"the crawl ended and the victim never reached {at}")
            killed = time.monotonic()
            lane.rescue()
            _poll(lambda: _ended(lane.state, cid), RECOVERY + 60, f"the crawl's end after a kill at {at}",
                  lambda: json.dumps(diagnose(lane.state, cid), default=str))
            took = time.monotonic() - killed
            info = lane.state.crawl_info(cid)
            assert info["state"] == "done", (at, info)
            records = lane.state.crawl_records(cid)
            urls = [r["url"] for r in records]
            assert len(urls) == len(set(urls)), f"duplicates in the output after a kill at {at}"
            assert comparable(records, site.url.rstrip("/")) == want, at
            streamed = Counter(f["url"] for _, f in lane.state.r.xrange(STREAM) if f.get("crawl") == cid)
            assert max(streamed.values()) == 1 and set(streamed) == set(urls), (at, streamed.most_common(2))
            assert took < RECOVERY, f"done {took:.1f} s after a kill at {at}"
            k = Keys(cid)  # retired: the working keys expire
            _poll(lambda: lane.state.r.hget(k.crawl, "retired") == "1", RECOVERY, f"the crawl retired ({at})")
            assert lane.state.r.ttl(k.seen) > 0
            return took
    finally:
        lane.stop()


@pytest.mark.slow
def test_killed_between_two_writes_the_crawl_ends(tmp_path, undisturbed):
    """Every case of CASES, LANES at a time; every failure is reported, each with its kill point."""
    want, counts = undisturbed
    points = [f"{name}#{_which(name, n, counts)}" for name, n in CASES]
    with ThreadPoolExecutor(LANES) as pool:
        runs = [pool.submit(_case, tmp_path / f"case-{i}", want, at) for i, at in enumerate(points)]
    failed = {at: f"{type(r.exception()).__name__}: {r.exception()}"[:2000] for at, r in zip(points, runs)
              if r.exception() is not None}
    took = {at: round(r.result(), 1) for at, r in zip(points, runs) if r.exception() is None}
    print("seconds from the kill to done:", json.dumps(took))
    assert not failed, "\n".join(f"{at}: {why}" for at, why in failed.items())


def _private(base: Path, n: int, env: dict):
    """A private Redis, a pool of `n` workers (2 threads each) not yet started, a client and
    the state on it."""
    redis = RedisServer(base / "redis").start()
    (base / "logs").mkdir()
    pool = WorkerProcesses(redis.url, n, 2, env=env, log_dir=base / "logs")
    client = Celery("bh-kill-test", broker=redis.url, backend=redis.url)
    client.conf.update(task_serializer="json", accept_content=["json"], broker_connection_retry_on_startup=True)
    return redis, pool, client, State.from_url(redis.url)


@pytest.mark.slow
def test_a_slow_page_keeps_its_worker_alive(tmp_path):
    """A healthy worker on a page far slower than DEAD_AFTER and ORPHAN_AFTER (its heartbeat
    comes from a thread of its own), with the recovery pass every second: nobody is taken for
    dead, the slow page is fetched once (not sent again as an orphan), the crawl ends done."""
    blog = _blog()
    slow = blog.posts[2].path
    env = dict(ENV, BLOGHARVEST_REQUEST_TIMEOUT="20", BLOGHARVEST_RECOVER_EVERY="1")
    redis, pool, client, st = _private(tmp_path, 2, env)
    try:
        pool.start()
        for p in pool.procs:
            assert pool.ready[p].wait(60), "a worker did not start"
        with FarmServer(blog, {slow: Fault("slow", {"seconds": 8})}) as site:
            cid = st.create_crawl(site.url, None, {"js": "never"})
            start_crawl(client, st, cid, site.url, None, {"js": "never"})
            _poll(lambda: _ended(st, cid), 120, "the crawl's end", lambda: json.dumps(diagnose(st, cid), default=str))
            assert st.state_of(cid) == "done"
            assert heal.events(st.r) == [], "a live worker was taken for dead"
            assert site.hits[slow] == 1, f"the slow page was fetched {site.hits[slow]} times"
            urls = [r["url"] for r in st.crawl_records(cid)]
            assert len(urls) == len(blog.posts) == len(set(urls))
    finally:
        pool.stop(timeout=10, asked=3)
        client.close()
        redis.stop()


@pytest.mark.slow
def test_a_page_that_kills_every_worker_reading_it_is_dropped_and_the_crawl_ends(tmp_path):
    """A poison page: every worker that reads it dies (SIGKILL before its page's end is
    written, tests/workers/killpoint BLOGHARVEST_KILL_ON), and a supervisor starts a new worker
    for each dead one, as a deployment would. The page is delivered MAX_ATTEMPTS + 1 times,
    waits as a suspect until the rest of the crawl is done, is read once more alone, dies
    once more and is dropped (workers/suspects.py): the crawl ends done, every other post once,
    the poison page reported as given up."""
    import threading

    from workers.pipeline import MAX_ATTEMPTS

    blog = _blog()
    poison = blog.posts[2].path
    redis, pool, client, st = _private(tmp_path, 0, ENV)
    stop, deaths = threading.Event(), []

    def supervise():  # a new worker for each one that died
        while not stop.wait(0.2):
            for p in list(pool.procs):
                if p.poll() is not None and p not in deaths:
                    deaths.append(p)
                    pool.start_one(f"w{len(pool.procs)}@%h")

    try:
        pool.start_one("w0@%h")
        assert pool.ready[pool.procs[0]].wait(60), "a worker did not start"
        keeper = threading.Thread(target=supervise, daemon=True)
        keeper.start()
        with FarmServer(blog) as site:
            pool.env["BLOGHARVEST_KILL_ON"] = f"workers.state.end_page@{site.origin + poison}"
            for p in pool.procs:  # the first worker, started before the site's port was known
                p.kill()
            cid = st.create_crawl(site.url, None, {"js": "never"})
            start_crawl(client, st, cid, site.url, None, {"js": "never"})
            _poll(lambda: _ended(st, cid), 240, "the crawl's end", lambda: json.dumps(diagnose(st, cid), default=str))
            assert st.state_of(cid) == "done"
            urls = sorted(r["url"] for r in st.crawl_records(cid))
            assert urls == sorted(site.origin + p.path for p in blog.posts if p.path != poison)
            gave_up = [e for e in st.errors(cid) if e["kind"] == "gave_up"]
            assert [e["url"] for e in gave_up] == [site.origin + poison], gave_up
            assert len(deaths) == 1 + MAX_ATTEMPTS + 1, f"{len(deaths) - 1} workers died for the poison page"
    finally:
        stop.set()
        pool.stop(timeout=10, asked=3)
        client.close()
        redis.stop()
