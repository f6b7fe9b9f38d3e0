"""The post's header cut out of a content block that holds it (issue 31).

Where a post's paragraphs sit beside its heading with no wrapper of their own, the content
rule selects the block around both, and the post's text would start with its title, its date,
"3 min read". The header is the largest block around the title node, inside the content
block, that holds little more than the title and less than half the block's text: it is left out
of the content, with what little the template prints above it (a "« Previous | Main | Next »"
line, the day's heading). The page is not changed: the cut is made on a copy.
"""
from __future__ import annotations

import copy

from tasks.fetch.html import drop_keeping_tail

__all__ = ["without_header"]

HEADER_EXTRA = 120  # characters beside the title a header holds at most (a date, a reading time, a byline)
HEADER_SHARE = 0.5  # and at most this share of the block's text: the rest is the post


def _path(block, node) -> list[int] | None:
    """Child indices from `block` down to `node`, or None where `node` is not inside `block`."""
    path = []
    while node is not None and node is not block:
        parent = node.getparent()
        if parent is None:
            return None
        path.append(parent.index(node))
        node = parent
    return path[::-1] if node is block else None


def _text_len(el) -> int:
    return len(" ".join("".join(el.itertext()).split()))


def without_header(block, title_node, title: str | None):
    """A copy of `block` without the header around `title_node`, or `block` itself where the title
    node is not inside it (or is the block) or no block around it is short enough."""
    if block is None or title_node is None or isinstance(title_node, str) or not title:
        return block
    path = _path(block, title_node)
    if not path:
        return block
    limit = min(len(title) + HEADER_EXTRA, HEADER_SHARE * _text_len(block))
    header, depth = None, None
    el = block
    for d, i in enumerate(path):  # from the block down: the first (largest) short ancestor is the header
        el = el[i]
        if _text_len(el) <= limit:
            header, depth = el, d
            break
    if header is None:
        return block
    out = copy.deepcopy(block)
    target = out
    for i in path[:depth + 1]:
        target = target[i]
    _without_preamble(out, target, limit)
    drop_keeping_tail(target)  # (the text after the header stays)
    return out


def _without_preamble(block, header, limit: float) -> None:
    """Cut from `block` (a copy) what comes before the post's `header` inside it, where that is
    short (`limit`): the template's line above the title (Movable Type's "« Previous | Main |
    Next »" and the day's heading, a category label). Nothing is cut where it says more."""
    loose, el = [], header
    while el is not block and el.getparent() is not None:
        parent = el.getparent()
        loose += [k for k in parent if isinstance(k.tag, str) and parent.index(k) < parent.index(el)]
        el = parent
    if not loose or sum(_text_len(k) for k in loose) > limit \
            or any(True for k in loose for _ in k.iter("img", "picture", "video", "iframe", "table")):
        return  # (a picture above the title is the post's)
    for k in loose:
        drop_keeping_tail(k)
