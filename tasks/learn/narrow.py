"""A content rule whose block holds the page around the post, narrowed to the post's own block (issue 31).

Algorithm 2 takes the node most similar to the entry's content; where that content is itself
too wide (a pseudo feed's entry read by the page-level extractor, a feed whose content carries
the title) the elected rule selects a block holding the post's title and date too, and with
them a byline, labels, a sidebar. Such a block is recognised on the training pages by the title
(or date) rule's node lying inside it. Each page then votes for the descendant of the block
that holds none of those nodes and most of the block's text that is the page's own (text pieces
that recur on most training pages are the template: a sidebar, "0 comments"); a descendant
elected by most pages becomes the content rule, the wide rule its last runner-up. Where the
post's paragraphs sit beside its title with no wrapper of their own, no descendant holds most
of the text and the rule stays as it is.
"""
from __future__ import annotations

from collections import Counter

from tasks.fetch.html import parse_html
from tasks.learn.rules import apply_rule, element_rules
from tasks.text.similarity import normalize_text

__all__ = ["narrowed_content", "pieces", "selects_alone"]

OWN_SHARE = 0.6  # share of the block's own text (template and title aside) the post's block must hold
ELECTED = 0.5  # share of the training pages that must elect the same narrower rule
MAX_FORMS = 12  # rule forms a page votes for (those that select its block alone)


def _rule(rules: dict, field: str) -> str | None:
    v = rules.get(field)
    return v.get("rule") if isinstance(v, dict) else v if isinstance(v, str) else None


def _first_element(root, rule: str | None):
    if not rule:
        return None
    try:
        found = apply_rule(root, rule)
    except Exception:  # a rule that does not apply to this page: no node
        return None
    for r in found:
        el = r if not isinstance(r, str) else getattr(r, "getparent", lambda: None)()
        if el is not None and isinstance(el.tag, str):
            return el
    return None


def pieces(el) -> list[str]:
    """The element's text pieces, normalised, the empty ones aside."""
    return [p for p in (normalize_text(t) for t in el.itertext()) if p]


def _inside(node, block) -> bool:
    return any(a is block for a in node.iterancestors())


def _page(html: str, url: str, rules: dict) -> tuple | None:
    """(block, marks inside it) of one training page, or None where the block holds no mark."""
    root = parse_html(html, url)
    block = _first_element(root, _rule(rules, "content"))
    if block is None:
        return None
    marks = [m for m in (_first_element(root, _rule(rules, f)) for f in ("title", "date")) if m is not None]
    marks = [m for m in marks if _inside(m, block)]
    return (block, marks) if marks else None


def _own(el, template: set[str], skip: set) -> int:
    """Characters of the element's text that are the page's own: template pieces and the text
    of the marks (`skip`: their pieces) aside."""
    return sum(len(p) for p in pieces(el) if p not in template and p not in skip)


def _vote(block, marks: list, template: set[str]) -> list[str]:
    """The rule forms of the descendant of `block` that holds no mark and most of its own text,
    if it holds OWN_SHARE of the block's; else no vote."""
    skip = {p for m in marks for p in pieces(m)}
    total = _own(block, template, skip)
    if not total:
        return []
    holders = {a for m in marks for a in m.iterancestors()} | set(marks)
    best, best_n = None, 0
    for d in block.iterdescendants():
        if not isinstance(d.tag, str) or d in holders or any(_inside(d, m) for m in marks):
            continue
        n = _own(d, template, skip)
        if n > best_n:
            best, best_n = d, n
    if best is None or best_n < OWN_SHARE * total:
        return []
    root = best.getroottree().getroot()
    return [f for f in element_rules(best, MAX_FORMS) if selects_alone(root, f, best)]


def selects_alone(root, rule: str, node) -> bool:
    """Does `rule` select `node` alone (a rule selecting several blocks reads as a listing's:
    tasks.discover.recognise)?"""
    try:
        hits = [n for n in apply_rule(root, rule) if not isinstance(n, str)]
    except Exception:
        return False
    return len(hits) == 1 and hits[0] is node


def narrowed_content(rules: dict, pages: list[tuple[str, str, dict]]) -> tuple[dict, str | None]:
    """(rules, note): `rules` with the content rule narrowed where its block holds the title or
    date rule's node on most training pages and most pages elect one narrower block; else
    `rules` unchanged and no note. pages: [(html, url, entry)]."""
    content = rules.get("content")
    if not isinstance(content, dict) or not content.get("rule") or content.get("use") == "generic":
        return rules, None
    found = [p for p in (_page(html, url, rules) for html, url, _ in pages) if p]
    if len(found) <= ELECTED * len(pages):
        return rules, None
    seen = Counter(p for block, _ in found for p in set(pieces(block)))
    template = {p for p, n in seen.items() if n >= max(2, len(found) / 2)}
    votes = Counter()
    for block, marks in found:
        for form in dict.fromkeys(_vote(block, marks, template)):
            votes[form] += 1
    if not votes:
        return rules, None
    best, n = max(votes.items(), key=lambda kv: kv[1])  # first-counted form wins ties: a page's first
    if n <= ELECTED * len(pages):
        return rules, None
    wide = content["rule"]
    fallbacks = [r for r in (content.get("fallbacks") or []) if r not in (best, wide)] + [wide]
    out = dict(rules, content=dict(content, rule=best, share=round(n / len(pages), 4), fallbacks=fallbacks))
    return out, (f"content rule {wide} holds the post's title or date and the page around it on"
                 f" {len(found)} of {len(pages)} training pages: narrowed to {best}, the block {n} pages elect")
