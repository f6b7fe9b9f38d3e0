"""Hostile blogs crawled as users run them (issue 34): traps cut, a DOM bomb's memory bounded.

    python bench/hostile.py                     both parts
    python bench/hostile.py --only traps        the traps alone (no browser)
    python bench/hostile.py --only dom          the DOM bomb alone (--js always, with and without it)
    python bench/hostile.py --code ../main      crawl with another checkout's code (before/after)

traps: a 6-post farm blog whose home page links five endless parts of the site (a calendar of
ever-next months and ever-deeper paths, an endless `?page=N` listing of no post, a query
growing by a parameter a page, session-like tokens, an ever-deeper tree), each page of them
also linking the blog's posts; crawled with `python -m workers.cli crawl URL --out F`
(default options). Printed: the pages the farm served under each trap, the posts found.
Target: each trap cut within 200 pages, every post found.

dom: the same farm blog (20 posts) crawled with `--js always`, once as it is and once with a
post whose script appends `--dom-mb` MB of text to its DOM. Printed per run: the peak PSS of the
whole process tree (workers, embedded Redis, Chromium; PSS splits shared pages, so the sum is
what the tree takes) and the peak sum of RSS beside it (what the issue measured; shared pages
counted in every process), sampled every 50 ms; posts found; the difference. Target: peak PSS
with the bomb at most 300 MiB above the run without it.

The farm is served by a process of its own; politeness is off on loopback
(BLOGHARVEST_LOCAL_DELAY=0). The machine may be shared: compare the two runs of one
invocation, repeat (--repeat) and read the spread.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CODE = ROOT  # the checkout whose crawler runs (--code); the farm is always this one's
TRAPS = {"/calendar/": "calendar", "/list/": "paged_trap", "/search/": "growing_query", "/forum/": "session_trap",
         "/tree/": "deep_trap"}
ENTRIES = {"/calendar/": "/calendar/1/", "/list/": "/list/?page=1", "/search/": "/search/?a0=1",
           "/forum/": "/forum/", "/tree/": "/tree/"}
MiB = 1024 * 1024


# ------------------------------------------------------------------ the farm (a process of its own)

def serve(kind: str, posts: int, dom_mb: int) -> int:
    """`--serve`: one farm blog with `kind`'s faults; prints {"url", "posts"}, serves until stdin
    closes, then prints the requests it served by target."""
    sys.path.insert(0, str(ROOT))
    from tests.farm import make_blog
    from tests.farm.faults import fault
    from tests.farm.server import FarmServer

    blog = make_blog("wordpress", seed=34, n_posts=posts)
    paths = [p.path for p in blog.posts]
    faults = {}
    if kind == "traps":
        faults["/"] = fault("extra_link", hrefs=list(ENTRIES.values()))
        for prefix, k in TRAPS.items():
            faults[prefix + "*"] = fault(k, posts=paths)
    elif kind == "dom":
        faults[paths[len(paths) // 2]] = fault("dom_bomb", size=dom_mb * 1_000_000)
    with FarmServer(blog, faults) as site:
        print(json.dumps({"url": site.url, "posts": [site.origin + p for p in paths]}), flush=True)
        sys.stdin.read()
        print(json.dumps(dict(site.hits)), flush=True)
    return 0


class Farm:
    def __init__(self, kind: str, posts: int, dom_mb: int = 0):
        self.proc = subprocess.Popen([sys.executable, __file__, "--serve", kind, str(posts), str(dom_mb)], cwd=ROOT,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        got = json.loads(self.proc.stdout.readline())
        self.url, self.posts = got["url"], got["posts"]

    def stop(self) -> dict:
        self.proc.stdin.close()
        hits = json.loads(self.proc.stdout.readline() or "{}")
        self.proc.wait(30)
        return hits


# ------------------------------------------------------------------ a crawl, measured

def _tree(pid: int) -> tuple[int, int]:
    """(PSS, sum of RSS) of the process tree under `pid`."""
    import psutil

    try:
        p = psutil.Process(pid)
        members = [p] + p.children(recursive=True)
    except psutil.Error:
        return 0, 0
    pss = rss = 0
    for q in members:
        try:
            m = q.memory_full_info()
            pss, rss = pss + m.pss, rss + m.rss
        except psutil.Error:
            pass
    return pss, rss


def crawl(url: str, extra: list[str], tmp: Path) -> dict:
    """`workers.cli crawl URL --out F` as users run it, in a fresh home: wall seconds, peak PSS
    and peak sum of RSS of its process tree, the records' urls."""
    home, out = tmp / f"home{time.monotonic_ns()}", tmp / f"out{time.monotonic_ns()}.jsonl"
    env = dict(os.environ, BLOGHARVEST_HOME=str(home), BLOGHARVEST_ALLOW_PRIVATE="1", BLOGHARVEST_LOCAL_DELAY="0",
               PYTHONPATH=str(CODE))
    env.pop("REDIS_URL", None)
    cmd = [sys.executable, "-m", "workers.cli", "crawl", url, "--out", str(out), "--quiet",
           "--report", str(tmp / "report.html"), *extra]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=CODE, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    peak = {"pss": 0, "rss": 0}
    done = threading.Event()

    def sample():
        while not done.is_set():
            pss, rss = _tree(proc.pid)
            peak["pss"], peak["rss"] = max(peak["pss"], pss), max(peak["rss"], rss)
            done.wait(0.05)

    t = threading.Thread(target=sample, daemon=True)
    t.start()
    err = proc.stderr.read()
    proc.wait()
    done.set()
    t.join()
    if proc.returncode:
        sys.stderr.write(err.decode(errors="replace")[-3000:])
        raise SystemExit(f"the crawl exited with {proc.returncode}")
    urls = [json.loads(line)["url"] for line in out.read_text().splitlines() if line.strip()] if out.exists() else []
    report = (tmp / "report.html").read_text(errors="replace") if (tmp / "report.html").exists() else ""
    return {"wall": time.perf_counter() - start, **peak, "urls": urls, "report": report}


# ------------------------------------------------------------------ the two parts

def traps(tmp: Path) -> None:
    farm = Farm("traps", 6)
    try:
        got = crawl(farm.url, [], tmp)
    finally:
        hits = farm.stop()
    found = len(set(got["urls"]) & set(farm.posts))
    print(f"traps: 6-post blog, five endless parts linked from its home; {got['wall']:.1f} s, "
          f"{sum(hits.values())} requests served")
    for prefix, kind in TRAPS.items():
        n = sum(v for k, v in hits.items() if k.startswith(prefix))
        print(f"  {kind:14} {prefix:11} pages served {n:5d}   cut within 200: {'yes' if n <= 200 else 'NO'}")
    print(f"  posts found {found}/{len(farm.posts)}")


def dom(tmp: Path, posts: int, dom_mb: int) -> None:
    runs = {}
    for kind in ("plain", "dom"):
        farm = Farm(kind, posts, dom_mb)
        try:
            got = crawl(farm.url, ["--js", "always"], tmp)
        finally:
            farm.stop()
        runs[kind] = got
        print(f"dom: {'with' if kind == 'dom' else 'without'} a {dom_mb} MB DOM page, --js always: "
              f"{got['wall']:.1f} s, peak PSS {got['pss'] / MiB:7.0f} MiB, peak sum of RSS {got['rss'] / MiB:7.0f} MiB, "
              f"posts {len(set(got['urls']) & set(farm.posts))}/{len(farm.posts)}")
    d_pss = (runs["dom"]["pss"] - runs["plain"]["pss"]) / MiB
    d_rss = (runs["dom"]["rss"] - runs["plain"]["rss"]) / MiB
    print(f"  difference: PSS {d_pss:+.0f} MiB (target <= +300), sum of RSS {d_rss:+.0f} MiB; "
          f"too_large reported: {'yes' if 'too_large' in runs['dom']['report'] else 'no'}")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--serve":
        raise SystemExit(serve(sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", choices=("traps", "dom"))
    ap.add_argument("--posts", type=int, default=20, help="posts of the DOM part's blog")
    ap.add_argument("--dom-mb", type=int, default=40)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--code", type=Path, help="the checkout whose crawler runs (default: this one)")
    a = ap.parse_args()
    global CODE
    CODE = a.code.resolve() if a.code else ROOT
    with tempfile.TemporaryDirectory(prefix="bh-hostile-") as d:
        for _ in range(a.repeat):
            if a.only in (None, "traps"):
                traps(Path(d))
            if a.only in (None, "dom"):
                dom(Path(d), a.posts, a.dom_mb)


if __name__ == "__main__":
    main()
