"""The number of comments a post page prints ("6 comments", "3 yorum", "Kommentare (5)").

Pages print it beside their comments or in a post's footer; it tells how many comments the page
holds (where no script adds more), which judges what a comment rule reads.
"""
from __future__ import annotations

import re

from tasks.fetch.js_need import COMMENT_WORDS

__all__ = ["shown_count"]

# a count of comments as pages print it, in more languages than the markup's names need
# ("6 komentarzy", "3 yorum", "5 комментариев", "12 σχόλια", "4 hozzászólás", "2 条评论")
_COUNT_WORDS = COMMENT_WORDS + r"|koment|komment|yorum|коммент|комент|σχόλι|hozzászól|bình luận|댓글|コメント|条?评论|評論|留言|تعليق|دیدگاه|תגוב"
_COUNT = re.compile(rf"(\d+)\s*(?:{_COUNT_WORDS})", re.I)
# the word first, the number after it in brackets ("Kommentare (5)", "Comments [3]")
_COUNT_AFTER = re.compile(rf"(?:{_COUNT_WORDS})\w*\s*(?:\(\s*(\d+)\s*\)|\[\s*(\d+)\s*\])\s*$", re.I)


def shown_count(root) -> int:
    """The largest comment count the page prints in a heading or a short line, else 0."""
    best = 0
    for el in root.iter("h1", "h2", "h3", "h4", "a", "span", "div", "p"):
        t = (el.text or "").strip()
        if t and len(t) <= 40:
            m = _COUNT.match(t)
            if m:
                best = max(best, int(m.group(1)))
                continue
            m = _COUNT_AFTER.match(t)
            if m:
                best = max(best, int(next(g for g in m.groups() if g)))
    return best
