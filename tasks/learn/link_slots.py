"""The link blocks the template puts inside the content node: tags, share, related posts.

A content node that holds the post's paragraphs loose also holds the template's lines of
links below them: "Tags: a, b", "Share: ...", "See also" and a list of other posts. Their
words differ from post to post, so they are no template text (tasks.learn.template_blocks),
but their place does not: the same element (tag with its id or classes) inside the node on
most training pages, made mostly of link text. The blog's content rule keeps those elements'
signatures (`link_slots`), and each post's content is read without such an element where it
is made of links on that page too (tasks.extract.post).
"""
from __future__ import annotations

from collections import Counter

from tasks.fetch.html import without_elements

__all__ = ["link_slots", "without_link_slots"]

MIN_PAGES = 4  # training pages the content node was read on
SHARED_SHARE = 0.6  # a slot on more than this share of them is the template's
LINK_SHARE = 0.5  # of an element's text in links, at least: a line of links
MAX_SHARE = 0.5  # of the node's text an element holds at most (a wrapper of the post is no line)
MAX_SLOTS = 10
TEXT_BLOCKS = ("p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "td", "th", "dd", "dt",
               "figcaption", "table")


def _text_len(el) -> int:
    return len("".join("".join(el.itertext()).split()))


def _link_len(el) -> int:
    return sum(_text_len(a) for a in el.iter("a") if not any(p.tag == "a" for p in a.iterancestors()))


def signature(el) -> str | None:
    """tag#id, or tag.classes (sorted); None for an element the template marks with neither."""
    if not isinstance(el.tag, str):
        return None
    if el.get("id"):
        return f"{el.tag}#{el.get('id')}"
    classes = sorted((el.get("class") or "").split())
    return f"{el.tag}.{'.'.join(classes)}" if classes else None


def _lines(node) -> list:
    """The outermost elements inside `node` that are lines of links: marked, made mostly of link
    text, and short beside the node."""
    whole = _text_len(node)
    out = []

    def walk(el):
        for kid in el:
            if not isinstance(kid.tag, str) or kid.tag == "a":
                continue  # a link alone is no line of links (a post's own link, marked by its markup)
            n = _text_len(kid)
            if signature(kid) and n and n <= MAX_SHARE * whole and _link_len(kid) >= LINK_SHARE * n:
                out.append(kid)
            elif n and kid.tag not in TEXT_BLOCKS:
                walk(kid)  # (inside a paragraph, links are the post's words)

    walk(node)
    return out


def link_slots(nodes: list) -> list[str]:
    """The signatures of the lines of links most of `nodes` (the content rule's node on each
    training page) hold."""
    nodes = [n for n in nodes if n is not None and isinstance(getattr(n, "tag", None), str)]
    if len(nodes) < MIN_PAGES:
        return []
    count = Counter(s for n in nodes for s in {signature(el) for el in _lines(n)})
    return [s for s, c in count.most_common(MAX_SLOTS) if c >= 2 and c > SHARED_SHARE * len(nodes)]


def without_link_slots(node, slots: list[str] | None):
    """A copy of `node` without its lines of links in `slots`; `node` itself where it has none,
    or where nothing else would be left."""
    if node is None or not slots or isinstance(node, str):
        return node
    keys = set(slots)
    return without_elements(node, _lines, lambda el: signature(el) in keys)
