"""A blog's comment rule with no comment feed: the repeated blocks after the posts' content.

Comments are the one part of a post page made of many sibling subtrees of one shape, each
with a short name (the author), often a date, and a longer text; replies repeat the same
shape one level down (li > ol > li). The paper matches such blocks against a feed; with
no feed we let several posts agree instead:

1. every element after the post's content that looks like a comment (a short and a longer
   text in it) proposes group rules (tasks.learn.comment_rules.group_rules);
2. a rule is kept where at least COMMENT_LIKE of the nodes it returns look like comments,
   all after the content, and it returns several on some post; the rule with the most
   nodes that are one comment each (no comment-like block below them left out), then the
   most nodes, then found on the most posts, wins;
3. slots inside the container, voted over every container of every post: the text (the
   longest text, without the name), the author (a short text, not a date, that differs
   between comments: a "Reply" button does not), the date (a node a date parses from).

The result has the shape of a feed-learned rule ({"container", "author", "date", "text"},
plus "author_prefix"/"author_suffix" when every name is printed inside the same words),
and tasks.extract.comments applies it. Pure functions over lxml roots.
"""
from __future__ import annotations

import re
from collections import Counter

from tasks.learn.comment_nodes import DATE_ATTRS, date_value, elements, first, is_ancestor
from tasks.fetch.html import node_text
from tasks.learn.comment_rules import group_rules, relative_rules
from tasks.learn.rules import apply_rule

__all__ = ["learn_comment_blocks", "looks_like_comment"]

COMMENT_LIKE = 0.8  # share of a rule's nodes that must look like comments
MAX_PROPOSERS = 120  # comment-like elements per page proposing rules
MIN_PRESENT = 0.6  # share of containers in which a slot must be found
NAME_CHARS, NAME_WORDS = 60, 6
TEXT_MIN = 12  # characters of a comment's text, at least
NAME_HINT = re.compile(r"author|name|user|nick|fn\b|who|by|cite", re.I)
_SKIP = {"html", "body", "head", "script", "style", "form", "nav", "input", "textarea", "button",
         "select", "option", "label"}


# ---------------------------------------------------------------- shapes

def _texts(el) -> list:
    """Descendant elements with text of their own (their direct text or tail-free leaves)."""
    return [d for d in el.iter() if isinstance(d.tag, str) and d is not el and d.tag not in _SKIP
            and (d.text or "").strip()]


def _is_name(t: str) -> bool:
    return 0 < len(t) <= NAME_CHARS and len(t.split()) <= NAME_WORDS and not t.isdigit()


def looks_like_comment(el) -> bool:
    """A short text (a name) and a longer one that is not a date (what was said) below
    it, and a bounded size."""
    if not isinstance(el.tag, str) or el.tag in _SKIP:
        return False
    whole = node_text(el)
    if not (TEXT_MIN <= len(whole) <= 20000) or el.find(".//textarea") is not None:
        return False
    names, texts = [], []
    for d in _texts(el):
        t = node_text(d)
        if _is_name(t):
            names.append(d)
        if len(t) >= TEXT_MIN * 2 and len(t.split()) >= 4 and not (len(t) < 80 and date_value_text(t)):
            texts.append(d)
    return any(not (n is t or is_ancestor(n, t) or is_ancestor(t, n)) for n in names[:6] for t in texts[:6])


def _after(content):
    """A test: is an element after the post's content (not around it, not inside it)."""
    if content is None:
        return lambda el: True
    order = {}
    for i, el in enumerate(content.getroottree().getroot().iter()):
        order[el] = i
    last = max((order.get(d, 0) for d in content.iter()), default=0)
    return lambda el: order.get(el, -1) > last


def _proposers(root, after) -> list:
    out = []
    for el in root.iter():
        if isinstance(el.tag, str) and after(el) and looks_like_comment(el):
            out.append(el)
            if len(out) >= MAX_PROPOSERS:
                break
    return out


def _holds(nodes: list, after, like) -> bool:
    if not nodes or not all(after(n) for n in nodes):
        return False
    return sum(1 for n in nodes if like(n)) >= COMMENT_LIKE * len(nodes)


def _pure(nodes: list, like) -> int:
    """Nodes that are one comment each: no comment-like element below them that the rule
    leaves out (a list of all comments, a wrapper of replies, is not one)."""
    chosen = set(nodes)
    out = 0
    for n in nodes:
        stack, ok = list(n), True
        while stack and ok:
            d = stack.pop()
            if not isinstance(d.tag, str) or d in chosen:
                continue
            ok = not like(d)
            stack.extend(d)
        out += ok
    return out


def _container_rule(pages) -> tuple[str, list] | None:
    """(rule, containers of every page) of the rule most posts agree on."""
    memo: dict = {}

    def like(el):
        if el not in memo:
            memo[el] = looks_like_comment(el)
        return memo[el]

    candidates = Counter()
    for root, after in pages:
        for el in _proposers(root, after):
            for r in group_rules(el):
                candidates[r] += 1
    best, best_key, best_nodes = None, None, None
    for rule in candidates:
        got, held, most = [], 0, 0
        for root, after in pages:
            nodes = elements(apply_rule(root, rule))
            if _holds(nodes, after, like):
                held += 1
                most = max(most, len(nodes))
                got += nodes
        if most < 2:
            continue  # never repeated on a page: a block of the theme, not a list of comments
        key = (_pure(got, like), len(got), held, -len(rule))
        if best_key is None or key > best_key:
            best, best_key, best_nodes = rule, key, got
    return (best, best_nodes) if best else None


# ---------------------------------------------------------------- slots

def _own(container, containers: set) -> list:
    """The container's descendants that are not inside a nested comment (a reply)."""
    out, stack = [], list(container)
    while stack:
        d = stack.pop(0)
        if not isinstance(d.tag, str) or d in containers or d.tag in _SKIP:
            continue
        out.append(d)
        stack = list(d) + stack
    return out


def _votes(containers: list, field_nodes) -> list[str]:
    """Relative rules proposed by the first containers' candidate nodes for a slot."""
    rules = []
    for c in containers[:12]:
        for d in field_nodes(c):
            rules += relative_rules(c, d)
    return list(dict.fromkeys(r for r in rules if r != "."))


def _slot(containers: list, rules: list[str], score) -> str | None:
    best, best_key = None, None
    for rule in rules:
        s = score([first(c, rule) for c in containers])
        key = (round(s, 4), -len(rule))
        if s > 0 and (best_key is None or key > best_key):
            best, best_key = rule, key
    return best


def _present(nodes) -> list:
    return [n for n in nodes if n is not None and not isinstance(n, str)]


def _text_score(containers: set):
    def score(nodes):
        got = _present(nodes)
        if len(got) < MIN_PRESENT * len(nodes) or any(n in containers for n in got):
            return 0.0
        texts = [node_text(n) for n in got]
        if len(set(texts)) < 0.8 * len(texts):
            return 0.0
        nested = sum(1 for n in got if any(is_ancestor(n, c) for c in containers))
        return len(got) / len(nodes) * sum(map(len, texts)) / len(texts) * (0.2 if nested else 1.0)
    return score


def _author_score(text_nodes: list):
    def score(nodes):
        got = [(n, t) for n, t in zip(nodes, text_nodes) if n is not None and not isinstance(n, str)]
        names = [node_text(n) for n, _ in got]
        if len(got) < MIN_PRESENT * len(nodes) or sum(map(_is_name, names)) < 0.6 * len(names):
            return 0.0
        if any(t is not None and (n is t or is_ancestor(n, t) or is_ancestor(t, n)) for n, t in got):
            return 0.0
        if sum(1 for x in names if date_value_text(x)) > len(names) / 2:
            return 0.0
        distinct = len(set(names)) / len(names)
        if len(names) > 2 and distinct < 0.3:
            return 0.0  # the same word under every comment: a button, a label
        hint = sum(1 for n, _ in got if _hinted(n)) / len(got)
        return len(got) / len(nodes) + distinct + hint
    return score


def _hinted(n) -> bool:
    for x in (n, n.getparent()):
        if x is not None and (NAME_HINT.search(x.get("class") or "") or x.tag in ("cite", "b", "strong")
                              or x.get("itemprop") == "author" or x.get("rel") == "author"):
            return True
    return False


def date_value_text(t: str) -> bool:
    from tasks.text.dates import parse_date
    return bool(re.search(r"\d", t)) and parse_date(t) is not None


def _date_score(nodes) -> float:
    """Share of containers with a date, a little more for a node that is only the date
    (a machine attribute, a short text) than for a line that holds it among other words."""
    got = [n for n in _present(nodes) if date_value(n)]
    if len(got) < MIN_PRESENT * len(nodes):
        return 0.0
    machine = sum(1 for n in got if any(n.get(a) for a in DATE_ATTRS)) / len(got)
    length = sum(len(node_text(n)) for n in got) / len(got)
    return len(got) / len(nodes) + 0.2 * machine + 0.1 / (1 + length / 20)


def _affixes(names: list[str]) -> dict:
    """Words printed around every name ("Ann said:", "Par Ann")."""
    out = {}
    words = [n.split() for n in names if n]
    if len(words) < 3:
        return out
    for key, pick in (("author_suffix", -1), ("author_prefix", 0)):
        common = Counter(w[pick] for w in words if len(w) > 1)
        if common:
            word, n = common.most_common(1)[0]
            if n >= 0.9 * len(words) and len(set(" ".join(w) for w in words)) > 1:
                out[key] = word
    return out


def learn_comment_blocks(pages) -> dict | None:
    """The comment rule the posts `pages` ([(root, content element or None)]) agree on, or None."""
    prepared = [(root, _after(content)) for root, content in pages if root is not None]
    found = _container_rule(prepared)
    if found is None:
        return None
    rule, containers = found
    cset = set(containers)
    own = {c: _own(c, cset) for c in containers}
    text_rule = _slot(containers, _votes(containers, lambda c: sorted(
        (d for d in own[c] if len(node_text(d)) >= TEXT_MIN), key=lambda d: -len(node_text(d)))[:4]),
        _text_score(cset))
    if text_rule is None:
        return None
    text_nodes = [first(c, text_rule) for c in containers]
    author_rule = _slot(containers, _votes(containers, lambda c: [d for d in own[c] if _is_name(node_text(d))][:8]),
                        _author_score(text_nodes))
    date_rule = _slot(containers, _votes(containers, lambda c: sorted(
        (d for d in own[c] if date_value(d)), key=lambda d: len(node_text(d)))[:4]), _date_score)
    out = {"container": rule, "author": author_rule, "date": date_rule, "text": text_rule, "source": "blocks",
           "matched": len(containers)}
    if author_rule:
        out.update(_affixes([node_text(first(c, author_rule)) for c in containers]))
    return out
