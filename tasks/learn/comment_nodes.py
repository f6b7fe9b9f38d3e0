"""The parts of a page's comments that learning and extraction share: similarity and
matching of texts, the nodes a rule returns, a comment's region, dates shown in it.

Pure functions over lxml elements; tasks.learn.comment_rules, tasks.learn.comment_blocks
and tasks.extract.comments build on them.
"""
from __future__ import annotations

import datetime as dt
import re
from functools import lru_cache

from tasks.fetch.html import node_text
from tasks.learn.fields import clean_author
from tasks.learn.rules import apply_rule
from tasks.text.dates import parse_date
from tasks.text.similarity import bigrams, normalize_text

MIN_SIMILARITY = 0.5  # a page node "is" a feed comment from this similarity on
HAS = "contains(concat(' ', normalize-space(@class), ' '), ' {} ')"
SUB = "contains(@class, '{}')"
DATE_ATTRS = ("datetime", "content", "title", "data-timestamp", "data-time")


def pad(s: str) -> str:
    return " " + normalize_text(s) + " "


def similarity(a: str | None, b: str | None) -> float:
    """Dice of the bigram sets of the two texts, each padded with a space (as tasks.learn.rules)."""
    if not a or not b:
        return 0.0
    A, B = bigrams(pad(a)), bigrams(pad(b))
    return 2 * len(A & B) / (len(A) + len(B)) if A or B else 0.0


def sim_sets(A: set, B: set) -> float:
    if not A or not B:
        return 0.0
    return 2 * len(A & B) / (len(A) + len(B))


def _weights(sets: list[set], target_sets: list[set]):
    """The similarity matrix of page texts (rows) to feed texts (columns), left at 0 where
    the two sets' sizes alone bound the similarity below 0.2."""
    import numpy as np

    w = np.zeros((len(sets), len(target_sets)))
    for i, a in enumerate(sets):
        la = len(a)
        for j, b in enumerate(target_sets):
            lb = len(b)
            if la and lb and 2 * min(la, lb) / (la + lb) >= 0.2:  # dice can not exceed this bound
                w[i, j] = 2 * len(a & b) / (la + lb)
    return w


def match_comments(texts: list[str], targets: list[str], *, sets=None, target_sets=None):
    """Maximum weighted bipartite matching of page texts to feed texts (weight = similarity).

    Returns (score, pairs): score is the matched weight over len(targets) (1.0 when every
    feed comment has an identical node), pairs [(text index, target index, weight)].
    """
    from tasks.learn.assignment import max_weight_assignment

    if (not texts and not sets) or not targets:
        return 0.0, []
    sets = sets if sets is not None else [bigrams(pad(t)) for t in texts]
    target_sets = target_sets if target_sets is not None else [bigrams(pad(t)) for t in targets]
    w = _weights(sets, target_sets)
    rows, cols = max_weight_assignment(w)
    pairs = [(int(r), int(c), float(w[r, c])) for r, c in zip(rows, cols) if w[r, c] > 0]
    return sum(p[2] for p in pairs) / len(targets), pairs


def class_tokens(el) -> list[str]:
    return [t for t in (el.get("class") or "").split() if re.fullmatch(r"[A-Za-z_-][A-Za-z_-]*", t)][:6]


def tag_of(el) -> str:
    t = el.tag
    return t if isinstance(t, str) and re.fullmatch(r"[A-Za-z][\w-]*", t) else "*"


def stable_id(v: str | None) -> bool:
    return bool(v) and len(v) <= 80 and not re.search(r"\d", v) and "'" not in v and '"' not in v


def elements(nodes) -> list:
    return [n for n in nodes if not isinstance(n, str) and isinstance(getattr(n, "tag", None), str)]


def apply_all(roots, rule) -> list:
    out = []
    for r in roots:
        out += elements(apply_rule(r, rule))
    return out


def first(container, rule):
    if not rule:
        return None
    if rule == ".":
        return container
    try:
        found = container.xpath(rule)
    except Exception:
        return None
    return found[0] if found else None


def is_ancestor(anc, node) -> bool:
    p = node.getparent()
    while p is not None:
        if p is anc:
            return True
        p = p.getparent()
    return False


SIBLINGS = 3  # siblings either side searched for a sibling-run comment's author and date


def region(container) -> list:
    """Where a comment's fields are: the container, and for a sibling-run comment its
    nearest siblings too."""
    parent = container.getparent()
    if parent is None:
        return [container]
    kids = [k for k in parent if isinstance(k.tag, str)]
    i = kids.index(container)
    return [container] + kids[max(0, i - SIBLINGS):i][::-1] + kids[i + 1:i + 1 + SIBLINGS]


def in_region(container, el) -> bool:
    return any(r is el or is_ancestor(r, el) for r in region(container))


def _attr_date(node) -> str | None:
    for a in DATE_ATTRS:
        v = node.get(a)
        if v:
            if a.startswith("data-") and v.isdigit():
                n = int(v) / (1000 if len(v) > 11 else 1)
                return dt.datetime.fromtimestamp(n, dt.timezone.utc).isoformat()
            d = parse_date(v)
            if d:
                return d
    return None


def date_value(node) -> str | None:
    """The ISO date a node shows: a machine attribute first, else its text."""
    if node is None:
        return None
    if isinstance(node, str):
        return parse_date(node)
    found = _attr_date(node)
    if found:
        return found
    t = node_text(node)
    return parse_date(t) if t and len(t) <= 120 else None


def date_score(found: str | None, iso: str | None) -> float:
    """3 for the same instant, 2 for the same minute as printed, 1 for the same day."""
    if not found or not iso or found[:10] != iso[:10]:
        return 0.0
    if len(found) > 10 and len(iso) > 10:
        try:
            if dt.datetime.fromisoformat(found) == dt.datetime.fromisoformat(iso):
                return 3.0
        except ValueError:
            pass
        if found[:16] == iso[:16]:
            return 2.0
    return 1.0


def depth(el) -> int:
    d, p = 0, el.getparent()
    while p is not None:
        d, p = d + 1, p.getparent()
    return d


def clean_shown_author(text: str, rule: dict) -> str:
    p, s = rule.get("author_prefix"), rule.get("author_suffix")
    if p and text.startswith(p):
        text = text[len(p):]
    if s and text.endswith(s):
        text = text[:-len(s)]
    if "@" in text and not re.search(r"\(@\w+\)", text):  # an e-mail, not a shown (@handle)
        return clean_author(text)
    return normalize_text(text).strip(" ,;|:")


# ---------------------------------------------------------------- reading a comment

_LINE_TAGS = frozenset("br p div li ul ol dl dt dd h1 h2 h3 h4 h5 h6 blockquote section article header footer "
                       "table tr figure hr pre address".split())


def lines(node, skip: set | frozenset = frozenset(), dated_apart: bool = False) -> list[str]:
    """The node's text as a reader sees its lines: broken at <br> and at block elements
    (`skip`: elements left out, the replies nested in a comment; `dated_apart`: a child that
    is a date, as a line of its own: "grobo<a>12.01.2008, 21:10</a>" is a name and a date)."""
    if node is None or isinstance(node, str) or not isinstance(node.tag, str):
        return [normalize_text(node)] if isinstance(node, str) and normalize_text(node) else []
    parts: list[str] = []

    def walk(el):
        if el.text:
            parts.append(el.text)
        for k in el:
            if isinstance(k.tag, str) and k not in skip:
                brk = k.tag in _LINE_TAGS or (dated_apart and is_date_child(k))
                if brk:
                    parts.append("\x00")
                walk(k)
                if brk:
                    parts.append("\x00")
            if k.tail:
                parts.append(k.tail)

    walk(node)
    return [t for t in (normalize_text(x) for x in "".join(parts).split("\x00")) if t]


def is_date_child(el) -> bool:
    """An element whose whole text is a date (a comment's permalink printing its time)."""
    text = normalize_text("".join(el.itertext()))
    return 6 <= len(text) <= 60 and any(c.isdigit() for c in text) and _reads_as_date(text)


@lru_cache(maxsize=4096)
def _reads_as_date(text: str) -> bool:
    """By the fast date reader only (dates as comment systems print them): asked of every short
    element with a digit of every candidate block, a page of formulas (KaTeX) made dateparser's
    milliseconds a call minutes a page."""
    return parse_date(text, slow=False) is not None


def shown_name(node) -> str:
    """A comment's name as its name node shows it: the node's first line (a reply note, "In
    reply to X", or a date under the name in the same node, or in an element of its own
    beside it, is not part of it)."""
    found = lines(node, dated_apart=True)
    if not found:
        return ""
    labelled = _LABEL.match(found[0])  # "From: Ann", "Von: Ann": the label is no part of the name
    return _undated(labelled.group(1) if labelled else found[0])


_LABEL = re.compile(r"^\w[\w.-]{0,15}\s?:\s+(\S.*)$")
_APART = re.compile(r"\s+[-–—|·]\s+")


def _undated(line: str) -> str:
    """"5.10.2022 - Greg", "Greg | March 3, 2014": the name of a line that prints it beside its date."""
    parts = _APART.split(line)
    if len(parts) != 2 or not re.search(r"\d", line):
        return line
    from tasks.text.dates import parse_date

    dated = [bool(re.search(r"\d", p)) and parse_date(p) is not None for p in parts]
    if dated.count(True) != 1:
        return line
    return parts[dated.index(False)].strip() or line


def outermost(nodes: list) -> list:
    """The nodes not inside another of them, in document order."""
    chosen = set(nodes)
    out = []
    for n in nodes:
        p, inside = n.getparent(), False
        while p is not None and not inside:
            inside = p in chosen
            p = p.getparent()
        if not inside:
            out.append(n)
    return out


def own_matches(container, rule: str | None, nested: set) -> list:
    """The elements `rule` selects in `container` that belong to this comment: not inside a
    nested comment (a reply, one of `nested`), not inside each other."""
    if not rule:
        return []
    if rule == ".":
        return [container]
    try:
        found = elements(container.xpath(rule))
    except Exception:
        return []
    out = []
    for n in found:
        p, mine = n, True
        while p is not None and p is not container:
            if p in nested:
                mine = False
                break
            p = p.getparent()
        if mine:
            out.append(n)
    return outermost(out)


REST = "rest"  # the text rule of a comment whose text is loose in its block, beside the name line


def _child_holding(container, node):
    """The child of `container` that holds `node` (or is it)."""
    while node is not None and node.getparent() is not container:
        node = node.getparent()
    return node


def _chrome(el) -> bool:
    """A control or a link line (a "Reply to Ann" button), not something said: all its words
    are in links or buttons, and there are few of them."""
    t = node_text(el)
    if not t or len(t) > 60:
        return False
    inside = sum(len(node_text(a)) for a in el.iter("a", "button"))
    return inside >= len(t) - 2


def rest_text(container, rule: dict, nested) -> str:
    """What a comment says when no element holds it: the block's lines without the parts that
    hold its name and date (its header), its controls and its replies."""
    skip = set(nested)
    name = ""
    for field in ("author", "date"):
        node = next(iter(own_matches(container, rule.get(field), nested)), None) if rule.get(field) else None
        top = _child_holding(container, node) if node is not None else None
        if top is not None:
            skip.add(top)
        if field == "author" and node is not None:
            name = shown_name(node).strip(" :：,;|-–—")  # ("Ann:", its header's own affix)
    skip.update(k for k in container if isinstance(k.tag, str) and (_chrome(k) or _byline(k, name)))
    return " ".join(lines(container, skip))


LINE_CHARS = 120  # a comment's date line (and a line naming its writer and the day) is short


def _byline(el, name: str) -> bool:
    """A short line that names the commenter and shows a date ("Posted by: Ann | 2009-01-16
    14:56"): a second header or footer of the comment (the date rule read another), not said."""
    text = node_text(el)
    return bool(name) and len(text) <= LINE_CHARS and name in text and date_value(el) is not None


def said_text(container, rule: dict, nested: set) -> tuple[str, list]:
    """(text, nodes) of what a comment says: every node of its text rule that is its own when
    the rule reads several ("text_all": a comment in several paragraphs), else the first;
    the block's loose lines for the rule REST."""
    if rule.get("text") == REST:
        return rest_text(container, rule, nested), [container]
    if rule.get("text_all"):
        nodes = own_matches(container, rule.get("text"), nested)
    else:
        n = first(container, rule.get("text") or ".")
        nodes = [n] if n is not None and not isinstance(n, str) else []
    return " ".join(t for t in (text_without(n, nested) for n in nodes) if t), nodes


def text_without(node, nested: set) -> str:
    """The node's text, its lines joined by a space, without the nested comments (replies)."""
    return " ".join(lines(node, nested))


def page_titles(root, blocks=frozenset()) -> frozenset:
    """What a page calls itself (its <title>, its headings down to h4 outside the comment
    `blocks`: the post's title is one of them), folded: a block named so is the post (or a
    post of a listing), not a comment."""
    found = set()
    for e in root.iter("title", "h1", "h2", "h3", "h4"):
        if e in blocks or any(a in blocks for a in e.iterancestors()):
            continue
        t = node_text(e).casefold()
        if t:
            found.add(t)
    return frozenset(found)


def title_parts(root) -> frozenset:
    """The parts of a page's <title> ("Blog: Post", "Post | Blog"), folded."""
    t = node_text(root.find(".//title")).casefold() if root.find(".//title") is not None else ""
    return frozenset(p.strip() for p in re.split(r"\s*[|–—»·]\s*|\s[-:]\s|:\s", t) if p.strip())


def names_page(name: str, titles) -> bool:
    return len(name) >= 4 and len(name.split()) >= 2 and name.casefold() in titles
