"""Recovery from a SIGKILLed worker with workers alone: issue 20's measurement, repeatable.

    python bench/kill.py [--posts 233] [--at 0.33|random] [--runs 1] [--workers 2] [--concurrency 4]
                         [--blog ../shared/eval/blogs/yasoob]

Two `blogharvest worker` processes on a private Redis (AOF), a farm WordPress blog of
--posts posts (or a real blog of the eval set, served by its harness), the crawl sent with
`blogharvest enqueue` (no beat, no follower: nobody sweeps from outside). When a share
(--at, or a random one in 0.05-0.95) of the posts are saved, worker 0's process group is
SIGKILLed and a replacement started under the same name. Prints per run the time from the
kill to the workers' reclaim (workers/heal.py) and to the crawl's end, posts found and
duplicates, and the longest span with no page read (where a slow run spent its time); a
crawl still running at --timeout is dumped (what is in flight, held, locked, unacked) to
say why. The last line sums the runs up.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def diagnose(st, cid: str) -> dict:
    """What keeps a crawl running: its pages in flight (age, done?, held by whom, queued or
    unacked as a message), the workers' holds and heartbeats, locks, the broker's queues."""
    from workers import heal
    from workers.state import Keys

    r, k = st.r, Keys(cid)
    now = heal.redis_now(r)
    beats = dict(r.zrange(heal.HEARTBEATS, 0, -1, withscores=True))
    holds = {}
    for key in r.scan_iter("bh:worker:*:holds"):
        wid = key[len("bh:worker:{"):-len("}:holds")]
        holds[wid] = {"alive": round(now - beats[wid], 1) if wid in beats else None, "holds": r.hgetall(key)}
    messages = []
    for q in ("celery", "render"):
        for raw in r.lrange(q, 0, -1):
            messages.append(("queued:" + q, raw))
    for tag, raw in r.hgetall("unacked").items():
        messages.append(("unacked:" + tag, raw))
    carried = Counter()
    for where, raw in messages:
        try:
            m = json.loads(raw)
            m = m[0] if isinstance(m, list) else m
            headers = m.get("headers") or {}
            carried[(headers.get("task"), headers.get("argsrepr"), where.split(":")[0])] += 1
        except Exception:
            carried[("?", raw[:80], where)] += 1
    inflight = {u: {"age": round(now - float(t), 1), "done": bool(r.sismember(k.done, u))}
                for u, t in r.hgetall(k.inflight).items()}
    return {"crawl": r.hgetall(k.crawl), "frontier": r.zcard(k.frontier), "inflight": inflight,
            "holds": holds, "messages": [f"{n}x {t} {a} {w}" for (t, a, w), n in carried.items()],
            "locks": {key: r.pttl(key) for key in r.scan_iter("bh:lock:*")},
            "delayed": r.zrange("bh:delayed", 0, -1, withscores=True), "events": heal.events(r)}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RealBlog:
    """A blog of the eval set served by its harness on loopback; its posts by path."""

    def __init__(self, path: str):
        self.dir = Path(path)
        self.posts = [re.sub(r"index\.html$", "", p.strip()) for p in (self.dir / "posts.txt").read_text().split()
                      if p.strip()]

    def __enter__(self):
        port = free_port()
        self.proc = subprocess.Popen([sys.executable, str(ROOT.parent / "shared/eval/harness.py"), "serve",
                                      str(self.dir), "--port", str(port)], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        self.url = f"http://127.0.0.1:{port}/"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return self
            except OSError:
                time.sleep(0.2)  # waiting for a server to listen
        raise RuntimeError("the harness did not start")

    def __exit__(self, *exc):
        self.proc.terminate()
        self.proc.wait(timeout=10)


class Still:
    """The longest span in which the crawl read no page: where a slow run spent its time
    (seconds, from when, and the posts saved by then), taken from the polls."""

    def __init__(self):
        self.pages, self.since, self.longest = -1, 0.0, [0.0, 0.0, 0]

    def saw(self, t: float, info: dict) -> None:
        pages = info.get("pages", 0) if info.get("posts") or info.get("pages") else self.pages
        if pages != self.pages:
            self.pages, self.since = pages, t
        elif t - self.since > self.longest[0]:
            self.longest = [round(t - self.since, 1), round(self.since, 1), info.get("posts", 0)]


def one_run(a, at: float | None, run: int, chaos: float = 0.0) -> dict:
    """One crawl: worker 0 killed once `at` (a share of the posts) are saved; `at` None: not
    disturbed; `chaos` s: a worker (each in turn) killed every `chaos` s and replaced, and
    Redis restarted (SIGTERM, AOF) once half the posts are saved."""
    from tests.farm.server import FarmServer
    from tests.farm.wordpress import WordPress
    from workers import heal
    from workers.redis_server import RedisServer
    from workers.state import STREAM, State

    tmp = Path(tempfile.mkdtemp(prefix="bh-kill-"))
    redis = RedisServer(tmp / "redis", persist=True).start()
    env = dict(os.environ, REDIS_URL=redis.url, BLOGHARVEST_ALLOW_PRIVATE="1", BLOGHARVEST_LOCAL_DELAY=a.delay,
               PYTHONPATH=str(ROOT))
    cli = [sys.executable, "-m", "workers.cli"]

    names = {}  # pid -> worker number (a replacement takes its dead predecessor's name)

    def worker(i: int) -> subprocess.Popen:
        log = open(tmp / f"worker-{i}.log", "ab")
        p = subprocess.Popen(cli + ["worker", "--concurrency", str(a.concurrency), "--hostname", f"w{i}@%h",
                                    "--loglevel", "WARNING"], env=env, cwd=ROOT, stdout=log, stderr=log,
                             start_new_session=True)
        names[p.pid] = i
        return p

    procs = [worker(i) for i in range(a.workers)]
    st = State.from_url(redis.url)
    if a.blog:
        site_cm = RealBlog(a.blog)
        want = None
    else:
        blog = WordPress(seed=20, n_posts=a.posts, feed_size=10)
        site_cm = FarmServer(blog)
        want = [p.path for p in blog.posts]
    diag = None
    try:
        with site_cm as site:
            if a.blog:
                want = site_cm.posts
            n_posts = len(want)
            out = subprocess.run(cli + ["enqueue", site.url], env=env, cwd=ROOT, capture_output=True, text=True,
                                 check=True)
            cid = out.stdout.split()[-1]
            enqueued = time.time()
            kills, restarted = 0, None
            if at is not None:
                while (i := st.crawl_info(cid)).get("posts", 0) < at * n_posts and i.get("state") == "running" \
                        or i.get("state") == "queued":
                    time.sleep(0.05)  # a benchmark's poll
            at_kill = st.crawl_info(cid)
            killed = time.time()
            if at is not None:
                os.killpg(procs[0].pid, signal.SIGKILL)
                procs[0].wait()
                killed = time.time()
                procs.append(worker(0))
                kills = 1
            deadline = time.monotonic() + a.timeout
            next_kill = time.monotonic() + chaos
            still = Still()
            while True:
                try:
                    info = st.crawl_info(cid)
                except Exception:  # Redis restarting
                    info = {"state": "running", "posts": 0}
                still.saw(time.time() - enqueued, info)
                if info["state"] in ("done", "failed") or time.monotonic() > deadline:
                    break
                if chaos and time.monotonic() >= next_kill:  # the next worker in turn, replaced at once
                    victim = next(p for p in procs if p.poll() is None)  # the oldest alive
                    os.killpg(victim.pid, signal.SIGKILL)
                    victim.wait()
                    procs.append(worker(names[victim.pid]))
                    kills += 1
                    next_kill += chaos
                if chaos and restarted is None and info.get("posts", 0) >= n_posts / 2:
                    port = redis.port
                    redis.stop()
                    redis = RedisServer(tmp / "redis", port=port, persist=True).start()
                    restarted = round(time.time() - enqueued, 1)
                time.sleep(0.2)
            ended = time.time()
            if info["state"] != "done":
                diag = diagnose(st, cid)
            counts = Counter(f["url"] for _, f in st.r.xrange(STREAM) if f.get("crawl") == cid)
            records = st.crawl_records(cid)
            events = heal.events(st.r)
            origin = site.url.rstrip("/")
    finally:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
        redis.stop()
    urls = [r["url"] for r in records]
    got = {u[len(origin):].lstrip("/") for u in urls}
    found = len(got & {p.lstrip("/") for p in want})
    res = {"run": run, "at": None if at is None else round(at, 2), "kills": kills, "redis_restarted_at": restarted,
           "crawl_s": round(ended - enqueued, 1), "killed_after_s": round(killed - enqueued, 1),
           "killed_at_posts": at_kill["posts"], "killed_at_pages": at_kill["pages"],
           "reclaimed_after": [round(e["at"] - killed, 1) for e in events if e["at"] >= killed - 1],
           "state": info["state"], "ended_after": round(ended - killed, 1), "found": found, "posts": n_posts,
           "duplicates": len(urls) - len(set(urls)), "streamed_twice": sum(1 for n in counts.values() if n > 1),
           "longest_still": still.longest, "dir": str(tmp)}
    print(json.dumps(res), flush=True)
    if diag is not None:
        print(json.dumps(diag, indent=1, default=str), flush=True)
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--posts", type=int, default=233)
    ap.add_argument("--blog", help="a blog of the eval set (a directory with site/ and posts.txt) instead of the farm")
    ap.add_argument("--at", default="0.33", help="share of posts saved when the worker is killed, or 'random'")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=None, help="of the random kill points")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--delay", default="0.05", help="BLOGHARVEST_LOCAL_DELAY (s between requests to the blog)")
    ap.add_argument("--timeout", type=float, default=900, help="seconds after the kill before a run is given up")
    ap.add_argument("--chaos", type=float, default=0.0,
                    help="instead: a worker killed every CHAOS s (each in turn, replaced), Redis restarted once at "
                         "half the posts")
    ap.add_argument("--undisturbed", action="store_true", help="instead: nothing killed (the crawl's own time)")
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    results = []
    for run in range(a.runs):
        at = rnd.uniform(0.05, 0.95) if a.at == "random" else float(a.at)
        if a.chaos or a.undisturbed:
            at = None
        results.append(one_run(a, at, run, a.chaos))
    ok = [r for r in results if r["state"] == "done"]
    ends = sorted(r["ended_after"] for r in results)
    crawls = sorted(r["crawl_s"] for r in results)
    print(f"crawl (enqueue to end): min {crawls[0]:.1f} s, median {crawls[len(crawls) // 2]:.1f} s, "
          f"max {crawls[-1]:.1f} s")
    print(f"{len(ok)}/{len(results)} runs done; after the kill: max {max(ends):.1f} s, "
          f"median {ends[len(ends) // 2]:.1f} s; "
          f"found min {min(r['found'] / r['posts'] for r in results):.1%}; duplicates "
          f"{sum(r['duplicates'] + r['streamed_twice'] for r in results)}")
    return 0 if len(ok) == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
