"""A post's content without its comments, where the content rule selects both.

A content rule learned on a feed whose posts had few comments may select an element that
holds the comment section too (an article with its comments inside). The comment rule then
finds the comments inside the content; the comment area (the blocks, widened by what little
comes with them: the section's heading, its form) is cut from the content, which keeps what
the post itself says. Pure functions over lxml elements.
"""
from __future__ import annotations

import copy

from tasks.fetch.html import block_text, node_text, to_html
from tasks.learn.comment_nodes import is_ancestor
from tasks.learn.rules import apply_rule

__all__ = ["content_without_comments", "comment_area"]

AREA_EXTRA = 400  # characters an ancestor may add to the comments (a heading, a form) and still be their area


def _common(nodes: list):
    """The lowest element holding every one of `nodes`."""
    chain = [nodes[0]] + list(nodes[0].iterancestors())
    for anc in chain:
        if all(n is anc or is_ancestor(anc, n) for n in nodes[1:]):
            return anc
    return None


def comment_area(content, blocks: list):
    """The element inside `content` that holds the comment `blocks` and little else, or None
    when they are not inside it (or it would be the whole content)."""
    inside = [b for b in blocks if is_ancestor(content, b)]
    if not inside:
        return None
    area = _common(inside)
    if area is None or area is content or not is_ancestor(content, area):
        return None
    while area.getparent() is not None and area.getparent() is not content \
            and len(node_text(area.getparent())) - len(node_text(area)) < AREA_EXTRA:
        area = area.getparent()
    return area


def content_without_comments(content, container_rule: str | None) -> tuple[str, str] | None:
    """(text, html) of `content` with its comment area cut, or None when it holds no comments."""
    if content is None or not container_rule:
        return None
    try:
        blocks = [b for b in apply_rule(content.getroottree().getroot(), container_rule) if not isinstance(b, str)]
    except Exception:  # a rule this page cannot evaluate: nothing to cut
        return None
    area = comment_area(content, blocks)
    if area is None:
        return None
    path = content.getroottree().getpath(area)[len(content.getroottree().getpath(content)):]
    cut = copy.deepcopy(content)
    found = cut.xpath("." + path)
    if not found:
        return None
    target = found[0]
    parent = target.getparent()
    if target.tail:  # the text after the area stays
        prev = target.getprevious()
        if prev is not None:
            prev.tail = (prev.tail or "") + target.tail
        else:
            parent.text = (parent.text or "") + target.tail
    parent.remove(target)
    text = block_text(cut)  # blocks apart, as the rules' content reads
    return (text, to_html(cut)) if text else None
