"""The generic extractor: trafilatura as a library, one page read with no rules at all.

The bottom of the page-level reading: tasks.extract.page_facts and tasks.extract.fallback
build on it, and tasks.learn.pseudo_feed makes training entries from it. It is slower than
the rules (a whole-page boilerplate analysis instead of one XPath per field).
"""
from __future__ import annotations

import copy
import html as htmllib

from tasks.fetch.html import block_text, parse_html, to_html
from tasks.text.similarity import normalize_text

MIN_CONTENT_CHARS = 40  # less than this is no article: the extractor found navigation


def _trafilatura(html: str, url: str | None):
    import trafilatura  # imported here: a worker that never falls back never loads it

    try:
        # include_comments: trafilatura then sets comments apart; without it they join the body
        return trafilatura.bare_extraction(html, url=url, with_metadata=True, include_comments=True,
                                           include_formatting=True, include_links=True,
                                           include_images=True, include_tables=True)
    except Exception:  # trafilatura on a hostile page: no content, never a failed crawl
        return None


def _body_html(doc) -> str | None:
    """trafilatura's XML body (p, head, list, ref, hi, lb ...) as HTML."""
    body = getattr(doc, "body", None)
    if body is None or not len(body):
        return None
    try:
        from trafilatura.htmlprocessing import convert_to_html

        tree = convert_to_html(copy.deepcopy(body))
        tree.tag = "div"
        return to_html(tree)
    except Exception:  # an internal helper changed: paragraphs of plain text will do
        text = getattr(doc, "text", "") or ""
        return "<div>" + "".join(f"<p>{htmllib.escape(p)}</p>" for p in text.split("\n") if p.strip()) + "</div>"


def page_content(html: str, url: str | None = None) -> dict:
    """{"content_html", "content_text", "title", "authors", "published"} as trafilatura
    reads the page (None where it found nothing)."""
    doc = _trafilatura(html, url)
    if doc is None:
        return {"content_html": None, "content_text": None, "title": None, "authors": [], "published": None}
    body = _body_html(doc)
    # its paragraphs and list items apart (tasks.fetch.html.block_text), as the rules' content reads
    text = block_text(parse_html(body)) if body else normalize_text(getattr(doc, "text", "") or "")
    if len(text) < MIN_CONTENT_CHARS:
        body, text = None, ""
    author = getattr(doc, "author", None) or ""
    authors = [a.strip() for a in author.split(";") if a.strip()]
    return {"content_html": body, "content_text": text or None, "title": getattr(doc, "title", None) or None,
            "authors": authors, "published": getattr(doc, "date", None) or None}
