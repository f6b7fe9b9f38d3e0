"""Redis bytes of state per 1,000 posts (docs/scaling.md), measured on a real redis-server.

Simulates whole-blog crawls through workers.state.State exactly as workers/pipeline.py
calls it: feed entries, cached training pages, frontier / seen / in-flight / done
bookkeeping, delivery attempts, priority samples for the listing pages, and one record
per post (records hash + content hash + the `bh:records` stream). Records are synthetic
but sized like real blog posts (word counts, HTML markup, comments, media). It reports
INFO memory `used_memory` deltas and a per-key breakdown (MEMORY USAGE).

    python bench/redis_state.py                       # 4 blogs x 500 posts
    python bench/redis_state.py --blogs 10 --posts 1000 --words 900 --stream-maxlen 0
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tasks.archive.records import content_hash, post_record  # noqa: E402
from workers.redis_server import RedisServer  # noqa: E402
from workers.state import STREAM, Keys, State  # noqa: E402

WORDS = ("the a of and to in is it that for on with as was this by be at from or an are not have which you "
         "one all were can there but more their what when your been out about would into some them time "
         "garden river winter kitchen library bicycle mountain harbour lantern orchard meadow signal pattern "
         "window letter journey evening morning village market ferry station engine compass archive folder "
         "ribbon pencil teapot violin marble feather thunder whisper shadow quietly slowly carefully nearly "
         "almost perhaps rather simply honestly certainly").split()
RULES = {"title": "//*[@class='entry-title']", "content": "//*[@class='entry-content']",
         "author": "//*[@class='author vcard']", "date": "//time[@class='published']"}


def prose(r: random.Random, n: int) -> list[str]:
    """Paragraphs of about n words."""
    out, left = [], n
    while left > 0:
        k = min(left, r.randint(40, 120))
        s = " ".join(r.choice(WORDS) for _ in range(k))
        out.append(s[0].upper() + s[1:] + ".")
        left -= k
    return out


def post(r: random.Random, home: str, i: int, words: int, comments: int) -> dict:
    paras = prose(r, max(20, int(r.gauss(words, words / 3))))
    title = " ".join(r.choice(WORDS) for _ in range(r.randint(3, 9))).title()
    url = f"{home}{2010 + i % 14}/{1 + i % 12:02d}/{title.lower().replace(' ', '-')}-{i}/"
    html = "".join(f'<p class="p">{p} <a href="{home}tag/{r.choice(WORDS)}/">{r.choice(WORDS)}</a></p>\n'
                   for p in paras)
    n_img = r.choice((0, 0, 1, 1, 2, 3))
    html += "".join(f'<figure><img src="{home}wp-content/uploads/{i}-{j}.jpg" alt="{r.choice(WORDS)}">'
                    f"</figure>" for j in range(n_img))
    extracted = {"title": title, "content_text": "\n\n".join(paras), "content_html": html,
                 "authors": [f"{r.choice(WORDS).title()} {r.choice(WORDS).title()}"],
                 "published": f"{2010 + i % 14}-{1 + i % 12:02d}-{1 + i % 28:02d}T10:00:00+00:00"}
    n_com = max(0, int(r.expovariate(1 / comments))) if comments else 0
    coms = [{"author": r.choice(WORDS).title(), "published": extracted["published"],
             "content_text": " ".join(prose(r, r.randint(15, 80)))} for _ in range(n_com)]
    media = [{"url": f"{home}wp-content/uploads/{i}-{j}.jpg",
              "sha256": hashlib.sha256(f"{i}-{j}".encode()).hexdigest(), "content_type": "image/jpeg"}
             for j in range(n_img)]
    return post_record(url, home, extracted, rules=RULES, comments=coms, media=media)


def page_html(r: random.Random, words: int) -> str:
    """A whole theme page (header, sidebar, footer around the post): what learning caches."""
    chrome = "".join(f'<li class="menu-item"><a href="/{w}/">{w}</a></li>' for w in r.sample(WORDS, 40))
    body = "".join(f"<p>{p}</p>" for p in prose(r, words))
    return (f"<!doctype html><html><head><title>t</title>{'<link rel=stylesheet href=/s.css>' * 8}"
            f"<script>{'var x=1;' * 2000}</script></head><body><nav><ul>{chrome}</ul></nav>"
            f"<article class=post>{body}</article><aside>{chrome * 3}</aside><footer>{chrome}</footer>"
            f"</body></html>")


def crawl_blog(st: State, b: int, posts: int, args, r: random.Random) -> tuple[str, int]:
    """One whole-blog crawl, as the pipeline drives State. Returns (crawl id, JSON bytes of records)."""
    home = f"https://blog{b}.example.org/"
    cid = st.create_crawl(home, None, {"max_pages": None, "js": "auto"})
    st.set_state(cid, "running")
    k = Keys(cid)
    records = [post(r, home, i, args.words, args.comments) for i in range(posts)]
    feed = records[:args.feed_entries]
    st.save_entries(cid, [{"url": x["url"], "title": x["title"], "content_html": x["content_html"],
                           "authors": x["authors"], "published": x["published"]} for x in feed])
    st.save_blog(cid, home=home, feed=home + "feed/", entry_urls=[x["url"] for x in feed])
    for x in [{"url": home}] + feed[:args.training_pages - 1]:
        st.cache_page(cid, x["url"], {"url": x["url"], "html": page_html(r, args.words)})
    st.save_blog(cid, rules={f: {"rule": v, "share": 0.9} for f, v in RULES.items()},
                 pattern=r"^https://blog\d+\.example\.org/\d{4}/\d{2}/[^/]+/$", trained_on=len(feed))
    # listing pages: pagination, tags, categories, monthly archives
    listings = [f"{home}page/{i}/" for i in range(1, posts // 10 + 2)]
    listings += [f"{home}tag/{WORDS[i % len(WORDS)]}-{i}/"
                 for i in range(max(0, int(posts * args.listing_ratio) - len(listings)))]
    st.enqueue(cid, {home: 2e6})
    st.enqueue(cid, {u: float(r.randint(0, 10)) for u in listings})
    st.enqueue(cid, {x["url"]: 1e6 for x in records})
    json_bytes = 0
    by_url = {x["url"]: x for x in records}
    while True:
        urls = st.dispatch(cid, 64, 10**9)
        if not urls:
            break
        for u in urls:
            st.r.hincrby(f"{k.crawl}:attempts", u, 1)
            rec = by_url.get(u)
            if rec is not None:
                st.save_record(cid, rec, content_hash(rec), args.stream_maxlen or 10**9)
                json_bytes += len(json.dumps(rec, ensure_ascii=False, sort_keys=True).encode())
            else:
                st.add_sample(cid, u, r.randint(0, 10))
            st.mark_done(cid, u)
            st.incr(cid, "pages")
        for i in range(0, len(urls), 8):  # workers report progress errors now and then
            if r.random() < 0.02:
                st.add_error(cid, urls[i], "http", "HTTP 404 Not Found")
    st.maybe_finish(cid, 10**9)
    return cid, json_bytes


def update_crawl(st: State, b: int, posts: int, args, r: random.Random) -> None:
    """An update crawl as workers/pipeline.py runs it: feed, home and 5 pages re-fetched to
    check the rules, then the feed's posts (unchanged here: nothing is streamed)."""
    home = f"https://blog{b}.example.org/"
    cid = st.create_crawl(home, "2024-01-01T00:00:00+00:00", {"update": True})
    st.set_state(cid, "running")
    k = Keys(cid)
    r2 = random.Random(f"{args.seed}|{b}")  # the same posts as the first crawl of this blog
    feed = [post(r2, home, i, args.words, args.comments) for i in range(min(posts, args.feed_entries))]
    st.save_entries(cid, [{"url": x["url"], "title": x["title"], "content_html": x["content_html"],
                           "authors": x["authors"], "published": x["published"]} for x in feed])
    for x in [{"url": home}] + feed[:5]:
        st.cache_page(cid, x["url"], {"url": x["url"], "html": page_html(r, args.words)})
    st.enqueue(cid, {home: 2e6, **{x["url"]: 1e6 for x in feed}})
    while urls := st.dispatch(cid, 64, 10**9):
        for u in urls:
            st.r.hincrby(f"{k.crawl}:attempts", u, 1)
            st.mark_done(cid, u)
            st.incr(cid, "pages")
    st.maybe_finish(cid, 10**9)


def used(st: State) -> int:
    return int(st.r.info("memory")["used_memory"])


def group(key: str) -> str:
    """The docs/state.md name of a key: bh:{B}:crawl:C:seen -> crawl:C:seen."""
    if key.startswith("bh:{"):
        rest = key.split("}:", 1)[1]
        return "crawl:C:" + rest.split(":", 2)[2] if rest.startswith("crawl:") and rest.count(":") >= 2 \
            else ("crawl:C" if rest.startswith("crawl:") else rest)
    return key


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--blogs", type=int, default=4)
    ap.add_argument("--posts", type=int, default=500, help="posts per blog")
    ap.add_argument("--words", type=int, default=700, help="mean words per post")
    ap.add_argument("--comments", type=float, default=3.0, help="mean comments per post")
    ap.add_argument("--feed-entries", type=int, default=20)
    ap.add_argument("--training-pages", type=int, default=11, help="pages cached for learning (home + entries)")
    ap.add_argument("--listing-ratio", type=float, default=0.3, help="non-post pages per post")
    ap.add_argument("--stream-maxlen", type=int, default=0,
                    help="cap of the bh:records stream (0: no cap within this run)")
    ap.add_argument("--update-crawls", type=int, default=3, help="update crawls per blog after the first")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)

    r = random.Random(a.seed)
    with tempfile.TemporaryDirectory(prefix="bh-bench-redis-") as d:
        server = RedisServer(Path(d), persist=False).start()
        try:
            st = State.from_url(server.url)
            st.r.flushall()
            base = used(st)
            t0 = time.perf_counter()
            json_total, cids = 0, []
            for b in range(a.blogs):
                cid, jb = crawl_blog(st, b, a.posts, a, random.Random(f"{a.seed}|{b}"))
                json_total += jb
                cids.append(cid)
            elapsed = time.perf_counter() - t0
            total = used(st) - base
            sizes: dict[str, int] = defaultdict(int)
            for key in st.r.scan_iter(count=1000):
                sizes[group(key)] += int(st.r.memory_usage(key, samples=0) or 0)
            before = used(st)
            for b in range(a.blogs):
                for _ in range(a.update_crawls):
                    update_crawl(st, b, a.posts, a, r)
            per_update = (used(st) - before) / max(1, a.blogs * a.update_crawls)
            n = a.blogs * a.posts
            per_k = lambda x: x * 1000 / n  # noqa: E731
            fixed = sizes.get("crawl:C:pages", 0) + sizes.get("crawl:C:entries", 0)
            print(f"redis-server {st.r.info('server')['redis_version']}; {a.blogs} blogs x {a.posts} posts "
                  f"({n} posts, {a.words} words/post, {a.comments} comments/post), {elapsed:.1f} s")
            print(f"records as JSON: {json_total / n:,.0f} bytes/post")
            print(f"used_memory delta: {total:,} bytes = {per_k(total) / 2**20:,.2f} MiB per 1,000 posts")
            print(f"  of which per-crawl learning cache (pages, entries): {fixed / a.blogs / 2**20:,.2f} MiB "
                  f"per crawl")
            print(f"  without the stream: {per_k(total - sizes.get(STREAM, 0)) / 2**20:,.2f} MiB per 1,000 posts")
            print(f"each update crawl leaves {per_update / 2**10:,.0f} KiB (its keys are never deleted)")
            print("per key group, bytes per 1,000 posts (MEMORY USAGE):")
            for g, v in sorted(sizes.items(), key=lambda kv: -kv[1]):
                print(f"  {g:24} {per_k(v):>14,.0f}")
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
