"""Comments of a post: its comment feed, and the page's comments when the feed overflows.

The pipeline calls `comments_for` for every post page; see tasks/comments.py for the
pure parts (comment feeds, rule learning by maximum weighted bipartite matching).
"""
from __future__ import annotations


def comments_for(rt, crawl_id: str, url: str, entry: dict | None, page: dict, root) -> list[dict]:
    """[{"author", "published", "content_text", "parent"?, "url"?}] of one post."""
    return []
