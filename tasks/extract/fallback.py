"""The page-level extractor: one post page read with no rules learned for its blog.

Used twice: to make training entries for a blog without a usable feed (its content is
the target Algorithm 2 learns the content rule from), and, page by page, where the
learned rules find nothing on a post (template drift, a special post). It is slower
than the rules (a whole-page boilerplate analysis, trafilatura, instead of one XPath per
field), so the traversal runs it only where the rules failed.

Title, date and authors come first from what the page says of itself (JSON-LD, meta,
`<time datetime>`, `<title>` against its headings: tasks.learn.pseudo_feed.page_facts),
then from trafilatura's own metadata reader.
"""
from __future__ import annotations

import copy
import html as htmllib

from tasks.fetch.charset import garbled
from tasks.fetch.html import html_to_text, to_html
from tasks.text.similarity import normalize_text

MIN_CONTENT_CHARS = 40  # less than this is no article: the extractor found navigation
GENERIC_NOTE = ("; no rules learned: every page is read by the page-level extractor (a post: an article"
                " with a date), and rules are learned from the first posts it finds")


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
    text = normalize_text(html_to_text(body)) if body else normalize_text(getattr(doc, "text", "") or "")
    if len(text) < MIN_CONTENT_CHARS:
        body, text = None, ""
    author = getattr(doc, "author", None) or ""
    authors = [a.strip() for a in author.split(";") if a.strip()]
    return {"content_html": body, "content_text": text or None, "title": getattr(doc, "title", None) or None,
            "authors": authors, "published": getattr(doc, "date", None) or None}


def fallback_extract(html: str, url: str | None = None, facts: dict | None = None, root=None) -> dict:
    """`extract_post`'s output for a page read without rules: content from the page-level
    extractor (run once), title/date/authors from the page's own description first (`root`:
    the page already parsed)."""
    from tasks.learn.pseudo_feed import page_facts, self_description  # (pseudo_feed imports this module)

    if garbled(html):  # binary bytes decoded: nothing to read, and nothing to invent
        return {"title": None, "content_text": None, "content_html": None, "authors": [], "published": None}
    facts = facts if facts is not None else page_facts(html, url, content=False, root=root)
    own = self_description(facts)
    got = page_content(html, url)
    return {"title": own.get("title") or got["title"],
            "content_text": got["content_text"], "content_html": got["content_html"],
            "authors": own.get("authors") or got["authors"],
            "published": own.get("published") or _iso(got["published"])}


def _iso(value: str | None) -> str | None:
    from tasks.text.dates import parse_date

    return parse_date(value) if value else None
