"""Extraction rules (XPath) and the two algorithms that find the best one on a page.

AllRules (paper): one rule per node, by preference `//*[@id='x']`, `//*[@class='x']`
(the exact class attribute), then rules anchored on a semantic attribute (itemprop, rel,
name, property, role) or on an ancestor with an id or class, then the absolute path.
A rule is kept only if, on its own page, it selects the node first in document order.
`rule_candidates` lists every such form for one node: the page's vote then goes to all
of them, and the reduce step (tasks.learn.fields) keeps the form that most pages agree on,
which is how page-specific ids (`post-93`) lose to stable classes.

Rules may end in `/@attr` (machine-readable values: meta content, time datetime) or in
`/text()[k]` (a bare text node, e.g. a date between two links).

Scoring. A node is scored against a target by the Dice similarity of the bigram sets of
" node text " and " target text " (each padded with one space). With the padding, the
bigram set of a text is exactly the union of the sets of its padded words, so a node's
set is the union of its children's sets plus the words that its own text pieces add or
that straddle the boundaries between pieces. Algorithm 2 carries, per node, the bitset
of its complete words and the partial words at its two edges, so it computes the very
set that Algorithm 1 gets by extracting the node's text: the two agree exactly, up to
hash collisions between non-Latin-1 bigrams in the bitsets (tasks.text.similarity).

Algorithm 1 (`best_rule_quadratic`) applies each node's rule and scores the text it
extracts: quadratic, kept as the oracle. Algorithm 2 (`best_rule_linear`) is one
post-order walk: each text piece is read once, a node's bitset is the OR of its
children's, and each node is scored from its bitset by two popcounts.
"""
from __future__ import annotations

import functools
import re
from typing import NamedTuple

from lxml import etree

from tasks.fetch.html import nfkc, node_text
from tasks.text.similarity import bigram_mask, bigrams, dice

SEMANTIC_ATTRS = ("itemprop", "rel", "name", "property", "role")
MACHINE_ATTRS = ("content", "datetime", "title")
ANCESTOR_LEVELS = 6


# ---------------------------------------------------------------- applying rules

# `//tag[@attr='v']` at the head of a rule, not followed by a positional predicate
_DESCENDANT_HEAD = re.compile(r"^//(\*|[A-Za-z][\w-]*)((?:\[@[A-Za-z_][\w.-]*='[^']*'\])?)(?=/|$)")


@functools.lru_cache(maxsize=4096)
def compile_rule(rule: str):
    """A compiled XPath for `rule` (cached), or None if it is not valid XPath.

    A head `//tag[@a='v']` is evaluated as `/descendant::tag[@a='v']`: the same nodes in
    the same order (no positional predicate follows), in one pass instead of libxml2's
    descendant-or-self::node()/child:: two steps (a fifth of the cost of a rule). Rules use
    no EXSLT regular expressions: lxml need not register them on every evaluation."""
    try:
        return etree.XPath(_DESCENDANT_HEAD.sub(r"/descendant::\1\2", rule, count=1), regexp=False)
    except (etree.XPathSyntaxError, etree.XPathEvalError, TypeError, ValueError):
        return None


# `//tag[@a='v']` then child steps, a text node or an attribute: the shapes AllRules makes
_HEADED = re.compile(r"^//(\*|[A-Za-z][\w-]*)(?:\[@([A-Za-z_][\w.-]*)='([^']*)'\])?"
                     r"((?:/(?:\*|[A-Za-z][\w-]*)(?:\[(?:\d+|@[A-Za-z_][\w.-]*='[^']*')\])*)*"
                     r"(?:/text\(\)\[\d+\]|/@[A-Za-z_][\w.-]*)?)$")
_READ = re.compile(r"^/@([A-Za-z_][\w.-]*)$")


class _Head(NamedTuple):
    """A rule as its head step (tag or None for *, attribute tested, value) and what it
    takes from a head element: itself, an attribute (`read`), or a relative path (`tail`,
    with `nested`, the head's own test below an element)."""
    tag: str | None
    attr: str | None
    value: str | None
    read: str | None
    tail: object
    nested: object


@functools.lru_cache(maxsize=4096)
def _head(rule: str) -> _Head | None:
    m = _HEADED.match(rule)
    if not m:
        return None
    tag, attr, value, rest = m.groups()
    read = tail = nested = None
    if rest and (r := _READ.match(rest)):
        read = r.group(1)
    elif rest:
        if attr is None:
            return None
        try:
            tail = etree.XPath(rest[1:], regexp=False)
            nested = etree.XPath(f"descendant::{tag}[@{attr}='{value}'][1]", regexp=False)
        except (etree.XPathSyntaxError, etree.XPathEvalError):
            return None
    return _Head(None if tag == "*" else tag, attr, value, read, tail, nested)


@functools.lru_cache(maxsize=256)
def _first_of_tag(tag: str, read: str | None):
    # [1] on the step lets libxml2 stop at the first element of the name (that has the
    # attribute read: the rule's first result is the first such element's)
    return etree.XPath(f"/descendant::{tag}[@{read}][1]/@{read}" if read else f"/descendant::{tag}[1]",
                       regexp=False)


def first_match(root, rule: str | None) -> list | None:
    """[the first thing `rule` selects] ([] if nothing): `apply_rule(...)[:1]`, found
    without applying the whole rule where its shape allows (see `first_matches`); None
    where it does not (the caller applies it whole)."""
    if not rule or root is None:
        return None
    head = _head(rule)
    if head is None:
        return None
    if head.attr is not None:
        return first_matches(root, [rule]).get(rule)
    if head.tag is None:
        return None  # `//*`: the page's root, a rule no learner makes
    return list(_first_of_tag(head.tag, head.read)(root))


_WHOLE = object()  # a rule whose first result the walk cannot vouch for


def first_matches(root, rules) -> dict:
    """{rule: [its first result] or []} for the rules among `rules` whose head tests one
    attribute (`//*[@class='c']`, `//meta[@name='n']/@content`, `//*[@id='x']/div[2]`),
    from a walk over the page's elements in document order that ends when each head has
    matched: what applying each rule whole gives first, without testing every element
    once per rule (libxml2 evaluates `@class='c'` on every element, at a quarter of a
    microsecond each). Heads of any tag share one walk over all elements; heads of one
    tag (`//meta[...]`) walk that tag's elements, which lxml picks out in C. A head's own
    attribute, or the head itself, is the rule's first result; a path below the first
    head gives its first result when no other head sits inside that one (all later heads'
    results then come after it); a head that gives nothing (no such attribute, nothing
    below it) passes to the next. Other rules, and rules the walk cannot vouch for, are
    left out: the caller applies them whole."""
    walked, walks = _walks(tuple(rules))
    out: dict = dict.fromkeys(walked)
    for tag, by_attr, count in walks:
        _walk_first(root.iter(tag) if tag else root.iter(), by_attr, count, out)
    return {rule: found or [] for rule, found in out.items() if found is not _WHOLE}


@functools.lru_cache(maxsize=1024)
def _walks(rules: tuple) -> tuple:
    """The walks `first_matches` makes for `rules`, worked out once per set of rules (a
    blog's rules serve every post): (the rules walked, ((head tag or None, ((attribute,
    {value: ((rule, _Head), ...)}), ...), number of rules), ...))."""
    by_tag: dict = {}
    walked = []
    for rule in dict.fromkeys(r for r in rules if r):
        head = _head(rule)
        if head is not None and head.attr is not None:
            by_tag.setdefault(head.tag, {}).setdefault(head.attr, {}).setdefault(head.value, []).append((rule, head))
            walked.append(rule)
    return tuple(walked), tuple(
        # the attribute's name as bytes: lxml would encode a str name at every element
        (tag, tuple((attr.encode(), {v: tuple(found) for v, found in values.items()}) for attr, values in by_attr.items()),
         sum(len(found) for values in by_attr.values() for found in values.values()))
        for tag, by_attr in by_tag.items())


def _taken(el, head: _Head):
    """What `head`'s rule takes from `el`, the first head element that gives anything:
    [first result]; None if `el` gives nothing (the walk goes on to the next head);
    _WHOLE if another head inside `el` could come first."""
    if head.tail is None:
        if head.read is None:
            return [el]
        a = el.get(head.read)
        return None if a is None else [a]
    found = _selected(head.tail(el))
    if not found:
        return None
    return _WHOLE if head.nested(el) else found[:1]


def _walk_first(elements, by_attr: tuple, count: int, out: dict) -> None:
    """Fill `out` (rule -> None) with the first result of each of the `count` rules of
    `by_attr` (attribute -> value -> rules) among `elements`, stopping when all have one."""
    remaining = [count]

    def take(el, heads) -> bool:
        for rule, head in heads:
            if out[rule] is None:
                out[rule] = _taken(el, head)
                if out[rule] is not None:
                    remaining[0] -= 1
        return not remaining[0]

    if len(by_attr) == 1:  # the usual case (all class, say): one lookup per element
        (attr, values), = by_attr
        for el in elements:
            v = el.get(attr)
            if v is not None and v in values and take(el, values[v]):
                return
        return
    for el in elements:
        for attr, values in by_attr:
            v = el.get(attr)
            if v is not None and v in values and take(el, values[v]):
                return


def first_of(root, rule: str | None) -> list:
    """`apply_rule(root, rule)[:1]`, by the shortcut where the rule has one."""
    res = first_match(root, rule)
    return apply_rule(root, rule)[:1] if res is None else res


def apply_rule(root, rule: str | None) -> list:
    """Everything `rule` selects on the page: elements, or strings for /@attr and /text()."""
    if not rule or root is None:
        return []
    xp = compile_rule(rule)
    if xp is None:
        return []
    try:
        res = xp(root)
    except (etree.XPathEvalError, etree.XPathError):
        return []
    if isinstance(res, list):
        return _selected(res)
    if isinstance(res, str):
        return [res] if res else []
    return []


def _selected(res: list) -> list:
    """The elements and strings of an XPath's node-set (no comments or PIs)."""
    return [r for r in res if isinstance(r, str) or isinstance(getattr(r, "tag", None), str)]


def rule_text(root, rule: str | None) -> str:
    """Normalised text of the first thing `rule` selects ("" if nothing)."""
    res = first_of(root, rule)
    return node_text(res[0]) if res else ""


# ---------------------------------------------------------------- AllRules

def xpath_literal(s: str) -> str:
    """`s` as an XPath string literal (concat() when it holds both quote kinds)."""
    if "'" not in s:
        return f"'{s}'"
    if '"' not in s:
        return f'"{s}"'
    parts = s.split("'")
    return "concat(" + ", \"'\", ".join(f"'{p}'" for p in parts) + ")"


def _first_is(root, rule: str, target) -> bool:
    res = first_of(root, rule)
    if not res:
        return False
    return res[0] is target


def _attr_ok(v: str | None) -> bool:
    return bool(v) and len(v) <= 200 and "\n" not in v


def _tag(el) -> str:
    t = el.tag
    return t if isinstance(t, str) and re.fullmatch(r"[A-Za-z_][\w.-]*", t) else "*"


def _step(el, positional: bool) -> str:
    tag = _tag(el)
    cls = el.get("class")
    if not positional:
        return f"{tag}[@class={xpath_literal(cls)}]" if _attr_ok(cls) else tag
    parent = el.getparent()
    if parent is None:
        return tag
    same = [c for c in parent if c.tag == el.tag] if tag != "*" else [c for c in parent if isinstance(c.tag, str)]
    return f"{tag}[{same.index(el) + 1}]" if len(same) > 1 else tag


def _anchors(el) -> list[str]:
    """The id-, class- and semantic-attribute rules that could name `el` (unverified)."""
    out = []
    v = el.get("id")
    if _attr_ok(v):
        out.append(f"//*[@id={xpath_literal(v)}]")
    v = el.get("class")
    if _attr_ok(v):
        out.append(f"//*[@class={xpath_literal(v)}]")
        tag = _tag(el)
        if tag != "*":
            out.append(f"//{tag}[@class={xpath_literal(v)}]")
    for a in SEMANTIC_ATTRS:
        v = el.get(a)
        if _attr_ok(v):
            out.append(f"//{_tag(el)}[@{a}={xpath_literal(v)}]")
    return out


def element_rules(el, limit: int | None = None) -> list[str]:
    """Every AllRules form that selects element `el` first on its page, best first:
    own id, own class, own semantic attribute, ancestor-anchored paths (nearest
    ancestor first), and last the absolute path (always valid)."""
    root = el.getroottree().getroot()
    out: list[str] = []
    seen = set()

    def add(rule):
        if rule not in seen:
            seen.add(rule)
            if _first_is(root, rule, el):
                out.append(rule)

    for r in _anchors(el):
        add(r)
        if limit and len(out) >= limit:
            return out
    steps_plain, steps_pos = [], []
    node = el
    for _ in range(ANCESTOR_LEVELS):
        parent = node.getparent()
        if parent is None:
            break
        steps_plain.insert(0, _step(node, False))
        steps_pos.insert(0, _step(node, True))
        for anchor in _anchors(parent):
            add(anchor + "/" + "/".join(steps_plain))
            add(anchor + "/" + "/".join(steps_pos))
        if limit and len(out) >= limit:
            return out
        node = parent
    out.append(el.getroottree().getpath(el))
    return out


def rule_for(node) -> str:
    """The AllRules rule of an element: the first form of `element_rules`."""
    return element_rules(node, limit=1)[0]


def text_node_rules(el, index: int, limit: int | None = None) -> list[str]:
    """Rules selecting the `index`-th text node (1-based, as XPath counts) of `el`."""
    root = el.getroottree().getroot()
    texts = el.xpath("text()")
    if not 0 < index <= len(texts):
        return []
    target = texts[index - 1]
    out = []
    for base in element_rules(el, limit=limit):
        rule = f"{base}/text()[{index}]"
        res = apply_rule(root, rule)
        if res and res[0] == target and res[0].getparent() is target.getparent():
            out.append(rule)
    return out


def attribute_rules(el, attr: str, limit: int | None = None) -> list[str]:
    """Rules selecting attribute `attr` of `el`."""
    out = []
    for base in element_rules(el, limit=limit):
        out.append(f"{base}/@{attr}")
    return out


# ---------------------------------------------------------------- scoring

def _pad(s: str) -> str:
    return " " + s + " "


def score_text(text: str, target: str) -> float:
    """Dice of the padded bigram sets: the score both algorithms give a node."""
    if not target or not text:
        return 0.0
    return dice(_pad(text), _pad(target))


def elements(root):
    """All elements of the page in document order (the nodes rules are learned for)."""
    return [e for e in root.iter() if isinstance(e.tag, str)]


def best_rule_quadratic(root, target: str):
    """Algorithm 1 (reference oracle): for each node, apply its AllRules rule and score
    the extracted text against `target`. Returns (rule, score); ties go to the node
    first in document order; (None, 0.0) for an empty target."""
    target = " ".join(nfkc(target or "").split())
    if not target:
        return None, 0.0
    best_rule, best = None, -1.0
    for el in elements(root):
        rule = rule_for(el)
        s = score_text(rule_text(root, rule), target)
        if s > best:
            best_rule, best = rule, s
    return best_rule, max(best, 0.0)


# ---------------------------------------------------------------- Algorithm 2

class _Acc:
    """The text of a node so far, as bigram bitsets: `whole` is True while the text
    holds no whitespace (it is then one partial word, `left`); otherwise `left` and
    `right` are the partial words at its edges and `mask` the set of the complete
    words between them."""

    __slots__ = ("whole", "left", "mask", "right")

    def __init__(self):
        self.whole, self.left, self.mask, self.right = True, "", 0, ""

    def add_text(self, t: str):
        if not t:
            return
        t = nfkc(t)
        words = t.split()
        if len(words) == 1 and not t[0].isspace() and not t[-1].isspace():
            self._add_frag(t)
            return
        # t holds whitespace: a leading partial word, complete words, a trailing one
        lead = "" if t[0].isspace() else words[0]
        trail = "" if (t[-1].isspace() or not words) else words[-1]
        inner = words[(1 if lead else 0): (len(words) - 1 if trail else len(words))]
        if lead and trail and len(words) == 1:  # impossible: one word but both edges open
            inner = []
        inner_mask = bigram_mask(_pad(" ".join(inner))) if inner else 0
        self._add_split(lead, inner_mask, trail)

    def _add_frag(self, f: str):
        if self.whole:
            self.left += f
        else:
            self.right += f

    def _add_split(self, left: str, mask: int, right: str):
        if self.whole:
            self.whole, self.left, self.mask, self.right = False, self.left + left, mask, right
        else:
            w = self.right + left
            self.mask |= mask | (bigram_mask(_pad(w)) if w else 0)
            self.right = right

    def add_child(self, child: "_Acc", tail: str | None):
        """A closed child's text, then the text that follows it."""
        self.add(child)
        self.add_text(tail or "")

    def add(self, other: "_Acc"):
        if other.whole:
            self._add_frag(other.left)
        else:
            self._add_split(other.left, other.mask, other.right)

    def node_mask(self) -> int:
        """The bitset of this node's padded text, its edge words now complete."""
        if self.whole:
            return bigram_mask(_pad(self.left)) if self.left else 0
        m = self.mask
        if self.left:
            m |= bigram_mask(_pad(self.left))
        if self.right:
            m |= bigram_mask(_pad(self.right))
        return m


def _target_mask(t: str | None) -> int:
    """A target's padded bigram bitset (0 for an empty or blank one)."""
    return bigram_mask(_pad(" ".join(nfkc(t or "").split()))) if t and t.strip() else 0


def walk_scores(root, targets: list[str]):
    """One post-order walk over the page (Algorithm 2's core).

    Returns (nodes, sizes, inters): the elements in document order, the size of each
    node's padded bigram set, and for each node the intersection size with each
    target's set (a list per node, same order as `targets`). Nothing else is kept, so
    memory stays linear in the number of nodes.
    """
    tmasks = [_target_mask(t) for t in targets]
    nodes, sizes, inters = [], [], []
    stack: list[tuple[int, _Acc]] = []
    for event, el in etree.iterwalk(root, events=("start", "end")):
        if not isinstance(el.tag, str):  # a comment or processing instruction: only its tail is text
            if event == "end" and stack:
                stack[-1][1].add_text(el.tail or "")
        elif event == "start":
            acc = _Acc()
            acc.add_text(el.text or "")
            stack.append((len(nodes), acc))
            nodes.append(el)
            sizes.append(0)
            inters.append(None)
        else:
            idx, acc = stack.pop()
            m = acc.node_mask()
            sizes[idx] = m.bit_count()
            inters[idx] = [(m & t).bit_count() for t in tmasks]
            if stack:
                stack[-1][1].add_child(acc, el.tail)
    return nodes, sizes, inters, [t.bit_count() for t in tmasks]


def best_rule_linear(root, target: str):
    """Algorithm 2 (production): score every node from one post-order walk and return
    (rule of the best node, score); ties go to the node first in document order."""
    if not target or not target.strip():
        return None, 0.0
    nodes, sizes, inters, tsizes = walk_scores(root, [target])
    best_i, best = -1, -1.0
    lt = tsizes[0]
    for i, (n, inter) in enumerate(zip(sizes, inters)):
        s = 2 * inter[0] / (n + lt) if n + lt else 0.0
        if s > best:
            best_i, best = i, s
    if best_i < 0:
        return None, 0.0
    return rule_for(nodes[best_i]), best


def padded_bigrams(text: str) -> set[str]:
    """The exact set Algorithm 2's bitset stands for (used by tests)."""
    return bigrams(_pad(text)) if text else set()
