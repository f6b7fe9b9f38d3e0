"""Links that are an item's control, not a page to read: "Reply" under every comment.

A comment engine prints under each comment a link to a form for answering it (Drupal's
/comment/reply/131/2453, one URL a comment): a blog of 2,500 comments has 2,500 such URLs,
each a page with nothing of the blog's (one such blog: 2,340 of a crawl's 3,332 requests).
They are told by what they share, with no word list: one anchor text (numbers aside: a
listing's "Comments (3)" under each post opening its comments' own page, 184 requests of a
Movable Type blog) on MIN_REPEATS links or more, each to another URL of one shape (digits
aside), and no target that another link of the page names otherwise; an anchor of numbers
alone is no control's. A "Read more" under each listed post is no such group: the post's title
links its target too. The caller keeps the links its post pattern takes in. Pure functions.
"""
from __future__ import annotations

import re
import urllib.parse
from collections import defaultdict

from tasks.discover.urls import canonical
from tasks.fetch.html import node_text

MIN_REPEATS = 3  # links sharing one anchor text before they are a control repeated per item
MAX_WORDS = 3  # a control's anchor text is short ("Reply", "Odpovědět", "Quote this")


def _shape(url: str) -> str:
    p = urllib.parse.urlsplit(url)
    return re.sub(r"\d+", "N", f"{p.netloc}{p.path}?{'&'.join(sorted(k for k, _ in urllib.parse.parse_qsl(p.query)))}")


def _key(text: str) -> str:
    """An anchor text with its numbers as N: "Comments (3)" and "Comments (12)" are one control's."""
    return re.sub(r"\d+", "N", " ".join(text.split()).casefold())


def item_controls(root, base_url: str, keep=lambda url: False) -> set[str]:
    """The canonical URLs the page links only as a control repeated per item; a group holding
    a URL `keep` says is a page to read (a listing: an archive widget's "July" under each year)
    is none. (Every page's links pass here: URLs are resolved only on pages where some short
    anchor text links three places or more.)"""
    if root is None:
        return set()
    anchors = []  # (text, href) of every link
    raw: dict[str, set[str]] = defaultdict(set)
    for a in root.iter("a"):
        href = (a.get("href") or "").strip()
        if not href or href.startswith("#") or href.lower().startswith(("javascript:", "mailto:")):
            continue
        shown = node_text(a)
        text = _key(shown)
        anchors.append((text, href))
        if text and len(text.split()) <= MAX_WORDS and re.search(r"[^\W\d_]", shown):
            raw[text].add(href)
    if not any(len(hrefs) >= MIN_REPEATS for hrefs in raw.values()):
        return set()
    by_text: dict[str, set[str]] = defaultdict(set)
    texts_of: dict[str, set[str]] = defaultdict(set)
    for text, href in anchors:
        try:
            url = canonical(urllib.parse.urljoin(base_url, href)).split("#")[0]
        except ValueError:
            continue
        texts_of[url].add(text)
        if text in raw:
            by_text[text].add(url)
    out: set[str] = set()
    for text, urls in by_text.items():
        if len(urls) < MIN_REPEATS or len({_shape(u) for u in urls}) != 1:
            continue
        if any(texts_of[u] != {text} for u in urls) or any(keep(u) for u in urls):
            continue  # a target another link names otherwise ("Read more" beside the post's title)
        out |= urls
    return out
