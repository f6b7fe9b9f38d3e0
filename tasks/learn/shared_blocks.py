"""The template's text cut out of a pseudo feed's content targets.

Without a feed, a post's target content is what the page-level extractor reads on its page
(tasks.learn.pseudo_feed). On a page whose post sits loose beside the sidebar, that reading
takes the sidebar's paragraphs in too ("About me", the latest tweets, a "comments are closed"
notice): then the content rule that matches the target best is the whole page. A block of
text that the readings of most of the template's pages hold word for word is the site's, not
a post's: it is left out of every target, so that the rule is learned on what differs.
"""
from __future__ import annotations

from collections import Counter

import lxml.html

from tasks.fetch.html import drop_keeping_tail
from tasks.text.similarity import normalize_text

BLOCKS = ("p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "dd", "dt", "td", "th")
MIN_PAGES = 4  # targets before a block can be told shared
SHARED_SHARE = 0.5  # a block on more than this share of the pages' targets is the template's
MIN_CHARS = 20  # shorter blocks ("Share", "Tags") say too little to be told apart


def _blocks(root) -> list:
    return [el for el in root.iter(*BLOCKS) if not any(a.tag in BLOCKS for a in el.iterancestors())]


def _key(el) -> str | None:
    text = normalize_text(el.text_content() or "")
    return text.casefold() if len(text) >= MIN_CHARS else None


def without_shared_blocks(htmls: list[str | None]) -> list[str | None]:
    """The content HTML of each target without the blocks most targets hold (unchanged where
    there are too few targets, or where cutting would leave a target empty)."""
    roots = []
    for html in htmls:
        try:
            roots.append(lxml.html.fragment_fromstring(html, create_parent="div") if html else None)
        except (ValueError, lxml.etree.ParserError):
            roots.append(None)
    present = [r for r in roots if r is not None]
    if len(present) < MIN_PAGES:
        return htmls
    count = Counter(k for r in present for k in {_key(el) for el in _blocks(r)} if k)
    shared = {k for k, n in count.items() if n >= 2 and n > SHARED_SHARE * len(present)}
    if not shared:
        return htmls
    out = []
    for html, root in zip(htmls, roots):
        if root is None:
            out.append(html)
            continue
        cut = [el for el in _blocks(root) if _key(el) in shared]
        if not cut or len(cut) == len(_blocks(root)):
            out.append(html)
            continue
        for el in cut:
            drop_keeping_tail(el)
        out.append(lxml.html.tostring(root, encoding="unicode"))
    return out
