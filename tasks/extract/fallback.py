"""The page-level extractor: one post page read with no rules learned for its blog.

Used twice: to make training entries for a blog without a usable feed (its content is
the target Algorithm 2 learns the content rule from), and, page by page, where the
learned rules find nothing on a post (template drift, a special post). It is slower
than the rules (a whole-page boilerplate analysis, trafilatura, instead of one XPath per
field), so the traversal runs it only where the rules failed.

Title, date and authors come first from what the page says of itself (JSON-LD, meta,
`<time datetime>`, `<title>` against its headings: tasks.extract.page_facts), then from
trafilatura's own metadata reader (tasks.extract.generic).
"""
from __future__ import annotations

from tasks.extract.generic import page_content
from tasks.extract.page_facts import page_facts, self_description
from tasks.fetch.charset import garbled
from tasks.text.similarity import normalize_text

__all__ = ["GENERIC_NOTE", "fallback_extract", "page_content", "whole_page"]

WHOLE_PAGE = 0.8  # share of the page's words a "content" holds that makes it the page, not a post

GENERIC_NOTE = ("; no rules learned: every page is read by the page-level extractor (a post: an article"
                " with a date), and rules are learned from the first posts it finds")


def fallback_extract(html: str, url: str | None = None, facts: dict | None = None, root=None) -> dict:
    """`extract_post`'s output for a page read without rules: content from the page-level
    extractor (run once), title/date/authors from the page's own description first (`root`:
    the page already parsed)."""
    if garbled(html):  # binary bytes decoded: nothing to read, and nothing to invent
        return {"title": None, "content_text": None, "content_html": None, "authors": [], "published": None}
    facts = facts if facts is not None else page_facts(html, url, content=False, root=root)
    own = self_description(facts)
    got = page_content(html, url, root=root)
    return {"title": _not_site_name(own.get("title") or got["title"], html, url, root),
            "content_text": got["content_text"], "content_html": got["content_html"],
            "authors": own.get("authors") or got["authors"],
            "published": own.get("published") or _iso(got["published"])}


def whole_page(text: str | None, root, title: str | None = None) -> bool:
    """Is `text` (the page-level extractor's content) the whole page rather than a post: most
    of the body's words, the post's title among them? On a one-line post the extractor finds
    no article and keeps everything (site name, byline, comment form, sidebar)."""
    from collections import Counter

    from tasks.fetch.html import node_text

    body = root.find(".//body") if root is not None else None
    if not text or body is None:
        return False
    # characters, not words: a page in a script without spaces between words counts too
    words = Counter(normalize_text(text).casefold().replace(" ", ""))
    page = Counter(node_text(body).casefold().replace(" ", ""))
    if not page or sum((words & page).values()) < WHOLE_PAGE * sum(page.values()):
        return False
    return not title or normalize_text(title).casefold() in normalize_text(text).casefold()


def _not_site_name(title: str | None, html: str, url: str | None, root) -> str | None:
    """The title unless it is the site's name (an untitled post is untitled)."""
    if not title:
        return None
    from tasks.extract.metadata import declared_site_names
    from tasks.fetch.html import parse_html

    names = declared_site_names(root if root is not None else parse_html(html, url))
    return None if normalize_text(title).casefold() in names else title


def _iso(value: str | None) -> str | None:
    from tasks.text.dates import parse_date

    return parse_date(value) if value else None
