"""Many blogs at real politeness (issue 33): pages/s against the politeness limit and the CPU limit.

    python bench/polite.py                         # 20 WordPress farm blogs x 30 posts, 1 request/s/host
    python bench/polite.py --blogs 5 --posts 10 --repeat 2
    python bench/polite.py --timeline T.json         # and each host's requests, in order, into T.json
    PYTHONPATH=/other/checkout python bench/polite.py   # the same bench on other code

Each farm blog is served on a loopback address of its own (127.0.0.2, 127.0.0.3, ...), as
real blogs are on hosts of their own, by one farm process. The crawl is the command users
run (`blogharvest crawl URL... --out F`: the embedded Redis and workers, default options)
with `BLOGHARVEST_LOCAL_DELAY` (default 1: one request per second per host, what a real
blog gets from `BLOGHARVEST_DELAY`) and `BLOGHARVEST_ALLOW_PRIVATE=1`.

Printed per round:
- pages: the requests the farm served (robots.txt, feeds, pages, comment feeds, all);
- pages/s over the command's wall time, against the politeness limit (blogs / delay: every
  host busy at its own pace all the time) and against the CPU limit of this machine (the
  pages/s the crawl would reach if its tree had every core: cores x pages / CPU seconds);
- the share of the lower of the two limits (the target: >= 90 %);
- the pace bound: a blog cannot end sooner than its pages x the delay, so the largest blog
  bounds the wall time (pages / (its pages x delay) is what the run could reach), and the
  share of it reached; the machine's load average (other work takes the CPU a run gets);
- for each host, the share of its span (first to last request) its requests filled at the pace;
- pages per post, posts found of the blogs' posts, CPU seconds and CPU % of the tree (of all
  cores), peak PSS of the tree;
- the first and last time a blog's records were complete in --out is not measured here (see
  tests/workers/test_polite.py for a blog's records written while another still runs).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from peers import _posts_of, measure  # noqa: E402  (the same measuring as bench/peers.py)


def serve(family: str, seed: int, posts: int, blogs: int) -> int:
    """`--serve`: the blogs, blog i on 127.0.0.{i+2}; prints their sites, serves until stdin
    closes, then prints the requests each served."""
    sys.path.insert(0, str(ROOT))
    from tests.farm import make_blog
    from tests.farm.server import FarmServer

    servers = [FarmServer(make_blog(family, seed + i, posts), host=f"127.0.0.{i + 2}").__enter__()
               for i in range(blogs)]
    times: list[list[float]] = [[] for _ in servers]
    paths: list[list[str]] = [[] for _ in servers]
    for s, t, ps in zip(servers, times, paths):  # a client closing a kept-alive connection is no news
        s._server.server.handle_error = lambda *a: None
        s._server.routes = (lambda route, t, ps: lambda req: (t.append(time.time()), ps.append(req.path), route(req))[2])(
            s._server.routes, t, ps)
    print(json.dumps([{"url": s.url, "posts": [p.path for p in s.blog.posts],
                       "comments": sum(len(p.comments) for p in s.blog.posts)} for s in servers]), flush=True)
    sys.stdin.readline()
    print(json.dumps([{"hits": dict(s.hits), "times": t, "paths": ps} for s, t, ps in zip(servers, times, paths)]),
          flush=True)
    sys.stdin.read()
    for s in servers:
        s.__exit__(None, None, None)
    return 0


class Farm:
    def __init__(self, family: str, seed: int, posts: int, blogs: int):
        self.proc = subprocess.Popen([sys.executable, __file__, "--serve", family, str(seed), str(posts), str(blogs)],
                                     cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.sites = json.loads(self.proc.stdout.readline())

    def hits(self) -> list[dict]:
        self.proc.stdin.write("hits\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(10)


def one_round(a, cores: int) -> dict:
    farm = Farm(a.family, a.seed, a.posts, a.blogs)  # a fresh farm per round: its counters from 0
    try:
        with tempfile.TemporaryDirectory(prefix="bh-polite-") as d:
            out = Path(d) / "out.jsonl"
            env = dict(os.environ, BLOGHARVEST_HOME=str(Path(d) / "home"), BLOGHARVEST_ALLOW_PRIVATE="1",
                       BLOGHARVEST_LOCAL_DELAY=str(a.delay))
            env.setdefault("PYTHONPATH", str(ROOT))
            env.pop("REDIS_URL", None)
            m = measure([sys.executable, "-m", "workers.cli", "crawl", *[s["url"] for s in farm.sites],
                         "--out", str(out), "--quiet", *a.extra], env)
            records = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
            urls = [r["url"] for r in records]
            comments = sum(len(r.get("comments") or []) for r in records)
        served = farm.hits()
    finally:
        farm.close()
    hits = [h["hits"] for h in served]
    # each host's requests: from its first to its last, how much of the span its pace filled
    spans = sorted((min(h["times"]), max(h["times"]), len(h["times"])) for h in served if h["times"])
    t0 = m["end"] - m["wall"]
    fill = sorted(n * a.delay / max(b - f, 1e-9) for f, b, n in spans)
    pages = sum(sum(h.values()) for h in hits)
    posts = _posts_of(urls, farm.sites)
    polite = a.blogs / a.delay if a.delay > 0 else float("inf")
    cpu_limit = cores * pages / m["cpu"] if m["cpu"] else float("inf")
    rate = pages / m["wall"]
    most = max(sum(h.values()) for h in hits)
    paced = pages / (most * a.delay) if a.delay > 0 else float("inf")  # the largest blog alone takes most x delay
    row = dict(paced=paced, load=os.getloadavg()[0], wall=m["wall"], pages=pages, posts=posts, total=sum(len(s["posts"]) for s in farm.sites),
               rate=rate, polite=polite, cpu_limit=cpu_limit, share_polite=rate / polite,
               share_cpu=rate / cpu_limit, share=rate / min(polite, cpu_limit), per_post=pages / max(posts, 1),
               cpu=m["cpu"], cpu_pct=100 * m["cpu"] / (m["wall"] * cores), pss=m["peak_pss"],
               most=max(sum(h.values()) for h in hits), fewest=min(sum(h.values()) for h in hits))
    print(f"  pages {pages} in {m['wall']:.1f} s: {rate:.2f} pages/s = {100 * row['share_polite']:.0f} % of the "
          f"politeness limit ({polite:.1f}/s), {100 * row['share_cpu']:.0f} % of the CPU limit "
          f"({cpu_limit:.1f}/s); of the lower: {100 * row['share']:.0f} %", flush=True)
    print(f"  posts {posts}/{row['total']}, comments {comments}/{sum(x['comments'] for x in farm.sites)}, "
          f"{row['per_post']:.2f} pages per post (per blog {row['fewest']}-"
          f"{row['most']} pages), CPU {m['cpu']:.1f} s = {row['cpu_pct']:.0f} % of {cores} cores, "
          f"peak PSS {m['peak_pss'] / 2**20:.0f} MiB", flush=True)
    print(f"  the largest blog alone takes {most * a.delay:.0f} s at the pace: all blogs within that would be "
          f"{paced:.2f} pages/s; reached {100 * rate / paced:.0f} % of it; load average at the end "
          f"{row['load']:.1f} on {cores} cores", flush=True)
    print(f"  hosts: first request {spans[0][0] - t0:.1f}-{spans[-1][0] - t0:.1f} s after the start, last "
          f"{min(b for _, b, _ in spans) - t0:.1f}-{max(b for _, b, _ in spans) - t0:.1f} s; share of each host's "
          f"span its requests filled at the pace: median {100 * fill[len(fill) // 2]:.0f} %, lowest "
          f"{100 * fill[0]:.0f} %", flush=True)
    if a.timeline:  # each host's requests in order, seconds from the command's start
        Path(a.timeline).write_text(json.dumps([[(round(t - t0, 3), p) for t, p in sorted(zip(h["times"], h["paths"]))]
                                                for h in served]))
    idle = idle_before(served, a.delay)
    if idle:
        print(f"  hosts idle past 1.5 x the delay, by the request that ended the wait (s, all hosts): "
              + ", ".join(f"{k} {v:.0f}" for k, v in idle[:6]), flush=True)
    return row


def idle_before(served: list[dict], delay: float) -> list[tuple[str, float]]:
    """Where hosts waited longer than their pace asks: the seconds past the delay of each gap over
    1.5 x the delay, summed by the kind of request that came after it (a post's comment page, a
    sitemap, a post...), most first."""
    lost: dict[str, float] = {}
    for h in served:
        got = sorted(zip(h["times"], h.get("paths") or [""] * len(h["times"])))
        for (t0, _), (t1, path) in zip(got, got[1:]):
            if delay > 0 and t1 - t0 > 1.5 * delay:
                kind = ("comment page" if "comment-page" in path else "comment feed" if path.rstrip("/").endswith("/feed")
                        and path.count("/") > 3 else "sitemap" if "sitemap" in path else "feed" if "feed" in path
                        else "post" if path.count("/") >= 5 else path.split("?")[0])
                lost[kind] = lost.get(kind, 0.0) + t1 - t0 - delay
    return sorted(lost.items(), key=lambda kv: -kv[1])


def main(argv=None) -> int:
    if argv is None and len(sys.argv) > 1 and sys.argv[1] == "--serve":
        return serve(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--blogs", type=int, default=20)
    ap.add_argument("--posts", type=int, default=30)
    ap.add_argument("--family", default="wordpress")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--delay", type=float, default=1.0, help="BLOGHARVEST_LOCAL_DELAY: seconds between requests to a host")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--timeline", help="write each host's requests (seconds from the start, path) to this JSON file")
    ap.add_argument("--extra", nargs=argparse.REMAINDER, default=[], help="more arguments to `blogharvest crawl`")
    a = ap.parse_args(argv)
    cores = os.cpu_count() or 1
    print(f"== {a.blogs} farm {a.family} blogs x {a.posts} posts, each on its own loopback address, "
          f"{a.delay:g} s between requests to a host; code: {os.environ.get('PYTHONPATH') or ROOT}", flush=True)
    rows = []
    for i in range(a.repeat):
        print(f"round {i + 1}", flush=True)
        rows.append(one_round(a, cores))
    if len(rows) > 1:
        shares = sorted(r["share"] for r in rows)
        print(f"share of the lower limit by round: {', '.join(f'{100 * s:.0f} %' for s in shares)}; "
              f"median {100 * shares[len(shares) // 2]:.0f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
