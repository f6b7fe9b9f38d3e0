"""One gate from a response to a page: every place that reads or caches a fetched page as
HTML (discovery, training, --js auto, comment sampling, rules checks, the traversal) goes
through `html_page`, so binary bytes served as text/html never reach the page cache, and
from there the rules or the page-level fallback (which would read a "post" from garbage).

What passes is a `tasks.fetch.page.Page`: decoded once here, parsed once where first read,
and handed down to every stage. The crawl's page cache keeps its JSON form {"url", "html"}.

A page the blog answered 404 or 410 is gone for the rest of the crawl: the cache keeps that
answer ({"gone": status}), and every stage after the first gets it without asking again (a
feed listing fifteen posts at addresses its mirror does not serve: each asked four times)."""
from __future__ import annotations

from tasks.fetch.errors import FetchError
from tasks.fetch.page import Page

GONE = (404, 410)  # statuses that hold for the rest of a crawl


def looks_html(resp) -> bool:
    """An HTML (or XML) page by its content type or its first bytes, and not binary bytes."""
    ctype = (resp.content_type or "").lower()
    if getattr(resp, "looks_binary", False):
        return False
    if not ctype or "html" in ctype or "xml" in ctype or ctype.startswith("text/plain"):
        head = resp.content[:1024].lstrip().lower()
        return "html" in ctype or head.startswith((b"<!doctype", b"<html", b"<head", b"<body", b"<"))
    return False


def html_page(resp, url: str | None = None) -> Page | None:
    """The Page of a response that is an HTML page (`url`: the one asked for), else None
    (binary, not HTML, or text that decodes to mostly control/replacement characters)."""
    if not looks_html(resp):
        return None
    page = Page.from_response(resp, url)
    return None if page.garbled else page


def usable(page) -> bool:
    """A page held as text (cached or rendered) that is one: not garbled binary."""
    return page is not None and not page.garbled


def not_html_message(resp) -> str:
    return f"not an HTML page ({resp.content_type or 'no content type'}, {len(resp.content)} bytes)"


def cached(rt, crawl_id: str, url: str) -> Page | None:
    """The crawl's cached page at `url` (learning and traversal share what discovery fetched);
    None where none is, or where the blog said it is gone (page_at raises that answer again)."""
    raw = rt.state.cached_page(crawl_id, url)
    return None if raw is None or "gone" in raw else Page.from_cached(raw, url)


def gone(rt, crawl_id: str, url: str) -> bool:
    """Did the blog answer 404 or 410 for `url` in this crawl (`remember_gone`)?"""
    raw = rt.state.cached_page(crawl_id, url)
    return raw is not None and "gone" in raw


def gone_error(raw: dict, url: str) -> FetchError | None:
    """The FetchError a cached answer of 404 or 410 stands for, or None for a page."""
    if "gone" not in raw:
        return None
    return FetchError("http_status", url, raw.get("message") or f"HTTP {raw['gone']}", status=raw["gone"])


def remember_gone(rt, crawl_id: str, url: str, e: FetchError) -> None:
    """Keep a 404 or 410 for the rest of the crawl (no stage asks the blog again)."""
    if e.kind == "http_status" and e.status in GONE:
        rt.state.cache_page(crawl_id, url, {"gone": e.status, "message": e.message})


def fetched(rt, crawl_id: str, url: str, **get) -> Page | None:
    """`url` fetched now (`get`: the downloader's options; FetchError raised) and cached when it is
    an HTML page; None when it is not (nothing to read, and not to be cached as a page: the
    traversal reports it). A 404 or 410 is cached as such (`remember_gone`)."""
    try:
        page = html_page(rt.downloader.get(url, **get), url)
    except FetchError as e:
        remember_gone(rt, crawl_id, url, e)
        raise
    if page is not None:
        rt.state.cache_page(crawl_id, url, page.cached())
    return page


def page_at(rt, crawl_id: str, url: str, **get) -> Page | None:
    """The cached page at `url`, else fetched (and cached) now; FetchError raised, a cached 404 or
    410 too (`gone_error`: not asked again)."""
    raw = rt.state.cached_page(crawl_id, url)
    if raw is not None and (e := gone_error(raw, url)):
        raise e
    return (Page.from_cached(raw, url) if raw is not None else None) or fetched(rt, crawl_id, url, **get)
