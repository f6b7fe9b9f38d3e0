"""Gather a crawl's report from Redis and write it (`blogharvest report`, `crawl --report`)."""
from __future__ import annotations

import json

from tasks.archive.report import render_html, summarise


def facts(state, crawl_id: str) -> dict | None:
    """The report's facts for one crawl, or None when there is no such crawl."""
    info = state.crawl_info(crawl_id)
    if not info:
        return None
    blog = state.blog(crawl_id)
    announced = dict(info.get("announced") or {})
    if blog.get("entry_urls"):
        announced.setdefault("feed entries", len(blog["entry_urls"]))
    f = summarise(info, blog, state.crawl_records(crawl_id), state.errors(crawl_id, 10_000), announced)
    return f


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
