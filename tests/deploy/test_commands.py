"""The commands the Dockerfile, compose.yaml and k8s/ run are real command lines: parsed by
workers/cli.py's own parser (and celery's and Flower's for what they execute), and the ones
a deployment depends on run for real: the health probe, a worker, beat's lock, Redis's flags."""
from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from tests.deploy import checks
from workers.cli import parser
from workers.redis_server import RedisServer, free_port, redis_binary

BLOGHARVEST = [shutil.which("blogharvest")] if shutil.which("blogharvest") else [sys.executable, "-m", "workers.cli"]


def find(docs, kind, name):
    return next(d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name)


def run_env(vm, docs, redis_url: str, tmp: Path) -> dict:
    """The worker containers' environment (ConfigMap), with this machine's Redis and directories."""
    cm = find(docs, "ConfigMap", "blogharvest-config")["data"]
    env = {**os.environ, **cm, "REDIS_URL": redis_url, "BLOGHARVEST_WARC_DIR": str(tmp / "warc"),
           "BLOGHARVEST_MEDIA_DIR": str(tmp / "media"), "XDG_CACHE_HOME": str(tmp / "cache")}
    env.pop("SELENIUM_REMOTE_URL", None)
    return env


def run(argv: list[str], env: dict, timeout: float = 60) -> subprocess.CompletedProcess:
    assert argv[0] == "blogharvest", argv
    return subprocess.run(BLOGHARVEST + argv[1:], env=env, capture_output=True, text=True, timeout=timeout)


def wait_for(condition, what: str, timeout: float = 90.0, proc: subprocess.Popen | None = None, log: Path = None):
    deadline = time.monotonic() + timeout
    while not condition():
        if proc is not None and proc.poll() is not None:
            pytest.fail(f"process exited ({proc.returncode}) before {what}:\n{log.read_text() if log else ''}")
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}:\n{log.read_text()[-3000:] if log else ''}")
        time.sleep(0.2)  # polling interval of a deadline loop, not a synchronisation


@pytest.fixture
def private_redis(tmp_path):
    """A Redis of this test only: no other test's workers answer its pings."""
    server = RedisServer(tmp_path / "redis", persist=False).start()
    yield server
    server.stop()


# ------------------------------------------------------------------ parsing

def test_every_command_is_a_real_command_line(vm, docs):
    found = vm.blogharvest_commands()
    assert {a[0] for _, a in found} == {"worker", "beat", "health"}
    for where, argv in found:
        parser().parse_args(argv)  # SystemExit here is a failure with argparse's message
    flower = vm.celery_commands(docs)
    assert {w for w, _, _ in flower} == {"compose flower", "k8s Deployment/flower[flower]"}
    assert checks.check_commands(docs) == []


@pytest.mark.parametrize("argv,expected", [
    (["health", "--workers"], "unrecognized arguments: --workers"),
    (["worker", "--queus", "render"], "unrecognized arguments: --queus"),
    (["worker", "--", "--max-tasks-per-chld", "10"], "No such option"),
    (["beat", "--", "--schedule", "/tmp/x"], None),
])
def test_a_wrong_command_line_fails(vm, argv, expected):
    errors = checks.check_blogharvest_argv("here", argv)
    assert (expected in errors[0]) if expected else errors == []


@pytest.mark.parametrize("argv,env,expected", [
    (["celery", "--broker=redis://r:6379/0", "flower", "--port=5555"], {"FLOWER_BASIC_AUTH": "a:b"}, None),
    (["celery", "--broker=redis://r:6379/0", "flower", "--prot=5555"], {}, "unknown options ['--prot=5555']"),
    (["celery", "--broker=redis://r:6379/0", "flowr"], {}, "no celery subcommand 'flowr'"),
    # what Kubernetes would inject from a Service named flower without enableServiceLinks: false
    (["celery", "flower"], {"FLOWER_PORT": "tcp://10.0.0.1:5555"}, "FLOWER_PORT='tcp://10.0.0.1:5555' is not a valid int"),
])
def test_flower_command_lines(vm, argv, env, expected):
    errors = checks.check_celery_argv("here", argv, env)
    assert (expected in errors[0]) if expected else errors == []


# ------------------------------------------------------------------ running

def test_health_probe_exits_0_against_a_real_redis(vm, docs, redis_server, tmp_path):
    probe = find(docs, "Deployment", "beat")["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]
    argv = probe["exec"]["command"]
    ok = run(argv, run_env(vm, docs, redis_server.url, tmp_path))
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.strip() == "ok"
    down = run(argv, run_env(vm, docs, f"redis://127.0.0.1:{free_port()}/0", tmp_path))
    assert down.returncode == 1 and "unhealthy: redis" in down.stderr


def test_worker_deployment_command_runs_answers_its_probe_and_stops_on_sigterm(vm, docs, private_redis, tmp_path):
    dep = find(docs, "Deployment", "worker")
    c = dep["spec"]["template"]["spec"]["containers"][0]
    env = run_env(vm, docs, private_redis.url, tmp_path)
    probe = c["livenessProbe"]["exec"]["command"]
    assert probe[:3] == ["blogharvest", "health", "--worker"]
    # no worker yet: the probe fails
    assert run(probe + ["--timeout", "1"], env).returncode == 1
    log = tmp_path / "worker.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(BLOGHARVEST + c["args"], env=env, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        # the probe takes its --timeout (5 s) each time: run it once the worker says it is ready
        wait_for(lambda: " ready." in log.read_text(), "the worker to be ready", proc=proc, log=log)
        ok = run(probe, env)
        assert ok.returncode == 0, ok.stderr
        proc.send_signal(signal.SIGTERM)
        grace = dep["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]
        assert proc.wait(timeout=min(grace, 60)) == 0, log.read_text()[-3000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_second_beat_waits_for_the_lock_and_takes_over(vm, docs, private_redis, tmp_path):
    """beat.yaml's claim: a restart or a second replica is safe (celery-redbeat's lock)."""
    c = find(docs, "Deployment", "beat")["spec"]["template"]["spec"]["containers"][0]
    env = run_env(vm, docs, private_redis.url, tmp_path)
    r = redis.Redis.from_url(private_redis.url, decode_responses=True)
    procs, logs = [], []

    def start(i):
        logs.append(tmp_path / f"beat{i}.log")
        with open(logs[-1], "wb") as out:
            procs.append(subprocess.Popen(BLOGHARVEST + c["args"], env=env, stdout=out, stderr=subprocess.STDOUT,
                                          stdin=subprocess.DEVNULL, start_new_session=True, cwd=tmp_path))

    def lock_token():
        keys = [k for k in r.scan_iter("bh:redbeat*lock*")]
        return r.get(keys[0]) if keys else None

    try:
        start(0)
        wait_for(lambda: "Acquired lock" in logs[0].read_text(), "beat 1 to take the lock", proc=procs[0], log=logs[0])
        first = lock_token()
        assert first
        start(1)
        wait_for(lambda: "beat: Starting..." in logs[1].read_text(), "beat 2 to start", proc=procs[1], log=logs[1])
        assert procs[1].poll() is None and "Acquired lock" not in logs[1].read_text()
        assert lock_token() == first
        procs[0].send_signal(signal.SIGTERM)
        assert procs[0].wait(timeout=60) == 0
        assert "Releasing lock" in logs[0].read_text()
        wait_for(lambda: "Acquired lock" in logs[1].read_text(), "beat 2 to take over", proc=procs[1], log=logs[1])
        assert lock_token() not in (None, first)
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
                p.wait(timeout=60)
        r.close()


def _redis_argv(argv: list[str], env: dict, data: Path, port: int) -> list[str]:
    """A manifest's redis-server command line, run here: this machine's binary, a temporary
    data directory and a free loopback port instead of the container's."""
    if argv[:2] == ["sh", "-c"]:
        script = argv[2]
        for k, v in env.items():
            script = script.replace(f'"${k}"', shlex.quote(v)).replace(f"${k}", shlex.quote(v))
        argv = shlex.split(script)
        assert argv[0] == "exec"
        argv = argv[1:]
    assert argv[0] == "redis-server", argv
    argv = [redis_binary()] + argv[1:]
    if "--dir" in argv:
        argv[argv.index("--dir") + 1] = str(data)
    return argv + ["--port", str(port), "--bind", "127.0.0.1", "--daemonize", "no"]


@pytest.mark.parametrize("where", ["compose", "k8s"])
def test_redis_command_line_keeps_an_append_only_file(vm, docs, tmp_path, where):
    if where == "compose":
        spec = vm.interpolate_defaults(vm.load_compose())["services"]["redis"]
        argv, env, password = spec["command"], {}, None
    else:
        c = find(docs, "StatefulSet", "redis")["spec"]["template"]["spec"]["containers"][0]
        password = find(docs, "Secret", "blogharvest-redis")["stringData"]["REDIS_PASSWORD"]
        argv, env = c["command"] + c["args"], {"REDIS_PASSWORD": password}
    data = tmp_path / "data"
    data.mkdir()

    def serve():
        port = free_port()
        proc = subprocess.Popen(_redis_argv(argv, env, data, port), cwd=data, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        client = redis.Redis(port=port, password=password, decode_responses=True, socket_connect_timeout=1,
                             retry=Retry(NoBackoff(), 0))  # SHUTDOWN closes the connection: no retries

        def up():
            try:
                return client.ping()
            except redis.ConnectionError:
                return False
        wait_for(up, "redis-server", timeout=30, proc=proc)
        return proc, client

    proc, client = serve()
    try:
        assert client.config_get("appendonly") == {"appendonly": "yes"}
        assert client.config_get("maxmemory-policy") == {"maxmemory-policy": "noeviction"}
        if password:
            with pytest.raises(redis.AuthenticationError):
                redis.Redis(port=client.connection_pool.connection_kwargs["port"], retry=Retry(NoBackoff(), 0)).ping()
        client.set("bh:probe", "kept")
        client.shutdown(nosave=True)  # no snapshot: only the append-only file can bring the key back
    except redis.ConnectionError:
        pass
    finally:
        proc.wait(timeout=30)
    proc, client = serve()
    try:
        assert client.get("bh:probe") == "kept"
    finally:
        proc.terminate()
        proc.wait(timeout=30)
