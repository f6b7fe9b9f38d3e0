"""What a post costs the cluster's Redis (issue 33): commands, Redis time, bytes kept.

    python bench/redis_cost.py [--posts 500] [--workers 2] [--json FILE]

A farm WordPress blog on loopback; a private redis-server (`workers.redis_server.RedisServer`)
and `--workers` worker processes (4 threads each) started here; `python -m workers.cli crawl
URL --out F` with REDIS_URL set to that server, as on a cluster (the stream of records kept,
as a cluster keeps it). From the server's `INFO commandstats` before and after the crawl:
- commands per post (every command the server ran: the state's, the broker's, the ones a
  Lua script runs, which commandstats counts as commands of their own);
- Redis time per post, three ways: the sum of commandstats `usec` over posts (the issue's
  first measure; a script's `usec` already holds its inner commands', which are counted again
  under their own names, so this is an upper bound); the sum of the SLOWLOG durations of the
  commands clients sent (every command logged; a script counted once, whole: what the server
  spent executing them); and the server's CPU time (`INFO cpu`, user + sys: everything it did,
  network reads and writes included);
- the posts/s one Redis can carry at that cost (1 s of Redis time / time per post);
- `--redis-cpu N` gives the server CPU N to itself (the workers, the crawl command and the farm
  on the others), as a cluster's Redis has its own machine: on a 2-core machine the workers
  otherwise take the server's core from it in mid-command, and a command's time grows by the
  time it waited (the default: both share every core, as the embedded default runs);
- MiB kept in Redis per 1,000 posts after the crawl (`used_memory` over the server's own
  before the workers started), and what stays once the ended crawl's working keys expire
  (`MEMORY USAGE` of the keys with no TTL), by kind of key.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def commandstats(r) -> dict[str, tuple[int, int]]:
    """command -> (calls, usec)."""
    return {k.split("_", 1)[1].upper(): (v["calls"], v["usec"]) for k, v in r.info("commandstats").items()}


def cpu(r) -> float:
    i = r.info("cpu")
    return float(i["used_cpu_sys"]) + float(i["used_cpu_user"])


def kind_of(key: str) -> str:
    kind = re.sub(r"\{[0-9a-f]+\}", "{B}", key)
    kind = re.sub(r":crawl:[^:]+", ":crawl:C", kind)
    kind = re.sub(r"[0-9a-f]{8}-[0-9a-f-]{27}", "ID", kind)
    return re.sub(r":fetched:[0-9a-f]+", ":fetched:U", kind)


def kept(r) -> tuple[dict[str, int], dict[str, int]]:
    """Bytes by kind of key: every key, and the keys with no TTL (what stays for good)."""
    every, lasting = Counter(), Counter()
    for key in r.scan_iter(count=1000):
        n = r.memory_usage(key, samples=0) or 0
        every[kind_of(key)] += n
        if r.ttl(key) == -1:
            lasting[kind_of(key)] += n
    return dict(every), dict(lasting)


def lua_scripts() -> dict[str, str]:
    """workers/lua.py's scripts by name (its upper-case strings)."""
    from workers import lua

    return {n: v for n in dir(lua) if n.isupper() and isinstance(v := getattr(lua, n), str)}


def by_script(log: list[dict], r) -> dict[str, tuple[int, int, int]]:
    """Script name (workers/lua.py) -> (calls, usec, median usec of a call), from the SLOWLOG
    of every command."""
    from redis.commands.core import Script

    names = {Script(r, body).sha: n for n, body in lua_scripts().items()}
    out: dict[str, list[int]] = {}
    for e in log:
        cmd = e["command"]
        cmd = (cmd.decode(errors="replace") if isinstance(cmd, bytes) else str(cmd)).split()
        if len(cmd) > 1 and cmd[0].upper() == "EVALSHA":
            n = names.get(cmd[1], cmd[1][:8])
            out.setdefault(n, []).append(e["duration"])
    return {n: (len(v), sum(v), sorted(v)[len(v) // 2]) for n, v in out.items()}


def sent(log: list[dict]) -> int:
    """usec the server spent on the commands clients sent: a script's inner commands, logged
    too under the client `?:0`, are inside its own duration."""
    return sum(e["duration"] for e in log if e.get("client_address") not in (b"?:0", "?:0"))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--posts", type=int, default=500)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--json", help="write the figures here too")
    ap.add_argument("--scripts", action="store_true", help="also time each Lua script apart")
    ap.add_argument("--replay", action="store_true",
                    help="record the crawl's commands (MONITOR) and time them again on a server alone "
                         "(bench/monitor_replay.py); the recording slows the crawl's own figures")
    ap.add_argument("--replay-server", default=None,
                    help="the redis-server binary to replay on (a cluster's version; default: the embedded one)")
    ap.add_argument("--redis-cpu", type=int, default=None,
                    help="give the server this CPU to itself (the rest run on the other CPUs)")
    a = ap.parse_args(argv)

    import redis

    from bench.monitor_replay import Recorder, replay
    from bench.peers import start_farm
    from workers.embedded import WorkerProcesses
    from workers.redis_server import RedisServer

    if a.redis_cpu is not None:
        others = os.sched_getaffinity(0) - {a.redis_cpu}
        if not others:
            ap.error("--redis-cpu needs a second CPU")
        os.sched_setaffinity(0, others)  # (the farm, the workers and the crawl inherit it)
    farm, sites = start_farm("wordpress", a.seed, a.posts, 1)
    with tempfile.TemporaryDirectory(prefix="bh-rc-") as d:
        d = Path(d)
        env = {"BLOGHARVEST_ALLOW_PRIVATE": "1", "BLOGHARVEST_LOCAL_DELAY": "0", "PYTHONPATH": str(ROOT)}
        try:
            with RedisServer(d / "redis", persist=False) as srv:
                if a.redis_cpu is not None:
                    os.sched_setaffinity(srv.proc.pid, {a.redis_cpu})
                r = redis.Redis.from_url(srv.url, decode_responses=True)
                base_mem = r.info("memory")["used_memory"]
                recorder = Recorder(srv.url, d / "monitor.txt") if a.replay else contextlib.nullcontext()
                recorder.__enter__()
                pool = WorkerProcesses(srv.url, n=a.workers, concurrency=4, env=env, log_dir=d).start()
                try:
                    r.config_set("slowlog-log-slower-than", 0)  # every command (slows Redis a little)
                    r.config_set("slowlog-max-len", 2_000_000)
                    r.slowlog_reset()
                    before, cpu0 = commandstats(r), cpu(r)
                    began = time.monotonic()
                    subprocess.run([sys.executable, "-m", "workers.cli", "crawl", sites[0]["url"], "--out",
                                    str(d / "out.jsonl"), "--quiet"], check=True, cwd=ROOT,
                                   env=dict(os.environ, REDIS_URL=srv.url, **env))
                    wall = time.monotonic() - began
                    after, cpu1 = commandstats(r), cpu(r)
                    log = r.slowlog_get(2_000_000)
                    r.slowlog_reset()  # (its entries are the server's memory too: not the crawl's)
                    r.config_set("slowlog-max-len", 128)
                    scripts = by_script(log, r) if a.scripts else {}
                finally:
                    pool.stop()
                    recorder.__exit__(None, None, None)
                mem = r.info("memory")["used_memory"] - base_mem
                every, lasting = kept(r)
        finally:
            farm.stdin.close()
            farm.wait()
        posts = sum(1 for line in (d / "out.jsonl").read_text().splitlines() if line.strip())
        replayed = replay(d / "monitor.txt", list(lua_scripts().values()),
                          server=a.replay_server) if a.replay else None
    delta = {n: (c - before.get(n, (0, 0))[0], u - before.get(n, (0, 0))[1]) for n, (c, u) in after.items()}
    delta = {n: v for n, v in delta.items() if v[0] > 0}
    calls = sum(c for c, _ in delta.values())
    usec = sum(u for _, u in delta.values())
    p = max(1, posts)
    out = {"posts": posts, "wall": wall, "commands_per_post": calls / p, "usec_per_post": usec / p,
           "cpu_usec_per_post": (cpu1 - cpu0) * 1e6 / p, "sent_usec_per_post": sent(log) / p,
           "redis_cpu": a.redis_cpu, "replayed": replayed,
           "replayed_usec_per_post": replayed["usec"] / p if replayed else None,
           "mib_per_1000_after": mem / 2**20 * 1000 / p,
           "mib_per_1000_lasting": sum(lasting.values()) / 2**20 * 1000 / p,
           "commands": {n: [c / p, u / p, u / max(1, c)] for n, (c, u) in delta.items()},
           "kinds": {k: [v / 2**20 * 1000 / p, lasting.get(k, 0) / 2**20 * 1000 / p] for k, v in every.items()}}
    print(f"farm WordPress blog of {a.posts} posts, {a.workers} workers, REDIS_URL (a private redis-server): "
          f"{posts} posts out in {wall:.1f} s")
    print(f"commands per post: {out['commands_per_post']:.1f}")
    alone = "a CPU of its own" if a.redis_cpu is not None else "CPUs shared with the workers"
    print(f"Redis time per post ({alone}): {out['sent_usec_per_post']:.0f} us executing the commands clients sent "
          f"(SLOWLOG; -> {1e6 / max(1e-9, out['sent_usec_per_post']):,.0f} posts/s per Redis); "
          f"{out['usec_per_post']:.0f} us commandstats usec sum (scripts' commands twice); "
          f"server CPU {out['cpu_usec_per_post']:.0f} us (-> {1e6 / max(1e-9, out['cpu_usec_per_post']):,.0f} posts/s)")
    if replayed:
        print(f"Redis time per post, the crawl's {replayed['commands']:,} commands replayed on a server alone "
              f"({replayed['version']}; commandstats, the slow log off): "
              f"{out['replayed_usec_per_post']:.0f} us (-> {1e6 / max(1e-9, out['replayed_usec_per_post']):,.0f} "
              f"posts/s per Redis; {replayed['errors']} replies were errors{': ' if replayed['errors'] else ''}"
              f"{'; '.join(replayed['first_errors'])})")
    print(f"kept in Redis after the crawl: {out['mib_per_1000_after']:.2f} MiB per 1,000 posts (used_memory); "
          f"once the working keys expire: {out['mib_per_1000_lasting']:.2f} MiB (MEMORY USAGE, keys with no TTL)")
    print(f"\ncommands (per post: calls, usec; usec per call), top {a.top} by time:")
    for n, (c, u, each) in sorted(out["commands"].items(), key=lambda kv: -kv[1][1])[:a.top]:
        print(f"  {n:18s} {c:7.2f} {u:8.1f} us  {each:7.1f} us/call")
    for n, (c, u, median) in sorted(scripts.items(), key=lambda kv: -kv[1][1]):
        print(f"  script {n:16s} {c / p:7.2f} {u / p:8.1f} us  {u / max(1, c):7.1f} us/call (median {median})")
    print("\nkeys (MiB per 1,000 posts: all, with no TTL):")
    for k, (v, last) in sorted(out["kinds"].items(), key=lambda kv: -kv[1][0])[:a.top]:
        print(f"  {v:7.3f} {last:7.3f}  {k}")
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
