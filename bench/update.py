"""Update crawls as a user runs them: what they find, and what they cost against a full crawl.

    python bench/update.py [--new 25] [--corpus DIR] [--corpus-max N] [--no-farm] [--no-eval]
                           [--keep DIR] [--no-cluster] [--full-from DIR] [BLOG...]

Blogs: the eval blogs (../shared/eval/blogs/*) and the corpus blogs (../shared/corpus or
--corpus; only those listed in its DONE.txt when it has one) with at least 50 posts, each
served by ../shared/eval/harness.py's server as its original host; and a farm WordPress blog
whose feed answers 404 (tests/farm). `since` is chosen so that the `--new` newest posts (by
truth.jsonl's published) come after it. Per blog, with the default embedded Redis (a fresh
data directory per run, BLOGHARVEST_HOME):

    full      blogharvest crawl URL --out F
    update    blogharvest crawl URL --since D --out F

(`--full-from K`: the full crawl's requests as an earlier run's `--keep K` kept them), and for
conditional requests, with REDIS_URL pointing to a private redis-server and one
`blogharvest worker` (the state a cluster keeps between crawls):

    update    blogharvest crawl URL --since D --out F      (the first: nothing known yet)
    update 2  the same right after (nothing new)

The static server answers as a static host does (nginx, GitHub Pages): ETag and Last-Modified
from the file, 304 to a matching If-None-Match / If-Modified-Since. Printed per blog: new
posts found (% of the new ones), records older than since (% of the output), requests of the
update crawl (% of the full crawl's), its floor (the new posts and the home page, each read once:
% of the full crawl's), requests of the second update (% of the full crawl's).
Targets (issue 35): >= 99 %, <= 1 %, <= 20 %, <= 5 %.
"""
from __future__ import annotations

import argparse
import datetime as dt
import email.utils
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SHARED = ROOT.parent / "shared"
MIN_POSTS = 50


def harness():
    spec = importlib.util.spec_from_file_location("harness", SHARED / "eval" / "harness.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def validating(h):
    """The harness's server, answering with validators and 304s like a static host."""

    class Handler(h.SiteHandler):
        def send_file(self, f: Path, rel: str):
            st = f.stat()
            etag = '"%s"' % hashlib.sha1(f"{st.st_size}-{st.st_mtime_ns}".encode()).hexdigest()[:16]
            modified = email.utils.formatdate(st.st_mtime, usegmt=True)
            inm, ims = self.headers.get("If-None-Match"), self.headers.get("If-Modified-Since")
            if (inm and inm == etag) or (not inm and ims == modified):
                self.send_response(304)
                self.send_header("ETag", etag)
                self.end_headers()
                return
            self._validators = (etag, modified)
            return super().send_file(f, rel)

        def send_header(self, k, v):
            super().send_header(k, v)
            if k == "Content-Length" and getattr(self, "_validators", None):
                super().send_header("ETag", self._validators[0])
                super().send_header("Last-Modified", self._validators[1])
                self._validators = None

    class Served(h.Served):
        def __enter__(self):
            import http.server
            import threading
            from collections import Counter

            self.port = self.wanted_port or h.free_port()
            self.origin = f"http://127.0.0.1:{self.port}"
            self.tmp = Path(tempfile.mkdtemp(prefix="blogupd-"))
            self.root = self.tmp / "site"
            h.prepare(self.blog, self.root, self.origin, self.window)
            self.root = self.root.resolve()
            handler = type("H", (Handler,), {"root": self.root, "hits": Counter()})
            self.hits = handler.hits
            self.server = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), handler)
            threading.Thread(target=self.server.serve_forever, daemon=True).start()
            return self

    return Served


def pick_since(published: list[str], new: int) -> str:
    """The day after the (new+1)-th newest post: the `new` newest come after it (ties: fewer)."""
    days = sorted(p[:10] for p in published if p)
    return (dt.date.fromisoformat(days[-new - 1]) + dt.timedelta(days=1)).isoformat()


def crawl(url: str, out: Path, since: str | None, env: dict) -> tuple[int, float]:
    cmd = [sys.executable, "-m", "workers.cli", "crawl", url, "--out", str(out), "--quiet"]
    if since:
        cmd += ["--since", since]
    t = time.monotonic()
    try:
        r = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True, timeout=900)
    except subprocess.TimeoutExpired:
        print(f"    crawl timed out: {' '.join(cmd[3:])}", file=sys.stderr)
        return -1, time.monotonic() - t
    if r.returncode:
        print(f"    crawl exit {r.returncode}: {r.stderr.strip()[-300:]}", file=sys.stderr)
    return r.returncode, time.monotonic() - t


def records(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def url_key(u: str) -> str:
    from urllib.parse import unquote, urlsplit

    p = urlsplit(u)
    path = unquote(p.path)
    for suffix in ("index.html", "index.htm"):
        if path.endswith(suffix):
            path = path[: -len(suffix)]
    return path.rstrip("/") + ("?" + p.query if p.query else "")


class PrivateCluster:
    """A redis-server and one `blogharvest worker` of this checkout, for REDIS_URL runs."""

    def __init__(self, env: dict):
        from workers.redis_server import RedisServer

        self.dir = Path(tempfile.mkdtemp(prefix="bh-bench-redis-"))
        self.redis = RedisServer(self.dir, persist=False).start()
        self.env = dict(env, REDIS_URL=self.redis.url)
        self.worker = subprocess.Popen(
            [sys.executable, "-m", "workers.cli", "worker", "--concurrency", "8", "--loglevel", "WARNING"],
            env=self.env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=open(self.dir / "worker.log", "w"))

    def close(self):
        self.worker.terminate()
        try:
            self.worker.wait(30)
        except subprocess.TimeoutExpired:
            self.worker.kill()
            self.worker.wait()
        self.redis.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


class _NoCluster(Exception):
    """--no-cluster: the REDIS_URL runs (conditional requests) left out."""


def run_blog(name: str, serve, truth: list[dict], new: int, base_env: dict, tmp: Path,
             keep: Path | None = None, cluster_runs: bool = True, full_from: Path | None = None) -> dict:
    since = pick_since([t.get("published") or "" for t in truth], new)
    fresh = {url_key(t["url"]) if "url" in t else "/" + t["path"] for t in truth
             if (t.get("published") or "")[:10] >= since}
    fresh = {url_key(k) for k in fresh}
    row = {"blog": name, "posts": len(truth), "since": since, "new": len(fresh)}
    with serve() as s:
        url = s.origin + "/"

        def run(label, since_, env):
            s.hits.clear()
            out = tmp / f"{name}-{label}.jsonl"
            rc, secs = crawl(url, out, since_, env)
            if keep is not None:  # what each run asked the blog for, and its records
                keep.mkdir(parents=True, exist_ok=True)
                (keep / f"{name}-{label}.hits.json").write_text(json.dumps(dict(s.hits), indent=0))
                if out.is_file():
                    shutil.copy(out, keep / out.name)
            return rc, sum(s.hits.values()), records(out), secs

        def embedded():
            return dict(base_env, BLOGHARVEST_HOME=tempfile.mkdtemp(dir=tmp))

        earlier = full_from / f"{name}-full.hits.json" if full_from else None
        if earlier is not None and earlier.is_file():  # a full crawl kept by an earlier run (--keep)
            row["full_req"], row["full_s"] = sum(json.loads(earlier.read_text()).values()), 0.0
        else:
            _, row["full_req"], full, row["full_s"] = run("full", None, embedded())
        rc, row["upd_req"], upd, row["upd_s"] = run("update", since, embedded())
        got = {url_key(r["url"]) for r in upd}
        row["found"] = 100.0 * len(fresh & got) / max(1, len(fresh))
        old = [r for r in upd if (r.get("published") or "9999")[:10] < since]
        row["old"] = 100.0 * len(old) / max(1, len(upd))
        row["records"] = len(upd)
        row["rc"] = rc
        row["c1_req"] = row["c2_req"] = 0
        cluster = PrivateCluster(base_env) if cluster_runs else None
        try:
            if cluster is None:
                raise _NoCluster
            _, row["c1_req"], c1, _ = run("cluster1", since, cluster.env)
            _, row["c2_req"], c2, _ = run("cluster2", since, cluster.env)
            row["c1_records"], row["c2_records"] = len(c1), len(c2)
        except _NoCluster:
            pass
        finally:
            if cluster is not None:
                cluster.close()
    full_req = max(1, row["full_req"])
    row["upd_pct"] = 100.0 * row["upd_req"] / full_req
    # what no update crawl goes below: the new posts and the home page, each read once
    row["floor_pct"] = 100.0 * (row["new"] + 1) / full_req
    row["c2_pct"] = 100.0 * row["c2_req"] / full_req
    return row


def harness_blogs(h, dirs: list[Path], names: list[str]):
    for d in dirs:
        if names and d.name not in names:
            continue
        truth_file = d / "truth.jsonl"
        if not truth_file.is_file():
            continue
        truth = [json.loads(line) for line in truth_file.read_text(encoding="utf-8").splitlines() if line.strip()]
        if len(truth) < MIN_POSTS:
            continue
        yield d.name, (lambda d=d: validating(h)(d)), truth


def corpus_dirs(given: str | None) -> list[Path]:
    for c in [given, os.environ.get("BLOGHARVEST_CORPUS"), ROOT.parent / "shared" / "corpus", Path("/work/corpus")]:
        if c and Path(c).is_dir():
            c = Path(c)
            done = c / "DONE.txt"
            if done.is_file():
                listed = {line.split()[0] for line in done.read_text().splitlines() if line.strip()}
                return [c / n for n in sorted(listed) if (c / n / "site").is_dir()]
            return [p for p in sorted(c.iterdir()) if (p / "site").is_dir()]
    return []


def farm_blog(posts: int = 120):
    """A farm WordPress blog whose feed answers 404 (no feed: training from the pages)."""
    sys.path.insert(0, str(ROOT))
    from tests.farm import make_blog
    from tests.farm.server import FarmServer

    blog = make_blog("wordpress", 3, posts)
    truth = [dict(t) for t in blog.truth]

    def serve():
        s = FarmServer(blog, {"/feed/": "404", "/?feed=rss2": "404"})

        class Wrap:
            def __enter__(self):
                s.__enter__()
                self.origin, self.hits = s.origin, s.hits
                return self

            def __exit__(self, *exc):
                s.__exit__(*exc)

        return Wrap()

    return "farm-wordpress-nofeed", serve, truth


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("blogs", nargs="*")
    ap.add_argument("--new", type=int, default=25)
    ap.add_argument("--corpus")
    ap.add_argument("--no-farm", action="store_true")
    ap.add_argument("--corpus-max", type=int, default=1000, help="corpus blogs at most (0: none)")
    ap.add_argument("--no-eval", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--keep", help="write each run's requests (path -> count) and records here")
    ap.add_argument("--no-cluster", action="store_true", help="leave out the two REDIS_URL update crawls")
    ap.add_argument("--full-from", help="a --keep folder of an earlier run: its full crawls' requests are "
                                        "taken instead of crawling again (a quicker look while working)")
    a = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    h = harness()
    env = dict(os.environ, BLOGHARVEST_ALLOW_PRIVATE="1", PYTHONPATH=str(ROOT))
    env.pop("REDIS_URL", None)
    todo = []
    if not a.no_eval:
        todo += list(harness_blogs(h, sorted((SHARED / "eval" / "blogs").iterdir()), a.blogs))
    if not a.no_farm and (not a.blogs or "farm-wordpress-nofeed" in a.blogs):
        todo.append(farm_blog())
    if a.corpus_max:
        todo += list(harness_blogs(h, corpus_dirs(a.corpus), a.blogs))[:a.corpus_max]
    rows = []
    with tempfile.TemporaryDirectory(prefix="bh-update-bench-") as tmp:
        print(f"{'blog':28s} {'posts':>5s} {'since':>10s} {'new':>4s} {'found%':>7s} {'old%':>6s} "
              f"{'full':>6s} {'upd':>5s} {'upd%':>6s} {'floor%':>6s} {'upd2':>5s} {'upd2%':>6s}")
        for name, serve, truth in todo:
            for t in truth:
                t.setdefault("url", "/" + t.get("path", ""))
            row = run_blog(name, serve, truth, a.new, env, Path(tmp), Path(a.keep) if a.keep else None,
                           not a.no_cluster, Path(a.full_from) if a.full_from else None)
            rows.append(row)
            print(f"{name[:28]:28s} {row['posts']:5d} {row['since']:>10s} {row['new']:4d} {row['found']:7.1f} "
                  f"{row['old']:6.1f} {row['full_req']:6d} {row['upd_req']:5d} {row['upd_pct']:6.1f} "
                  f"{row['floor_pct']:6.1f} {row['c2_req']:5d} {row['c2_pct']:6.1f}", flush=True)
    if rows:
        worst = {"found": min(r["found"] for r in rows), "old": max(r["old"] for r in rows),
                 "upd%": max(r["upd_pct"] for r in rows), "upd2%": max(r["c2_pct"] for r in rows)}
        print(f"worst: found {worst['found']:.1f} % (>= 99), old {worst['old']:.1f} % (<= 1), "
              f"update {worst['upd%']:.1f} % of a full crawl (<= 20), second update {worst['upd2%']:.1f} % (<= 5)")
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
