"""A post's content without its comments, where the content rule selects both.

A content rule learned on a feed whose posts had few comments may select an element that
holds the comment section too (an article with its comments inside). The comment rule then
finds the comments inside the content; the comment area (the blocks, widened by what little
comes with them: the section's heading, its form) is cut from the content, which keeps what
the post itself says. Pure functions over lxml elements.
"""
from __future__ import annotations

import copy

from tasks.extract.footer import MEDIA
from tasks.fetch.html import block_text, drop_keeping_tail, node_text, to_html
from tasks.learn.comment_nodes import LINE_CHARS, date_value, is_ancestor
from tasks.learn.comment_slots import footer_of
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
    said = sum(len(node_text(k)) for b in inside for k in (b, footer_of(b)) if k is not None)
    if len(node_text(area)) - said > max(AREA_EXTRA, said):
        return None  # (broken markup: an element left open holds the post's last part and the comments)
    while area.getparent() is not None and area.getparent() is not content \
            and len(node_text(area.getparent())) - len(node_text(area)) < AREA_EXTRA:
        area = area.getparent()
    return area


HEAD_CHARS = 40  # a short element just before the comments is their heading ("Comments")
NOTE_CHARS = 200  # what follows the comments to the content's end, at most, is their note ("Comments are closed")


def _with_edges(content, area) -> list:
    """The comment `area` with its heading (a short element just before it, no link) and, where it is a
    child of the content and only a short note follows it to the end ("Comments are closed"),
    that note: the comment section's own parts, the content's edge after the post."""
    parent = area.getparent()
    out = [area]
    prev = area.getprevious()
    while prev is not None and not isinstance(prev.tag, str):
        prev = prev.getprevious()
    if prev is not None and 0 < len(node_text(prev)) <= HEAD_CHARS and not any(True for _ in prev.iter(*MEDIA, "a")) \
            and not (area.tail or "").strip() and not (prev.tail or "").strip():
        out.insert(0, prev)
    if parent is content:
        after = [k for k in area.itersiblings() if isinstance(k.tag, str)]
        if after and sum(len(node_text(k)) for k in after) <= NOTE_CHARS and not any(
                True for k in after for _ in k.iter(*MEDIA)) and not any((k.tail or "").strip() for k in [area, *after]):
            out.extend(k for k in after if node_text(k))
    return out


def _tail_run(content, blocks: list) -> list:
    """The comment blocks that are the content's own last children, with the short heading before
    them (Movable Type: the post's body, then "Comments" and the blocks beside it, all in one
    element; each block with the "Posted by" line after it, where that names it), where nothing
    else with text comes after the first of them; [] otherwise."""
    kids = [k for k in content if isinstance(k.tag, str)]
    blocks = [b for b in blocks if node_text(b)]  # (an empty block the rule takes in says nothing: a post's "more" anchor)
    mine = {id(k) for b in blocks for k in (b, footer_of(b)) if k is not None}  # with the line naming each
    first = next((i for i, k in enumerate(kids) if id(k) in mine), None)
    if first is None or first == 0:
        return []
    run = kids[first:]
    # (a short dated line after a block is its "Posted by: Ann at DATE", where no pair repeats: one comment)
    mine |= {id(k) for k in run if id(k) not in mine and len(node_text(k)) <= LINE_CHARS and date_value(k)}
    if any(id(k) not in mine and node_text(k) for k in run):
        return []  # the post goes on after them: not a comment section
    head = kids[first - 1]
    if 0 < len(node_text(head)) <= HEAD_CHARS and first > 1:
        run = [head] + run
    return run


def _blocks_alone(content, blocks: list) -> list:
    """The comment blocks, each with the line naming it, where an element left open inside the
    content (broken markup) holds the post's last part and then the comments: its children from
    the first block on are blocks, their lines and short headings ("Post a comment") only; the
    post's part before them stays. [] otherwise."""
    inside = [b for b in blocks if is_ancestor(content, b) and node_text(b)]
    holder = _common(inside) if inside else None
    if holder is None or holder is content or any(b is holder for b in inside):
        return []
    kids = [k for k in holder if isinstance(k.tag, str)]
    mine = {id(k) for b in inside for k in (b, footer_of(b)) if k is not None}
    first = next((i for i, k in enumerate(kids) if id(k) in mine), None)
    if first is None or any(id(k) not in mine and len(node_text(k)) > HEAD_CHARS for k in kids[first:]):
        return []  # (a block nested in another, or the post going on after them)
    return [k for k in kids[first:] if id(k) in mine]


def content_without_comments(content, container_rule: str | None, then=None) -> tuple[str, str] | None:
    """(text, html) of `content` with its comment area cut (and then `then(block)`: the edge lines
    cut, tasks.extract.footer), or None when it holds no comments."""
    if content is None or not container_rule:
        return None
    try:
        blocks = [b for b in apply_rule(content.getroottree().getroot(), container_rule) if not isinstance(b, str)]
    except Exception:  # a rule this page cannot evaluate: nothing to cut
        return None
    area = comment_area(content, blocks)
    areas = _with_edges(content, area) if area is not None else (_tail_run(content, blocks) or _blocks_alone(content, blocks))
    if not areas:
        return None
    tree = content.getroottree()
    paths = [tree.getpath(a)[len(tree.getpath(content)):] for a in areas]
    cut = copy.deepcopy(content)
    targets = [found[0] for p in paths if (found := cut.xpath("." + p))]
    if len(targets) != len(areas):
        return None
    for target in targets:
        drop_keeping_tail(target)
    if then is not None:
        cut = then(cut)
    text = block_text(cut)  # blocks apart, as the rules' content reads
    return (text, to_html(cut)) if text else None
