"""The post's footer line cut out of a content block that ends with it (issue 31).

Where a template puts its "Posted by NAME at DATE" line inside the block that holds the
post's paragraphs (Movable Type's blogbody, many hand-made themes), the content rule selects
that block and every post's text ends with its own byline. The footer is the block's last
child with text, when it is short (a byline, not a paragraph of the post) and names the
post's own day: it is left out of the content (on a copy; the page is not changed).
"""
from __future__ import annotations

import copy

from tasks.text.dates import near_day, parse_date

__all__ = ["without_footer"]

FOOTER_CHARS = 120  # characters a footer line holds at most
FOOTER_SHARE = 0.3  # and at most this share of the block's text


def _text(el) -> str:
    return " ".join("".join(el.itertext()).split())


def without_footer(block, published: str | None, lang: str | None = None):
    """A copy of `block` without its last child when that is a short line naming the post's
    day (`published`), else `block` itself."""
    if block is None or not published or isinstance(block, str):
        return block
    kids = [k for k in block if isinstance(k.tag, str)]
    with_text = [k for k in kids if _text(k)]
    if len(with_text) < 2:
        return block
    last = with_text[-1]
    if (last.tail or "").strip() or any((k.tail or "").strip() for k in kids[kids.index(last) + 1:]):
        return block  # text after it: it is not the block's end
    text = _text(last)
    if len(text) > min(FOOTER_CHARS, FOOTER_SHARE * len(_text(block))):
        return block
    day = parse_date(text, lang)
    if not day or not near_day(day[:10], published[:10], 0):
        return block
    out = copy.deepcopy(block)
    out.remove(out[block.index(last)])
    return out
