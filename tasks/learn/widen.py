"""A content rule that reads one part of a post, widened to the post's whole block.

Where the blog gives no post's full content of its own (an excerpt feed, no feed), the content
rule is learned on the page-level extractor's reading of the training pages (the entries'
`content_from`, the pseudo entries), and Algorithm 2's vote elects the node most pages agree
on. A theme that lays each post out in parts (a page builder's rows and panels: a heading, the
text, a code box, a download box) puts most short posts in one part, and the elected rule reads
that part alone: on a post of three parts, a third of the post.

Recognised on the training pages by the layout itself: the rule's node (or an ancestor of it
holding no title, date or comment node) is one of several siblings of the same tag and class,
and on several pages those other parts hold prose of the page's own (not the template's
recurring pieces, not lists of links: a sidebar's related posts). Their parent, by the rule form
most pages elect that selects it alone, is then the content rule, the narrow one its last
fallback. Only where no training entry carries the feed's full content: a feed's content would
have elected the whole block itself. (The page-level reading is no judge here: it leaves out a
post's code and download parts that the post holds.)
"""
from __future__ import annotations

import re
from collections import Counter

from tasks.learn.narrow import pieces, selects_alone
from tasks.learn.rules import apply_rule, element_rules
from tasks.text.similarity import normalize_text

__all__ = ["widened_content"]

MIN_PAGES = 3  # fewer training pages are no evidence
UP = 6  # ancestors looked at above the rule's node
GAIN = 0.15  # share of the training pages (two at least) whose other parts must hold text
MIN_PART, PART = 100, 0.2  # characters of the page's own text the other parts hold: at least, and of the node's
ELECTED = 0.5  # share of the widened pages that must elect one form of the ancestor's rule
MAX_FORMS = 12
_COMMENTISH = re.compile(r"comment|respond|reply|discussion", re.I)
_STOP = {"body", "html"}
_BLOCKS = {"div", "section", "article", "aside", "ol", "ul", "li", "form", "footer"}  # a code span's "comment" class is no comment


def _first(root, rule: str | None):
    if not rule:
        return None
    try:
        return next((n for n in apply_rule(root, rule) if isinstance(getattr(n, "tag", None), str)), None)
    except Exception:  # a rule that does not apply to this page: no node
        return None


def _rule(rules: dict, field: str) -> str | None:
    v = rules.get(field)
    return v.get("rule") if isinstance(v, dict) and v.get("use") != "generic" else None


def _holds_marks(el, marks: list) -> bool:
    if any(m is el or any(a is el for a in m.iterancestors()) for m in marks):
        return True
    return any(_COMMENTISH.search(f"{d.get('id') or ''} {d.get('class') or ''}")
               for d in el.iter(*_BLOCKS))


def _ancestors(node, marks: list) -> list:
    """The node's ancestors, nearest first, up to one that holds the title, date or comments."""
    out = []
    for a in node.iterancestors():
        if len(out) >= UP or a.tag in _STOP or _holds_marks(a, marks):
            break
        out.append(a)
    return out


def _prose(el) -> list[str]:
    """The element's text pieces outside links, scripts and styles."""
    out = []
    for d in el.iter():
        if not isinstance(d.tag, str):
            continue
        if d.tag not in ("a", "script", "style") and d.text:
            out.append(d.text)
        if d is not el and d.tail:
            out.append(d.tail)
    return [p for p in (normalize_text(t) for t in out) if p]


def _twins(a, parent) -> list:
    """`a`'s siblings of the same tag and class: the other parts of a layout of parts."""
    return [c for c in parent if c is not a and c.tag == a.tag and (c.get("class") or "") == (a.get("class") or "")]


def _selects_one(root, rule: str) -> bool:
    try:
        return sum(isinstance(getattr(n, "tag", None), str) for n in apply_rule(root, rule)) == 1
    except Exception:
        return False


def widened_content(rules: dict, pages: list[tuple[str, str, dict]], roots: list) -> tuple[dict, str | None]:
    """(rules, note): `rules` with the content rule widened to the block whose parts its node is
    one of, where the other parts hold text of the page's own on several training pages (above);
    else unchanged and no note. pages: [(html, url, entry)]; roots: the pages parsed, in order."""
    content = rules.get("content")
    if not isinstance(content, dict) or not content.get("rule") or content.get("use") == "generic":
        return rules, None
    seen = []  # (root, chain: the rule's node and its ancestors up to a title, date or comment holder)
    for root in roots:
        node = _first(root, content["rule"])
        if node is None or not _selects_one(root, content["rule"]):
            continue
        marks = [m for m in (_first(root, _rule(rules, f)) for f in ("title", "date")) if m is not None]
        seen.append((root, [node] + _ancestors(node, marks)))
    n = len(seen)
    if n < MIN_PAGES:
        return rules, None
    counted = Counter(p for _, chain in seen for p in set(pieces(chain[-1])))
    template = {p for p, c in counted.items() if c >= max(2, n / 2)}
    for k in range(UP):
        reach = [(root, chain) for root, chain in seen if len(chain) > k + 1]
        parted = 0
        for _, chain in reach:
            own = sum(len(p) for p in pieces(chain[0]) if p not in template)
            more = sum(len(p) for t in _twins(chain[k], chain[k + 1]) for p in _prose(t) if p not in template)
            parted += more >= max(MIN_PART, PART * own)
        if parted < max(2, GAIN * n):
            continue
        votes = Counter()
        for root, chain in reach:
            for form in dict.fromkeys(element_rules(chain[k + 1], MAX_FORMS)):
                if selects_alone(root, form, chain[k + 1]):
                    votes[form] += 1
        if not votes:
            return rules, None
        best, elected = max(votes.items(), key=lambda kv: kv[1])
        if elected <= ELECTED * n:
            return rules, None
        narrow = content["rule"]
        fallbacks = [r for r in (content.get("fallbacks") or []) if r not in (best, narrow)] + [narrow]
        out = dict(rules, content=dict(content, rule=best, fallbacks=fallbacks))
        return out, (f"content rule {narrow} reads one of the post's parts: on {parted} of {n} training pages"
                     f" parts like it beside it hold more of the post's text: widened to {best}")
    return rules, None
