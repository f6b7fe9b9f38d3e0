"""blogharvest beside its peers, in one run, on the same farm blog(s) over loopback.

    python bench/peers.py [--posts 500] [--repeat 1]          one blog of --posts posts
    python bench/peers.py --blogs 20 --posts 30               many blogs at once
    python bench/peers.py --only blogharvest                   just us (and Redis figures)
    python bench/peers.py --variant "--workers 1"             also blogharvest with one worker
    python bench/peers.py --variant "--js never"              also without any rendering (a variant only)
    python bench/peers.py --family widget --only blogharvest   a blog whose comments load by script

The peers, each a whole process started afresh (start-up and shutdown count):
- blogharvest: `python -m workers.cli crawl URL... --out F` as the README runs it (default
  options, `--js auto` included), with no REDIS_URL: the embedded default (its own
  redis-server, worker processes, and Chromium if the crawl starts one);
- trafilatura: its focused crawler (trafilatura.spider.focused_crawler, SLEEP_TIME 0)
  lists the site's pages, then trafilatura.downloads fetches them (4 threads) and
  trafilatura.extract reads each (metadata and comments on);
- scrapy: a spider that follows every in-site link (16 requests at once, no delay,
  robots.txt obeyed) and calls trafilatura.extract on each page.

Printed per peer: posts found (pages whose path is a post of the farm blog and that
gave a document), wall seconds, posts/s, CPU seconds of the whole process tree (user +
sys, from wait4: every descendant is counted when it is reaped), peak PSS of the whole
process tree (psutil's memory_full_info, sampled every 50 ms: workers, the embedded
redis-server and any browser included; PSS splits shared pages between the processes
that map them, so the tree's sum is what it takes), and the ratios blogharvest / peer.
For blogharvest also: the browser processes (chromium, chromedriver) seen in its tree at
any sample, with their peak PSS together; start-up (from the
command's start until a worker starts the first crawl, its `started` time) + shutdown
(from the last crawl's `finished` time to the command's exit), and the
embedded Redis's `used_memory` after the crawl ended (its AOF reloaded in a fresh
redis-server), per 1,000 posts.

The farm is served by a process of its own (one loopback server per blog). The machine
may be shared: compare ratios from one run, run `nice`, repeat (--repeat) and read the
spread. Politeness is off on loopback for every peer (BLOGHARVEST_LOCAL_DELAY=0,
SLEEP_TIME 0, DOWNLOAD_DELAY 0).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
PEERS = ("blogharvest", "trafilatura", "scrapy")


# ------------------------------------------------------------------ the farm

def serve(family: str, seed: int, posts: int, blogs: int) -> int:
    """`--serve`: the farm blogs on loopback; prints one JSON line, serves until stdin closes."""
    sys.path.insert(0, str(ROOT))
    from tests.farm import make_blog
    from tests.farm.server import FarmServer

    servers = [FarmServer(make_blog(family, seed + i, posts)).__enter__() for i in range(blogs)]
    print(json.dumps([{"url": s.url, "posts": [p.path for p in s.blog.posts]} for s in servers]), flush=True)
    sys.stdin.read()
    for s in servers:
        s.__exit__(None, None, None)
    return 0


def start_farm(family: str, seed: int, posts: int, blogs: int):
    proc = subprocess.Popen([sys.executable, __file__, "--serve", family, str(seed), str(posts), str(blogs)],
                            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    sites = json.loads(proc.stdout.readline())
    return proc, sites


# ------------------------------------------------------------------ the peers (child processes)

def _courlan_loopback() -> None:
    """courlan (trafilatura's URL filter) drops hosts without a domain name, so every link
    of a blog served on 127.0.0.1:PORT; let loopback through, as a real blog's domain is."""
    import courlan.core as core
    import courlan.filters as filters

    def loop(url_or_host: str) -> str:
        return urlsplit(url_or_host).netloc if "://" in url_or_host else url_or_host

    domain_filter, extract_domain = filters.domain_filter, core.extract_domain
    core.domain_filter = lambda d: d.startswith("127.0.0.1:") or domain_filter(d)
    core.extract_domain = lambda url, *a, **k: (loop(url) if loop(url).startswith("127.0.0.1:")
                                                else extract_domain(url, *a, **k))


def peer_trafilatura(urls: list[str]) -> dict:
    _courlan_loopback()
    from trafilatura import extract
    from trafilatura.downloads import buffered_downloads
    from trafilatura.settings import use_config
    from trafilatura.spider import focused_crawler

    config = use_config()
    config.set("DEFAULT", "SLEEP_TIME", "0")
    found = {}
    for home in urls:
        todo, known = focused_crawler(home, max_seen_urls=100_000, max_known_urls=1_000_000, config=config)
        for url, html in buffered_downloads(known, 4):
            if html:
                doc = extract(html, url=url, with_metadata=True, include_comments=True, output_format="json",
                              config=config)
                if doc:
                    found[url] = len(doc)
    return {"documents": list(found)}


def peer_scrapy(urls: list[str]) -> dict:
    import logging

    import scrapy
    from scrapy.crawler import CrawlerProcess
    from scrapy.linkextractors import LinkExtractor
    from trafilatura import extract

    found = {}
    hosts = [urlsplit(u).netloc for u in urls]

    class Blogs(scrapy.Spider):
        name = "blogs"
        start_urls = urls

        def parse(self, response):
            if not isinstance(response, scrapy.http.TextResponse):
                return
            doc = extract(response.text, url=response.url, with_metadata=True, include_comments=True,
                          output_format="json")
            if doc:
                found[response.url] = len(doc)
            for link in LinkExtractor().extract_links(response):
                if urlsplit(link.url).netloc in hosts:
                    yield response.follow(link.url, callback=self.parse)

    logging.getLogger("scrapy").setLevel(logging.WARNING)
    process = CrawlerProcess({"LOG_LEVEL": "WARNING", "ROBOTSTXT_OBEY": True, "DOWNLOAD_DELAY": 0,
                              "CONCURRENT_REQUESTS": 16, "CONCURRENT_REQUESTS_PER_DOMAIN": 16,
                              "TELNETCONSOLE_ENABLED": False, "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7"})
    process.crawl(Blogs)
    process.start()
    return {"documents": list(found)}


def peer_main(name: str, urls: list[str], out: str) -> int:
    result = {"trafilatura": peer_trafilatura, "scrapy": peer_scrapy}[name](urls)
    Path(out).write_text(json.dumps(result))
    return 0


# ------------------------------------------------------------------ measuring a process tree

BROWSER = ("chrom",)  # process names of a browser (chromium, chrome, chromedriver)


def _tree_mem(proc) -> tuple[int, list]:
    """PSS of the process tree (shared pages split between the processes that map them, so
    a browser's many processes and the workers' shared libraries are not counted twice),
    and its members as (command, name, PSS)."""
    import psutil

    try:
        p = psutil.Process(proc.pid)
        members = [p] + p.children(recursive=True)
    except psutil.Error:
        return 0, []
    parts = []
    for q in members:
        try:
            cmd = q.cmdline()
            parts.append((" ".join(c.rsplit("/", 1)[-1] for c in cmd[:4]), q.name(), q.memory_full_info().pss))
        except psutil.Error:
            pass
    return sum(m for _, _, m in parts), parts


def measure(cmd: list[str], env: dict) -> dict:
    """Run `cmd` to its end: wall seconds, CPU seconds of its tree, peak PSS of its tree, the
    browser processes that appeared in it at any sample (and their peak PSS together)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    peak, members, browsers, browser_peak = 0, [], set(), 0
    done = threading.Event()

    def sample():
        nonlocal peak, members, browser_peak
        while not done.is_set():
            pss, parts = _tree_mem(proc)
            if pss > peak:
                peak, members = pss, parts
            seen = [(n, m) for _, n, m in parts if any(b in n.lower() for b in BROWSER)]
            browsers.update(n for n, _ in seen)
            browser_peak = max(browser_peak, sum(m for _, m in seen))
            done.wait(0.05)

    t = threading.Thread(target=sample, daemon=True)
    t.start()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    done.set()
    t.join()
    if proc.returncode:
        sys.stderr.write(err.decode(errors="replace")[-3000:])
        raise SystemExit(f"{cmd[:4]} exited with {proc.returncode}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "peak_pss": peak, "end": time.time(),
            "members": [(c, m) for c, _, m in members], "browsers": sorted(browsers), "browser_pss": browser_peak}


def _posts_of(urls, sites) -> int:
    """How many of `urls` are posts of the farm blogs (by host and path)."""
    known = {(urlsplit(s["url"]).netloc, p) for s in sites for p in s["posts"]}
    return len({(urlsplit(u).netloc, urlsplit(u).path) for u in urls} & known)


def _redis_after(home: Path) -> dict:
    """The embedded Redis after the crawl: its AOF loaded by a fresh server, `used_memory`
    against an empty server's, and what the crawl's hashes say of its timing."""
    sys.path.insert(0, str(ROOT))
    import redis

    from workers.redis_server import RedisServer

    with tempfile.TemporaryDirectory() as empty, RedisServer(Path(empty), persist=False) as base:
        baseline = redis.Redis.from_url(base.url).info("memory")["used_memory"]
    with RedisServer(home / "redis", persist=True) as srv:
        r = redis.Redis.from_url(srv.url, decode_responses=True)
        used = r.info("memory")["used_memory"]
        spans = []
        for key in r.scan_iter("bh:{*}:crawl:*"):
            if r.type(key) == "hash" and r.hexists(key, "finished"):
                spans.append((float(r.hget(key, "started") or r.hget(key, "created")), float(r.hget(key, "finished"))))
        kinds: dict[str, int] = {}
        for key in r.scan_iter(count=1000):
            kind = re.sub(r"\{[0-9a-f]+\}", "{B}", key)
            kind = re.sub(r":crawl:[^:]+", ":crawl:C", kind)
            kind = re.sub(r"[0-9a-f]{8}-[0-9a-f-]{27}", "ID", kind)
            kinds[kind] = kinds.get(kind, 0) + (r.memory_usage(key, samples=0) or 0)
    return {"used": used - baseline, "spans": spans, "kinds": kinds}


def run_blogharvest(sites, tmp: Path, extra: list[str]) -> dict:
    home, out = tmp / "home", tmp / "bh.jsonl"
    env = dict(os.environ, BLOGHARVEST_HOME=str(home), BLOGHARVEST_ALLOW_PRIVATE="1",
               BLOGHARVEST_LOCAL_DELAY="0", PYTHONPATH=str(ROOT))
    env.pop("REDIS_URL", None)
    began = time.time()
    m = measure([sys.executable, "-m", "workers.cli", "crawl", *[s["url"] for s in sites], "--out", str(out),
                 "--quiet", *extra], env)
    urls = [json.loads(line)["url"] for line in out.read_text().splitlines() if line.strip()]
    m["posts"] = _posts_of(urls, sites)
    red = _redis_after(home)
    m["redis_bytes"], m["redis_kinds"] = red["used"], red["kinds"]
    if red["spans"]:  # start-up: until a worker starts the first crawl; shutdown: after the last ends
        m["startup"] = min(c for c, _ in red["spans"]) - began
        m["shutdown"] = m["end"] - max(f for _, f in red["spans"])
        m["overhead"] = max(0.0, m["startup"] + m["shutdown"])
    return m


def run_peer(name: str, sites, tmp: Path) -> dict:
    out = tmp / f"{name}.json"
    m = measure([sys.executable, __file__, "--peer", name, str(out), *[s["url"] for s in sites]],
                dict(os.environ))
    m["posts"] = _posts_of(json.loads(out.read_text())["documents"], sites)
    return m


# ------------------------------------------------------------------ the run

def one_round(a, sites) -> dict:
    rows = {}
    with tempfile.TemporaryDirectory(prefix="bh-peers-") as d:
        runs = [(n, a.bh_args if n == "blogharvest" else None) for n in a.only or PEERS]
        runs += [(f"blogharvest {v}", v.split()) for v in a.variant]
        for i, (name, bh_args) in enumerate(runs):
            tmp = Path(d) / str(i)
            tmp.mkdir()
            rows[name] = run_blogharvest(sites, tmp, bh_args) if bh_args is not None else run_peer(name, sites, tmp)
            r = rows[name]
            r["posts_per_s"] = r["posts"] / r["wall"]
            print(f"  {name:24} posts {r['posts']:>5}  wall {r['wall']:7.1f} s  {r['posts_per_s']:7.1f} posts/s  "
                  f"CPU {r['cpu']:7.1f} s  peak PSS {r['peak_pss'] / 2**20:6.0f} MiB", flush=True)
            if name.startswith("blogharvest"):
                print(f"      browser processes: " + (f"{', '.join(r['browsers'])} (peak PSS together "
                      f"{r['browser_pss'] / 2**20:.0f} MiB)" if r["browsers"] else "none at any sample"), flush=True)
            if len(r["members"]) > 1:
                print("      at the peak (PSS): " + "; ".join(f"{c} {m / 2**20:.0f} MiB" for c, m in r["members"]),
                      flush=True)
    return rows


def report(a, sites, rounds: list[dict]) -> None:
    total = sum(len(s["posts"]) for s in sites)
    print(f"\n== {len(sites)} farm {a.family} blog(s) x {a.posts} posts ({total} posts), loopback, "
          f"politeness off; {len(rounds)} round(s), medians")

    def med(name, key):
        vals = sorted(r[name][key] for r in rounds if name in r and key in r[name])
        return vals[len(vals) // 2] if vals else None

    print(f"{'peer':24} {'posts':>6} {'wall s':>8} {'posts/s':>8} {'CPU s':>7} {'peak PSS MiB':>13}  browser")
    names = list(a.only or PEERS) + [f"blogharvest {v}" for v in a.variant]
    for n in names:
        print(f"{n:24} {med(n, 'posts'):>6} {med(n, 'wall'):>8.1f} {med(n, 'posts_per_s'):>8.1f} "
              f"{med(n, 'cpu'):>7.1f} {med(n, 'peak_pss') / 2**20:>13.0f}  "
              f"{'-' if not n.startswith('blogharvest') else ('started' if any(r[n]['browsers'] for r in rounds if n in r) else 'never')}")
    if "blogharvest" in names:
        for n in names:
            if n.startswith("blogharvest"):
                continue
            # ratios within each round, then their median: a loaded machine slows a whole round
            speed = sorted(r["blogharvest"]["posts_per_s"] / r[n]["posts_per_s"] for r in rounds if r[n]["posts"])
            cpu = sorted((r[n]["cpu"] / max(1, r[n]["posts"])) / (r["blogharvest"]["cpu"] / max(1, r["blogharvest"]["posts"]))
                         for r in rounds)
            pss = sorted(r["blogharvest"]["peak_pss"] / r[n]["peak_pss"] for r in rounds)
            if speed:
                print(f"blogharvest / {n}: posts/s {speed[len(speed) // 2]:.2f}x "
                      f"(rounds {', '.join(f'{s:.2f}' for s in speed)}); CPU per post {cpu[len(cpu) // 2]:.2f}x less; "
                      f"peak PSS {pss[len(pss) // 2]:.2f}x (rounds {', '.join(f'{x:.2f}' for x in pss)})")
        for v in a.variant:
            n = f"blogharvest {v}"
            speed = sorted(r["blogharvest"]["posts_per_s"] / r[n]["posts_per_s"] for r in rounds)
            pss = sorted(r["blogharvest"]["peak_pss"] / r[n]["peak_pss"] for r in rounds)
            print(f"blogharvest / blogharvest {v}: posts/s {speed[len(speed) // 2]:.2f}x, "
                  f"peak PSS {pss[len(pss) // 2]:.2f}x")
            for peer in [x for x in names if not x.startswith("blogharvest")]:
                ratios = sorted(r[n]["peak_pss"] / r[peer]["peak_pss"] for r in rounds)
                fast = sorted(r[n]["posts_per_s"] / r[peer]["posts_per_s"] for r in rounds if r[peer]["posts"])
                print(f"  (variant) blogharvest {v} / {peer}: posts/s "
                      f"{fast[len(fast) // 2]:.2f}x, peak PSS {ratios[len(ratios) // 2]:.2f}x" if fast else "")
        over = med("blogharvest", "overhead")
        if over is not None:
            print(f"blogharvest start-up + shutdown: {over:.1f} s ({med('blogharvest', 'startup'):.1f} s until a "
                  f"worker starts the crawl, {med('blogharvest', 'shutdown'):.1f} s from its end to the exit), "
                  f"{100 * over / med('blogharvest', 'wall'):.0f} % of the run")
        rb = med("blogharvest", "redis_bytes")
        posts = med("blogharvest", "posts")
        if rb is not None and posts:
            print(f"blogharvest Redis after the crawl (used_memory over an empty server): {rb / 2**20:.1f} MiB, "
                  f"{rb / 2**20 * 1000 / posts:.1f} MiB per 1,000 posts; by key (MEMORY USAGE), per 1,000 posts:")
            kinds = rounds[-1]["blogharvest"]["redis_kinds"]
            for kind, size in sorted(kinds.items(), key=lambda kv: -kv[1])[:12]:
                print(f"    {size / 2**20 * 1000 / posts:8.2f} MiB  {kind}")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--serve"]:
        return serve(argv[1], int(argv[2]), int(argv[3]), int(argv[4]))
    if argv[:1] == ["--peer"]:
        return peer_main(argv[1], argv[3:], argv[2])
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--posts", type=int, default=500)
    ap.add_argument("--blogs", type=int, default=1)
    ap.add_argument("--family", default="wordpress")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--only", action="append", choices=PEERS, help="run only this peer (repeatable)")
    ap.add_argument("--bh-args", default="", help="more arguments for `blogharvest crawl` (e.g. '--workers 1')")
    ap.add_argument("--variant", action="append", default=[], metavar="ARGS",
                    help="also run `blogharvest crawl ARGS` in each round (e.g. '--workers 1'), with its ratio")
    a = ap.parse_args(argv)
    a.bh_args = a.bh_args.split()
    farm, sites = start_farm(a.family, a.seed, a.posts, a.blogs)
    try:
        rounds = []
        for i in range(a.repeat):
            print(f"round {i + 1}/{a.repeat}", flush=True)
            rounds.append(one_round(a, sites))
        report(a, sites, rounds)
    finally:
        farm.stdin.close()
        farm.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
