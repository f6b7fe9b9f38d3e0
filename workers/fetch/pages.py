"""One gate from a response to a page: every place that reads or caches a fetched page as
HTML (discovery, training, --js auto, comment sampling, rules checks, the traversal) goes
through `html_page`, so binary bytes served as text/html never reach the page cache, and
from there the rules or the page-level fallback (which would read a "post" from garbage)."""
from __future__ import annotations

from tasks.fetch.charset import garbled


def looks_html(resp) -> bool:
    """An HTML (or XML) page by its content type or its first bytes, and not binary bytes."""
    ctype = (resp.content_type or "").lower()
    if getattr(resp, "looks_binary", False):
        return False
    if not ctype or "html" in ctype or "xml" in ctype or ctype.startswith("text/plain"):
        head = resp.content[:1024].lstrip().lower()
        return "html" in ctype or head.startswith((b"<!doctype", b"<html", b"<head", b"<body", b"<"))
    return False


def html_page(resp) -> dict | None:
    """{"url", "html"} of a response that is an HTML page, else None (binary, not HTML, or
    text that decodes to mostly control/replacement characters)."""
    if not looks_html(resp):
        return None
    html = resp.text
    if garbled(html):
        return None
    return {"url": resp.url, "html": html}


def usable(page: dict | None) -> bool:
    """A page held as text (cached or rendered) that is one: not garbled binary."""
    return page is not None and not garbled(page.get("html"))


def not_html_message(resp) -> str:
    return f"not an HTML page ({resp.content_type or 'no content type'}, {len(resp.content)} bytes)"
