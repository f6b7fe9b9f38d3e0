"""Crawl throughput and traversal order, measured on farm blogs over loopback.

    python bench/crawl.py [--posts 500] [--forum-budget 600]

1. Posts per second on a farm WordPress blog of --posts posts with 1 and then 2 worker
   processes (4 threads each; politeness off on loopback), requests per post found, and
   the workers' resident memory (peak RSS of their process trees, psutil). The clock starts
   once every worker answers a ping (start-up is not crawling).
2. The blog inside a large forum: posts found against pages fetched, kNN order (the
   crawler's) beside breadth-first order (option order=bfs), printed as a curve.

Everything runs here: a private redis-server, real Celery worker processes, the farm.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ["BLOGHARVEST_ALLOW_PRIVATE"] = "1"
os.environ.setdefault("BLOGHARVEST_LOCAL_DELAY", "0")


def _rss_tree(pids) -> int:
    import psutil

    total = 0
    for pid in pids:
        try:
            p = psutil.Process(pid)
            total += sum(q.memory_info().rss for q in [p] + p.children(recursive=True))
        except psutil.Error:
            pass
    return total


def _run(state, url: str, options: dict, timeout: float = 1800) -> dict:
    from workers.follow import enqueue

    cid = enqueue(url, None, options)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        info = state.crawl_info(cid)
        if info["state"] in ("done", "failed"):
            return info
        time.sleep(0.2)  # a benchmark's poll, not a test's synchronisation
    raise SystemExit(f"crawl {cid} did not finish in {timeout}s")


def _ready(pool, timeout: float = 120) -> None:
    """Wait until every worker answers a ping: the figures time crawling, not start-up."""
    from workers.app import app

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len(app.control.ping(timeout=0.5) or []) >= len(pool.procs):
            return
    raise SystemExit("the workers did not start")


def _serve(n_posts: int):
    """The farm blog in a process of its own (its rendering must not share our GIL)."""
    import socket
    import subprocess

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "tests.farm", "serve", "wordpress", "--seed", "7",
                             "--posts", str(n_posts), "--port", str(port)], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True)
    for line in proc.stdout:
        if line.startswith("serving"):
            return proc, line.split()[1]
    raise SystemExit("the farm server did not start")


def throughput(redis_url: str, n_posts: int, n_workers: int) -> dict:
    from workers.embedded import WorkerProcesses
    from workers.runtime import runtime

    state = runtime().state
    server, url = _serve(n_posts)
    try:
        with tempfile.TemporaryDirectory() as logs:
            pool = WorkerProcesses(redis_url, n=n_workers, concurrency=4, log_dir=Path(logs)).start()
            _ready(pool)
            peak = 0
            stop = threading.Event()

            def sample():
                nonlocal peak
                while not stop.is_set():
                    peak = max(peak, _rss_tree([p.pid for p in pool.procs]))
                    stop.wait(0.5)

            t = threading.Thread(target=sample, daemon=True)
            t.start()
            start = time.perf_counter()
            info = _run(state, url, {})
            seconds = time.perf_counter() - start
            stop.set()
            t.join()
            pool.stop()
    finally:
        server.terminate()
        server.wait()
    return {"workers": n_workers, "posts": info["posts"], "seconds": seconds, "pages": info["pages"],
            "posts_per_s": info["posts"] / seconds, "peak_rss_mb": peak / 2**20}


def requests_per_post(redis_url: str, n_posts: int) -> float:
    """HTTP requests the crawl sends per post found (pages, feeds, comment feeds and pages)."""
    from tests.farm import make_blog
    from tests.farm.server import FarmServer
    from workers.embedded import WorkerProcesses
    from workers.runtime import runtime

    state = runtime().state
    blog = make_blog("wordpress", seed=7, n_posts=n_posts, per_page=10)
    with tempfile.TemporaryDirectory() as logs, FarmServer(blog) as site:
        pool = WorkerProcesses(redis_url, n=2, concurrency=4, log_dir=Path(logs)).start()
        info = _run(state, site.url, {})
        pool.stop()
        return sum(site.hits.values()) / max(1, info["posts"])


def order_curve(redis_url: str, budget: int) -> dict:
    from tests.farm import make_blog
    from tests.farm.server import FarmServer
    from workers.embedded import WorkerProcesses
    from workers.runtime import runtime

    state = runtime().state
    curves = {}
    with tempfile.TemporaryDirectory() as logs:
        pool = WorkerProcesses(redis_url, n=2, concurrency=4, log_dir=Path(logs)).start()
        for order in ("knn", "bfs"):
            blog = make_blog("forum", seed=5, n_posts=60)
            with FarmServer(blog) as site:
                opts = {"max_pages": budget, "trace": True}
                if order == "bfs":
                    opts["order"] = "bfs"
                info = _run(state, site.url, opts)
                trace = state.traced(info["crawl_id"])
                found, curve = 0, []
                for i, (_, post) in enumerate(trace, 1):
                    found += bool(post)
                    curve.append(found)
                curves[order] = (curve, len(blog.posts))
        pool.stop()
    return curves


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--posts", type=int, default=500)
    ap.add_argument("--forum-budget", type=int, default=600)
    a = ap.parse_args(argv)

    from workers.redis_server import RedisServer

    with tempfile.TemporaryDirectory() as d, RedisServer(Path(d), persist=False) as server:
        os.environ["REDIS_URL"] = server.url
        import workers.runtime

        workers.runtime._runtime = None
        rows = []
        client = __import__("redis").Redis.from_url(server.url)
        for n in (1, 2):
            client.flushall()
            rows.append(throughput(server.url, a.posts, n))
        client.flushall()
        rpp = requests_per_post(server.url, min(a.posts, 200))
        print(f"\n== throughput: farm WordPress blog (served by its own process), {a.posts} posts, "
              f"loopback, politeness off; 4 threads per worker")
        print(f"{'workers':>8} {'posts':>6} {'pages':>6} {'seconds':>8} {'posts/s':>8} {'peak RSS MB':>12}")
        for r in rows:
            print(f"{r['workers']:>8} {r['posts']:>6} {r['pages']:>6} {r['seconds']:>8.1f} {r['posts_per_s']:>8.1f} "
                  f"{r['peak_rss_mb']:>12.0f}")
        print(f"speed-up 2 workers / 1 worker: {rows[1]['posts_per_s'] / rows[0]['posts_per_s']:.2f}x")
        print(f"requests per post found (a {min(a.posts, 200)}-post blog): {rpp:.2f}")

        curves = order_curve(server.url, a.forum_budget)
        print(f"\n== traversal order: blog inside a forum, posts found after N pages (budget {a.forum_budget})")
        marks = [25, 50, 100, 150, 200, 300, 400, 600, 800, 1000]
        print(f"{'pages':>6} " + " ".join(f"{m:>5}" for m in marks if m <= a.forum_budget))
        for order, (curve, total) in curves.items():
            vals = [curve[min(m, len(curve)) - 1] if curve else 0 for m in marks if m <= a.forum_budget]
            print(f"{order:>6} " + " ".join(f"{v:>5}" for v in vals) + f"   (of {total} posts)")
        for order, (curve, total) in curves.items():
            need = next((i + 1 for i, v in enumerate(curve) if v >= total), None)
            print(f"{order}: all {total} posts after {need or 'more than ' + str(len(curve))} pages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
