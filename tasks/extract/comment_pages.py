"""Which of a post's comment pages the post page itself is.

A blog that splits a post's comments over pages (comment-page-N/, ?cpage=N, ?commentPage=N)
shows one of them at the post's own URL: the first, or the last (the newest comments). The
other pages link it by its number, and reading it again under that number is a request for
nothing (issue 33: each post with paged comments read it). The post page's own pagination
says which it is: the number it marks current (`aria-current`, class `current`), a link marked
next (rel or class: its number less one) or previous (its number plus one). Where all of them
agree, that number's URL is the post page's. Labels ("Older comments") are not read: themes
disagree on which way is older.
"""
from __future__ import annotations

import re
import urllib.parse

from tasks.extract.comments import comment_page_links

_NUMBER = re.compile(r"(comment-page-|[?&](?:cpage|commentPage|comment_page|comments_page)=)(\d+)", re.I)
_NEXT = re.compile(r"(?:^|[\s_-])next(?:$|[\s_-])", re.I)
_PREV = re.compile(r"(?:^|[\s_-])prev(?:ious)?(?:$|[\s_-])", re.I)
LEVELS = 2  # ancestors of a link whose class may mark its way (div.nav-previous > a)
AROUND = 3  # ancestors of a link searched for the number marked current


def _way(a) -> str | None:
    """"next" or "prev" where the link or a near ancestor is marked so (rel, class)."""
    marks = [a.get("rel") or "", a.get("class") or ""]
    node = a.getparent()
    for _ in range(LEVELS):
        if node is None:
            break
        marks.append(node.get("class") or "")
        node = node.getparent()
    ways = {w for m in marks for w, pat in (("next", _NEXT), ("prev", _PREV)) if pat.search(m)}
    return ways.pop() if len(ways) == 1 else None


def _current(a) -> int | None:
    """The number marked current in the pagination around a comment page link, if one is."""
    node = a
    for _ in range(AROUND):
        if node.getparent() is None:
            break
        node = node.getparent()
    for el in node.iter():
        if not isinstance(el.tag, str) or el.tag == "a":
            continue
        marked = el.get("aria-current") == "page" or "current" in (el.get("class") or "").split()
        text = "".join(el.itertext()).strip()
        if marked and text.isdigit():
            return int(text)
    return None


def own_comment_page(root, post_url: str) -> str | None:
    """The URL under which the post page's own comment page is linked, where its pagination says
    which it is; None where it says nothing, or contradicts itself."""
    if root is None:
        return None
    pages = set(comment_page_links(root, post_url))
    if not pages:
        return None
    numbers: set[int] = set()
    template = None
    for a in root.iter("a"):
        href = (a.get("href") or "").strip()
        u = urllib.parse.urljoin(post_url, href).split("#")[0] if href else None
        m = _NUMBER.search(u) if u in pages else None
        if not m:
            continue
        template = template or (u, m)
        n, way = int(m.group(2)), _way(a)
        if way:
            numbers.add(n - 1 if way == "next" else n + 1)
        current = _current(a)
        if current is not None:
            numbers.add(current)
    if template is None or len(numbers) != 1:
        return None
    own = numbers.pop()
    u, m = template
    return u[:m.start(2)] + str(own) + u[m.end(2):] if own >= 1 else None
