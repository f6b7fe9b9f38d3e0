"""Recovery from a SIGKILLed worker with workers alone: issue 20's measurement, repeatable.

    python bench/kill.py [--posts 233] [--at 0.33] [--workers 2] [--concurrency 4]

Two `blogharvest worker` processes on a private Redis (AOF), a farm WordPress blog of
--posts posts, the crawl sent with `blogharvest enqueue` (no beat, no follower: nobody
sweeps from outside). When a third of the posts are saved, worker 0 is SIGKILLed and a
replacement started under the same name. Prints the time from the kill to the workers'
reclaim (workers/heal.py) and to the crawl's end, posts found and duplicates.
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--posts", type=int, default=233)
    ap.add_argument("--at", type=float, default=0.33, help="share of posts saved when the worker is killed")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--delay", default="0.05", help="BLOGHARVEST_LOCAL_DELAY (s between requests to the blog)")
    ap.add_argument("--timeout", type=float, default=900)
    a = ap.parse_args()

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

    def worker(i: int) -> subprocess.Popen:
        log = open(tmp / f"worker-{i}.log", "ab")
        return subprocess.Popen(cli + ["worker", "--concurrency", str(a.concurrency), "--hostname", f"w{i}@%h",
                                       "--loglevel", "WARNING"], env=env, cwd=ROOT, stdout=log, stderr=log)

    procs = [worker(i) for i in range(a.workers)]
    st = State.from_url(redis.url)
    blog = WordPress(seed=20, n_posts=a.posts, feed_size=10)
    try:
        with FarmServer(blog) as site:
            out = subprocess.run(cli + ["enqueue", site.url], env=env, cwd=ROOT, capture_output=True, text=True,
                                 check=True)
            cid = out.stdout.split()[-1]
            while st.crawl_info(cid).get("posts", 0) < a.at * a.posts:
                time.sleep(0.2)  # a benchmark's poll
            at_kill = st.crawl_info(cid)
            os.kill(procs[0].pid, signal.SIGKILL)
            procs[0].wait()
            killed = time.time()
            procs.append(worker(0))
            deadline = time.monotonic() + a.timeout
            while (info := st.crawl_info(cid))["state"] not in ("done", "failed") and time.monotonic() < deadline:
                time.sleep(0.2)
            ended = time.time()
            counts = Counter(f["url"] for _, f in st.r.xrange(STREAM) if f.get("crawl") == cid)
            records = st.crawl_records(cid)
            events = heal.events(st.r)
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
    print(f"killed worker 0 at {at_kill['posts']}/{a.posts} posts, {at_kill['pages']} pages")
    for e in events:
        print(f"reclaimed {e['reclaimed']} messages/pages of {e['worker']} {e['at'] - killed:.1f} s after the kill")
    print(f"crawl {info['state']} {ended - killed:.1f} s after the kill; {len(set(urls))}/{a.posts} posts "
          f"({100 * len(set(urls)) / a.posts:.1f} %); duplicates in output {len(urls) - len(set(urls))}, "
          f"urls streamed twice {sum(1 for n in counts.values() if n > 1)}")
    return 0 if info["state"] == "done" else 1


if __name__ == "__main__":
    sys.exit(main())
