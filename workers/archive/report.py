"""Gather a crawl's report from Redis and write it (`blogharvest report`, `crawl --report`)."""
from __future__ import annotations

import json

from tasks.archive.report import render_html, summarise
from tasks.discover.urls import is_post
from tasks.discover.recency import entry_day
from workers.state import Keys


def facts(state, crawl_id: str) -> dict | None:
    """The report's facts for one crawl, or None when there is no such crawl."""
    info = state.crawl_info(crawl_id)
    if not info:
        return None
    blog = state.blog(crawl_id)
    announced = dict(info.get("announced") or {})
    if blog.get("entry_urls"):
        announced.setdefault("feed entries", len(blog["entry_urls"]))
    errors = state.errors(crawl_id, 10_000)
    f = summarise(info, blog, state.crawl_records(crawl_id), errors, announced)
    f["not_found"] = not_found(state, crawl_id, blog, errors)
    f["update"] = update_facts(state, crawl_id, info, f)
    return f


def update_facts(state, crawl_id: str, info: dict, f: dict | None = None) -> dict | None:
    """An update crawl's part (issue 35): since, pages read, left unread by reason, and a plain
    word where the dates could not narrow it (since before every post, or no post dated)."""
    from workers.discover import update

    raw = state.r.hgetall(Keys(crawl_id).crawl)
    u = update.summary(dict(info, raw=raw))
    if u is None or u.get("note"):
        return u
    undated = (f or {}).get("posts_per_month", {}).get("undated", 0) if f else 0
    posts = (f or {}).get("posts", 0)
    if not u["skipped"] and info.get("state") == "done":
        if posts and undated == posts:
            u["note"] = ("no post of this blog shows a date the crawl could read: every page was "
                         "read, as in a full crawl")
        else:
            u["note"] = (f"nothing could be left unread: since {u['since']} is before every post "
                         "the blog dates (a full crawl)")
    return u


MAX_EXAMPLES = 20  # announced posts not found, listed by URL in the report


def not_found(state, crawl_id: str, blog: dict, errors: list[dict]) -> dict:
    """The posts the blog announces (its feed's entries; its sitemaps' URLs that the post patterns
    take in) that gave no record, each with why: an error, read but not a post, queued but never
    read (the crawl's budget), never queued. {"count", "by_reason": {reason: n}, "examples": [...]}."""
    k = Keys(crawl_id)
    with state.r.pipeline(transaction=False) as p:
        p.hgetall(k.sources)
        p.smembers(k.posts)
        p.hkeys(k.records)
        sources, posts, records = p.execute()
    pattern = blog.get("pattern")
    announced = [u for u, src in sources.items()
                 if src == "feed" or (src == "sitemap" and pattern and is_post(u, pattern))]
    missing = _in_window(state, crawl_id, [u for u in announced if u not in posts and u not in records])
    if not missing:
        return {"count": 0, "by_reason": {}, "examples": []}
    with state.r.pipeline(transaction=False) as p:
        for u in missing:
            p.sismember(k.done, u)
            p.sismember(k.seen, u)
        flags = p.execute()
    failed = {e.get("url"): f"{e.get('kind')}: {e.get('message')}" for e in errors if e.get("url")}
    by_reason, examples = {}, []
    for i, u in enumerate(missing):
        done, seen = flags[2 * i], flags[2 * i + 1]
        why = failed.get(u) or ("read, not taken for a post" if done else
                                "queued, never read (the crawl ended first)" if seen else "never queued")
        key = why.split(":")[0] if u in failed else why
        by_reason[key] = by_reason.get(key, 0) + 1
        if len(examples) < MAX_EXAMPLES:
            examples.append({"url": u, "source": sources[u], "why": why})
    return {"count": len(missing), "by_reason": by_reason, "examples": examples}


def _in_window(state, crawl_id: str, urls: list[str]) -> list[str]:
    """`urls` without those an update crawl leaves out of its output by their date: an entry
    published before its `since` (read within the day's margin, or not at all) is not missing."""
    since = state.r.hget(Keys(crawl_id).crawl, "since") if urls else None
    if not since or not state.options(crawl_id).get("update") or state.options(crawl_id).get("scheduled"):
        return urls
    entries = state.r.hmget(Keys(crawl_id).entries, urls)
    out = []
    for u, e in zip(urls, entries):
        day = entry_day({"url": u, **json.loads(e)} if e else {"url": u})
        if not (day and day < since[:10]):
            out.append(u)
    return out


def write(state, crawl_id: str, html_path: str | None = None, as_json: bool = False) -> dict | None:
    f = facts(state, crawl_id)
    if f is None:
        return None
    if html_path:
        with open(html_path, "w", encoding="utf-8") as out:
            out.write(render_html(f))
    if as_json:
        print(json.dumps(f, indent=1))
    return f
