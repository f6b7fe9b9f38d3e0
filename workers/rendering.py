"""JavaScript rendering of a crawl's pages (`--js auto|always|never`).

`decide` runs once per crawl at discovery (does this blog need a browser?) and
`page` is called for every fetched page; it returns the page to extract from, rendered
by headless Chromium (a per-worker pool, tasks/render.py) when the crawl needs it.
"""
from __future__ import annotations


def decide(rt, crawl_id: str, entries: list[dict], pages: dict[str, dict]) -> bool:
    """Whether this crawl renders pages; `pages` maps entry URL -> {"url", "html"} already fetched."""
    return rt.state.options(crawl_id).get("js") == "always"


def page(rt, crawl_id: str, url: str, fetched: dict) -> dict:
    """The page to extract from: `fetched` ({"url", "html"}) or its rendered DOM."""
    return fetched
