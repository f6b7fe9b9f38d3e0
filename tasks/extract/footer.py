"""The post's byline and date lines cut out of a content block that holds them (issue 31).

Where a template puts its "Posted by NAME at DATE" line, or its day heading ("October 12,
2003"), inside the block that holds the post's paragraphs (Movable Type's blog and blogbody,
many hand-made themes), the content rule selects that block and every post's text starts with
its own day and ends with its own byline. An edge line is the block's first or last line with
text (looked for down through the edge child, where no text stands beside it): when it is short
(a line, not a paragraph of the post) and names the post's own day, or is a byline naming the
post's author, it is left out of the content (on a copy; the page is not changed).
"""
from __future__ import annotations

import copy

from tasks.text.dates import near_day, parse_date

__all__ = ["without_footer", "cut_from", "cut_keeping"]

FOOTER_CHARS = 120  # characters an edge line holds at most
FOOTER_SHARE = 0.3  # and at most this share of the block's text
ONLY_LINE_CHARS = 60  # ... unless every text child of the block is a line this short (a photo post's day and byline)
BYLINE_WORDS = 6  # words a byline holds beside the author's name ("Posted by", "at 10:20 PM")
MAX_DEPTH = 4  # levels looked down through an edge child
MEDIA = ("img", "video", "audio", "iframe", "object", "embed", "picture")  # never cut with a line


def _text(el) -> str:
    return " ".join("".join(el.itertext()).split())


def _edge_path(block, last: bool) -> list[int]:
    """Child indices from `block` down to each candidate edge line, outermost first: at each level
    the first (last) child with text, where no text stands before (after) it at that level."""
    out, path, el = [], [], block
    for _ in range(MAX_DEPTH):
        kids = [k for k in el if isinstance(k.tag, str)]
        with_text = [k for k in kids if _text(k)]
        if len(with_text) < (2 if el is block else 1):
            break
        edge = with_text[-1] if last else with_text[0]
        if last:
            after = kids[kids.index(edge):]
            if any((k.tail or "").strip() for k in after):
                break  # text after it: it is not the block's end
        else:
            before = kids[:kids.index(edge)]
            if (el.text or "").strip() or any((k.tail or "").strip() for k in before):
                break  # text before it: it is not the block's start
        path = path + [el.index(edge)]
        out.append(path)
        el = edge
    return out


def _is_line(text: str, published: str | None, authors: list[str], lang: str | None) -> bool:
    """Does a short line name the post's own day, or is it a byline naming its author?"""
    if published:
        day = parse_date(text, lang)
        if day and near_day(day[:10], published[:10], 0):
            return True
    low = text.lower()
    for a in authors:
        a = " ".join((a or "").split())
        if len(a) >= 2 and a.lower() in low:
            rest = low.replace(a.lower(), " ").split()
            return len(rest) <= BYLINE_WORDS
    return False


def _only_lines(block, path: list[int], text: str) -> bool:
    """A post with no text of its own (a photo post): the block holds little beside its edge
    lines, so the share test cannot tell them; each of its text children is such a line."""
    lines = [_text(k) for k in block if isinstance(k.tag, str) and _text(k)]
    return len(lines) <= 3 and all(len(t) <= ONLY_LINE_CHARS for t in lines)


def without_footer(block, published: str | None, lang: str | None = None, authors: list[str] | None = None):
    """A copy of `block` without its first and last lines where they are short lines naming the
    post's day (`published`) or bylines naming one of its `authors`, else `block` itself."""
    if block is None or isinstance(block, str) or not (published or authors):
        return block
    whole = len(_text(block))
    cut = []
    for last in (True, False):
        for path in _edge_path(block, last):
            el = block
            for i in path:
                el = el[i]
            text = _text(el)
            if len(text) > FOOTER_CHARS or any(True for _ in el.iter(*MEDIA)):
                continue  # a paragraph of the post, or a block around more than the line (its photos)
            if _is_line(text, published, authors or [], lang) and (
                    len(text) <= FOOTER_SHARE * whole or _only_lines(block, path, text)):
                cut.append(path)
                break
    if not cut:
        return block
    out = copy.deepcopy(block)
    for path in sorted(cut, reverse=True):  # the last line first: the first's indices stay right
        el = out
        for i in path:
            el = el[i]
        parent = el.getparent()
        if el.tail and el.tail.strip():
            continue
        parent.remove(el)
    return out


def _path(block, el) -> list[int] | None:
    """Child indices from `block` down to `el`, or None where `el` does not lie inside it."""
    path = []
    while el is not block:
        parent = el.getparent()
        if parent is None:
            return None
        path.append(parent.index(el))
        el = parent
    return path[::-1]


def _at(block, path: list[int]):
    for i in path:
        block = block[i]
    return block


def cut_from(block, marker):
    """A copy of `block` without `marker` (an element inside it) and all that follows it in the
    block (the post's footer, trackbacks and comments after its byline); None where `marker`
    does not lie inside `block`."""
    return cut_keeping(block, marker, None)[0]


def cut_keeping(block, marker, keep):
    """(`cut_from(block, marker)`, the copy in it of `keep`, an element of `block` before the
    marker (the post's title), or None)."""
    path = _path(block, marker)
    if path is None:
        return None, None
    kept = _path(block, keep) if keep is not None else None
    out = copy.deepcopy(block)
    chain = [_at(out, path[:i + 1]) for i in range(len(path))]
    kept_copy = _at(out, kept) if kept is not None and kept < path else None  # (before the marker: kept)
    for node in reversed(chain):  # from the marker up: what follows each level goes
        parent = node.getparent()
        for sib in list(node.itersiblings()):
            parent.remove(sib)
        if node is chain[-1]:
            parent.remove(node)  # (its tail with it)
        else:
            node.tail = None
    return out, kept_copy
