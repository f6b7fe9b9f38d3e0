"""Replay of real blogs' archives: crawl each eval blog with --warc and --wacz, then ask pywb
for every post the crawl found, and count the posts that come back as HTML with their title.

    python bench/replay.py [/work/shared/eval/blogs/*] [--feed-window 20]

Each blog is served by the eval harness (../shared/eval/harness.py serve), crawled by the
`blogharvest crawl` command with a private Redis, and replayed by pywb 2.10 from its own
virtualenv (tests/replay.py); also reported: `warcio check` and `wacz validate` of the outputs.
"""
from __future__ import annotations

import argparse
import html
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
HARNESS = Path("/work/shared/eval/harness.py")


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _title(body: bytes) -> str:
    m = re.search(rb"<title[^>]*>(.*?)</title>", body, re.S | re.I)
    return " ".join(html.unescape(m.group(1).decode("utf-8", "replace")).split()) if m else ""


def one(blog: Path, work: Path, feed_window: int) -> tuple[int, int]:
    from tasks.archive.wacz import validate_wacz
    from tests.replay import Wayback

    port = _port()
    env = dict(os.environ, BLOGHARVEST_ALLOW_PRIVATE="1", BLOGHARVEST_HOME=str(work / "home"),
               PYTHONPATH=str(ROOT))
    env.pop("REDIS_URL", None)
    server = subprocess.Popen([sys.executable, str(HARNESS), "serve", str(blog), "--port", str(port),
                               "--feed-window", str(feed_window)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    try:
        for _ in range(100):  # readiness: the served blog answers
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                time.sleep(0.1)
        out, warc, wacz = work / "posts.jsonl", work / "blog.warc.gz", work / "blog.wacz"
        t = time.monotonic()
        subprocess.run([sys.executable, "-m", "workers.cli", "crawl", url, "--out", str(out), "--warc", str(warc),
                        "--wacz", str(wacz), "--quiet"], env=env, check=True, timeout=1800)
        crawl_s = time.monotonic() - t
    finally:
        server.terminate()
        server.wait(timeout=30)
    records = [json.loads(line) for line in open(out, encoding="utf-8") if line.strip()]
    check = subprocess.run([sys.executable, "-m", "warcio.cli", "check", str(warc)], capture_output=True)
    valid = validate_wacz(str(wacz))[0]
    good, misses = 0, []
    with Wayback([warc]) as wb:  # the blog is gone: everything comes from the archive
        for r in records:
            status, headers, body = wb.get(r["url"])
            want = " ".join((r.get("title") or "").split())
            text = " ".join(html.unescape(body.decode("utf-8", "replace")).split())
            if status == 200 and "html" in headers.get("Content-Type", "") and want and (
                    want in _title(body) or want in text):
                good += 1
            else:
                misses.append((r["url"], status, _title(body)[:60]))
    print(f"{blog.name:14} {good}/{len(records)} posts replay with their title; crawl {crawl_s:.0f} s; "
          f"warcio check rc={check.returncode}; wacz valid={valid}; "
          f"WARC {warc.stat().st_size // 1024} KiB, WACZ {wacz.stat().st_size // 1024} KiB", flush=True)
    for m in misses[:5]:
        print("   miss", *m)
    return good, len(records)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("blogs", nargs="*", type=Path)
    ap.add_argument("--feed-window", type=int, default=20)
    a = ap.parse_args()
    blogs = a.blogs or sorted(Path("/work/shared/eval/blogs").iterdir())
    ok = total = 0
    for blog in blogs:
        with tempfile.TemporaryDirectory(prefix="bench-replay-") as d:
            g, n = one(blog, Path(d), a.feed_window)
        ok, total = ok + g, total + n
    print(f"ALL            {ok}/{total} = {100 * ok / max(total, 1):.1f}% of posts replay through pywb with their title")
    return 0 if ok == total else 1


if __name__ == "__main__":
    sys.exit(main())
