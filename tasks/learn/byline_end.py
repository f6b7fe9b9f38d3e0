"""Does the post end at its byline? Learned on the training pages for the content rule's node.

A template may print the post's text loose in one element with its "Posted by NAME : DATE" line
after it, and the trackbacks, the comments and the comment form after that, all in the same
element (Movable Type's `div.content`): the content rule can only select that element. Where the
date rule reads a line inside the content node, after text of the post, and on the training
pages the text cut at that line is the post's (closer to the feed's content on most pages and
further on none; without a feed, what follows it begins with the same words on most pages: the
template's trackback and comment headings), the rule's content is marked `ends_at_date` and every
post's content is cut at its date line (tasks.extract.footer.cut_from).
"""
from __future__ import annotations

from collections import Counter

from tasks.extract.footer import cut_from
from tasks.fetch.html import block_text
from tasks.text.similarity import normalize_text, token_f1

__all__ = ["ends_at_date"]

MIN_PAGES = 3  # training pages the date line lies inside the content node on, at least
BETTER = 0.02  # token F1 with the feed's content the cut must gain on a page
SHARED_SHARE = 0.6  # pages whose text after the line begins alike, without a feed
OPENING_WORDS = 3  # the words compared (no word with a digit)


def _tokens(s: str) -> list[str]:
    return normalize_text(s).casefold().split()


def ends_at_date(nodes: list, dates: list, feed_texts: list) -> bool:
    """nodes: the content rule's node per training page (None: none); dates: the date rule's node
    per page; feed_texts: the feed's content per page (None: none or a pseudo entry)."""
    better = worse = 0
    openings = []
    for node, date, said in zip(nodes, dates, feed_texts):
        if node is None or date is None or date is node:
            continue
        cut = cut_from(node, date)  # (None: the line lies outside the node)
        if cut is None or not block_text(cut).strip():
            continue  # the line opens the node (a header's date): the post follows it
        whole, kept = block_text(node), block_text(cut)
        after = whole[len(kept):] if whole.startswith(kept) else ""
        words = [w for w in _tokens(after.replace(block_text(date), "", 1)) if not any(c.isdigit() for c in w)]
        openings.append(" ".join(words[:OPENING_WORDS]) or None)  # (a trackback URL's number differs)
        if said:
            gain = token_f1(said, kept) - token_f1(said, whole)
            better += gain > BETTER
            worse += gain < -BETTER
    if better or worse:  # the feed's contents are the evidence where there are any
        return better >= MIN_PAGES and not worse
    if len(openings) < MIN_PAGES:
        return False
    common, n = Counter(o for o in openings if o).most_common(1)[0] if any(openings) else (None, 0)
    return common is not None and n >= SHARED_SHARE * len(openings)
