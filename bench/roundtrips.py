"""Redis round trips per page of a real crawl, by call site and by command (issue 22).

    python bench/roundtrips.py [--posts 100] [--top 40]

A farm WordPress blog on loopback; a redis-server (`workers.redis_server.RedisServer`) and two
worker processes (4 threads each, as the embedded default) started here; `python -m
workers.cli crawl URL --out F` with REDIS_URL set to that server, as on a cluster. Each
worker process imports a hook (a sitecustomize put first on its PYTHONPATH) that counts
every write of a redis-py connection (one write, one round trip: a pipeline is one) and
parses the commands written, and files it under its call site: the innermost frame of
`workers/` or `tasks/` (state.py's method) and the first frame outside `workers/state.py`,
`workers/heal.py`'s helpers and redis-py (who called it), and the task or thread it ran in
(the outermost frame of `workers/`). Writes with no frame of ours on the stack are Celery's
and kombu's own (the broker: out of the count per page). Also printed: `INFO commandstats`
of the server before and after the crawl (commands run inside Lua scripts included).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

HOOK = r'''
import json, os, sys, threading, time
from collections import Counter

_DIR = os.environ.get("BH_RT_DIR")
if _DIR:
    import redis.connection as _rc

    _ours = (os.sep + "workers" + os.sep, os.sep + "tasks" + os.sep)
    _plumbing = (os.sep + "workers" + os.sep + "state.py",)
    _counts = Counter()
    _commands = Counter()
    _lock = threading.Lock()

    def _names(command):
        data = command.encode() if isinstance(command, str) else b"".join(
            c.encode() if isinstance(c, str) else bytes(c) for c in command)
        out, i = [], 0
        while i < len(data) and data[i:i + 1] == b"*":
            j = data.index(b"\r\n", i)
            n = int(data[i + 1:j]); i = j + 2
            args = []
            for _ in range(n):
                j = data.index(b"\r\n", i)
                ln = int(data[i + 1:j]); i = j + 2
                args.append(data[i:i + ln]); i += ln + 2
            name = args[0].decode(errors="replace").upper() if args else "?"
            if name in ("MULTI", "EXEC"):
                continue
            out.append(name)
        return out

    def _site():
        f = sys._getframe(2)
        inner = caller = task = None
        broker = False
        while f is not None:
            fn = f.f_code.co_filename
            if "kombu" in fn or "celery" in fn:
                broker = broker or inner is None
            if any(o in fn for o in _ours) and "/bench/" not in fn:
                where = f"{os.path.basename(fn)}:{f.f_code.co_name}"
                if inner is None:
                    inner = where
                if caller is None and not fn.endswith(_plumbing):
                    caller = where
                task = where
            f = f.f_back
        if inner is None:
            return None
        kind = "broker" if broker else "state"
        return kind, task, caller or inner, inner

    _send = _rc.AbstractConnection.send_packed_command

    def send_packed_command(self, command, check_health=True):
        site = _site()
        if site is not None:
            names = _names(command)
            what = "+".join(dict.fromkeys(names)) if len(names) < 12 else f"{names[0]}..x{len(names)}"
            key = (*site, what)
            with _lock:
                _counts[key] += 1
                for n in names:
                    _commands[(site[0], n)] += 1
        return _send(self, command, check_health)

    _rc.AbstractConnection.send_packed_command = send_packed_command

    def _dump():
        path = os.path.join(_DIR, f"{os.getpid()}.json")
        with _lock:
            data = {"sites": [[*k, v] for k, v in _counts.items()], "commands": [[*k, v] for k, v in _commands.items()]}
        with open(path + ".tmp", "w") as fh:
            json.dump(data, fh)
        os.replace(path + ".tmp", path)

    def _loop():
        while True:
            time.sleep(0.5)
            try:
                _dump()
            except Exception:
                pass

    threading.Thread(target=_loop, daemon=True, name="bh-rt-dump").start()
'''


def commandstats(r) -> Counter:
    return Counter({k.split("_", 1)[1].upper(): v["calls"] for k, v in r.info("commandstats").items()})


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--posts", type=int, default=100)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--json", help="write the counts here too")
    a = ap.parse_args(argv)

    import redis

    from bench.peers import start_farm
    from workers.embedded import WorkerProcesses
    from workers.redis_server import RedisServer

    farm, sites = start_farm("wordpress", a.seed, a.posts, 1)
    with tempfile.TemporaryDirectory(prefix="bh-rt-") as d:
        d = Path(d)
        (d / "hook").mkdir()
        (d / "hook" / "sitecustomize.py").write_text(HOOK)
        (d / "counts").mkdir()
        env = {"BLOGHARVEST_ALLOW_PRIVATE": "1", "BLOGHARVEST_LOCAL_DELAY": "0",
               "PYTHONPATH": os.pathsep.join([str(d / "hook"), str(ROOT)]), "BH_RT_DIR": str(d / "counts")}
        try:
            with RedisServer(d / "redis", persist=False) as srv:
                r = redis.Redis.from_url(srv.url, decode_responses=True)
                pool = WorkerProcesses(srv.url, n=2, concurrency=4, env=env, log_dir=d).start()
                try:
                    before = commandstats(r)
                    began = time.monotonic()
                    subprocess.run([sys.executable, "-m", "workers.cli", "crawl", sites[0]["url"], "--out",
                                    str(d / "out.jsonl"), "--quiet"], check=True, cwd=ROOT,  # default --js auto
                                   env=dict(os.environ, REDIS_URL=srv.url, BLOGHARVEST_ALLOW_PRIVATE="1",
                                            PYTHONPATH=str(ROOT)))
                    wall = time.monotonic() - began
                    after = commandstats(r)
                    time.sleep(1.2)  # the hooks' last dumps (every 0.5 s)
                    from workers.state import CRAWLS, Keys

                    info = r.hgetall(Keys(r.zrange(CRAWLS, 0, 0)[0]).crawl)
                finally:
                    pool.stop()
        finally:
            farm.stdin.close()
            farm.wait()
        sites_c, cmds = Counter(), Counter()
        for f in (d / "counts").glob("*.json"):
            data = json.loads(f.read_text())
            for *k, v in data["sites"]:
                sites_c[tuple(k)] += v
            for *k, v in data["commands"]:
                cmds[tuple(k)] += v
    pages = int(info.get("pages") or 0)
    report(a, sites_c, cmds, before, after, pages, info, wall)
    if a.json:
        Path(a.json).write_text(json.dumps({"pages": pages, "sites": [[*k, v] for k, v in sites_c.items()],
                                            "commands": [[*k, v] for k, v in cmds.items()]}))
    return 0


def report(a, sites_c: Counter, cmds: Counter, before: Counter, after: Counter, pages: int, info: dict,
           wall: float) -> None:
    state = {k: v for k, v in sites_c.items() if k[0] == "state"}
    broker = sum(v for k, v in sites_c.items() if k[0] == "broker")
    total = sum(state.values())
    by_task = Counter()
    for (_, task, *_rest), v in state.items():
        by_task[task] += v
    print(f"farm blog of {a.posts} posts: {pages} pages processed, {info.get('handed')} handed out, wall {wall:.1f} s")
    print(f"state round trips (ours): {total}, {total / max(1, pages):.1f} per page; "
          f"broker round trips (Celery/kombu, out of scope): {broker}, {broker / max(1, pages):.1f} per page")
    print("\nby task or thread (outermost frame of ours):")
    for t, v in by_task.most_common():
        print(f"  {v:7d} {v / max(1, pages):6.2f}/page  {t}")
    per_site = Counter()
    for (_, task, caller, inner, names), v in state.items():
        per_site[(caller, inner, names)] += v
    print(f"\nby call site (caller <- state method: commands), top {a.top}:")
    for (caller, inner, names), v in per_site.most_common(a.top):
        print(f"  {v:7d} {v / max(1, pages):6.2f}/page  {caller} <- {inner}: {names}")
    print("\ncommands sent by our code (a script's inner commands not included):")
    for (kind, n), v in sorted(cmds.items(), key=lambda kv: -kv[1]):
        if kind == "state":
            print(f"  {v:7d} {v / max(1, pages):6.2f}/page  {n}")
    delta = after - before
    print(f"\nserver INFO commandstats during the crawl (everything: Lua's inner commands, the broker): "
          f"{sum(delta.values())} commands, {sum(delta.values()) / max(1, pages):.1f} per page")
    for n, v in delta.most_common(20):
        print(f"  {v:7d} {v / max(1, pages):6.2f}/page  {n}")


if __name__ == "__main__":
    sys.exit(main())
