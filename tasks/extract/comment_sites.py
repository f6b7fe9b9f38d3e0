"""The links a post's comments name their authors by: no pages of the blog to read.

A commenter's name links to the commenter's own site, on another host, or through the blog
engine's redirect to it on the blog's own host (Movable Type's `mt-comments.cgi?__mode=red&id=N`,
one per comment: 249 of one such blog's 608 requests, each a redirect off the blog,
issue 33). The blog's comment rule says where each comment's name is: the link that is the
name, holds it, or sits inside it is the author's. Pure functions.
"""
from __future__ import annotations

from tasks.discover.urls import extract_links
from tasks.learn.comment_nodes import elements, is_ancestor, own_matches
from tasks.learn.rules import apply_rule

MAX_COMMENTS = 2000  # comment blocks looked at on one page (a hostile page may hold many more)


def _link_of(name, container):
    """The link element a comment's name node is, holds, or sits in (inside its comment)."""
    if name.tag == "a":
        return name
    up = next((a for a in name.iterancestors("a")), None)
    if up is not None and is_ancestor(container, up):
        return up
    return next(name.iter("a"), None)


def author_links(root, rule: dict | None, base_url: str) -> set[str]:
    """The canonical URLs the page's comments link their authors' names to, by the blog's
    comment rule; none where the rule names no name element (a name read off the date line)."""
    if root is None or not isinstance(rule, dict) or not rule.get("container") or not rule.get("author") \
            or rule.get("author_line"):
        return set()
    try:
        containers = elements(apply_rule(root, rule["container"]))[:MAX_COMMENTS]
        nested = set(containers)
        out: set[str] = set()
        for c in containers:
            name = next(iter(own_matches(c, rule["author"], nested)), None)
            link = _link_of(name, c) if name is not None and isinstance(name.tag, str) else None
            if link is not None:
                out.update(extract_links(link, base_url))
        return out
    except Exception:  # a rule this page cannot evaluate: nothing known of its names
        return set()
