"""The blocks of text the content rule's node holds on every post: the template's, not the post's.

A content node that is the container around a post (the post's paragraphs sit loose in it,
with no wrapper of their own) also holds what the template puts there on every page: a
"this blog is no longer updated" banner, a share line, "Comments", "Comments are closed".
Read on the training pages, a block (paragraph, heading, list item) whose text the node holds
word for word on most of them is the template's; the blog's content rule keeps those texts
(`template`), and each post's content is read without them (tasks.extract.post).
"""
from __future__ import annotations

from collections import Counter

from tasks.fetch.html import without_elements
from tasks.text.similarity import normalize_text

__all__ = ["template_blocks", "without_template", "BLOCKS"]

BLOCKS = ("p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "dd", "dt", "figcaption")
MIN_PAGES = 4  # training pages the content node was read on, before a block can be told the template's
SHARED_SHARE = 0.6  # a block on more than this share of them is the template's
MIN_CHARS = 12  # shorter texts ("Share", "Tags:") say too little to be told apart
MAX_KEPT = 30  # template texts kept per blog
MAX_CHARS = 300  # and their length


def _blocks(node) -> list:
    """The outermost block elements inside `node` (not `node` itself)."""
    return [el for el in node.iter(*BLOCKS) if el is not node and _outermost(el, node)]


def _outermost(el, node) -> bool:
    """Is `el` inside `node` with no block element between them?"""
    for a in el.iterancestors():
        if a is node:
            return True
        if a.tag in BLOCKS:
            return False
    return False


def _above(node, title) -> list:
    """The blocks of `node` that end before `title` starts (document order)."""
    if title is None or isinstance(title, str):
        return []
    elems = list(node.getroottree().getroot().iter())  # (held: each node keeps its one proxy, so its id)
    pos = {id(e): i for i, e in enumerate(elems)}
    at = pos.get(id(title))
    if at is None:
        return []
    return [el for el in _blocks(node) if max(pos.get(id(d), at) for d in el.iter()) < at]


def _key(el) -> str | None:
    text = normalize_text("".join(el.itertext()))
    return text.casefold() if MIN_CHARS <= len(text) <= MAX_CHARS else None


def template_blocks(nodes: list, above: list | None = None) -> list[str]:
    """The texts of the blocks most of `nodes` (the content rule's node on each training page)
    hold; none where the rule was read on too few pages. `above`: per page, the post's title
    node, above which alone blocks are counted (where no feed tells a post's own recurring words,
    "send us a pull request!", from the template's: what stands above a post's title is no part of it)."""
    pairs = [(n, t) for n, t in zip(nodes, above or [None] * len(nodes))
             if n is not None and isinstance(getattr(n, "tag", None), str)]
    if len(pairs) < MIN_PAGES or (above is not None and not any(t is not None for _, t in pairs)):
        return []
    count = Counter(k for n, t in pairs for k in {_key(el) for el in (_blocks(n) if above is None else _above(n, t))} if k)
    nodes = [n for n, _ in pairs]
    shared = [k for k, c in count.most_common() if c >= 2 and c > SHARED_SHARE * len(nodes)]
    return shared[:MAX_KEPT]


def without_template(node, template: list[str] | None):
    """A copy of `node` without the blocks whose text is one of `template`; `node` itself where
    none is there, or where nothing else would be left."""
    if node is None or not template or isinstance(node, str):
        return node
    keys = set(template)
    return without_elements(node, _blocks, lambda el: _key(el) in keys)
