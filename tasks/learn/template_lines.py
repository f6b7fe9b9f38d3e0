"""The template's marked lines inside the content node that say nearly the same on every post.

A theme may print, inside the element that holds the post, a line of its own under every post:
"This entry was posted on Monday, May 18th, 2009 at 2:00 am and is filed under Tweets. You can
follow any responses to this entry through the RSS 2.0 feed." (WordPress's Kubrick,
`p.postmetadata`). Its day and categories differ from post to post, so it is no template text
(tasks.learn.template_blocks, word for word), and it is mostly plain words, so no line of links
(tasks.learn.link_slots). What gives it away is both at once: the same element (tag with its id
or classes) inside the node on most training pages, and most of its words the same on all of
them. A post's own recurring words (a sign-off) carry no mark of the template, and a marked
element of the post (a caption, a quote) says something else on every page.
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from statistics import median

from tasks.fetch.html import without_elements
from tasks.learn.link_slots import TEXT_BLOCKS, _text_len, signature
from tasks.text.similarity import normalize_text

__all__ = ["template_lines", "without_template_lines"]

MIN_PAGES = 4  # training pages the content node was read on
SHARED_SHARE = 0.6  # an element on more than this share of them is the template's
LIKE = 0.5  # Jaccard of two pages' words of the element, at least (median over the pairs)
MIN_WORDS = 6  # words the line shares on most pages, at least ("Tags:" alone says too little)
MAX_SHARE = 0.5  # of the node's text the element holds at most (a wrapper of the post is no line)
MAX_LINES = 5
MAX_WORDS = 80  # words kept per line

_WORD = re.compile(r"[^\W\d_]+")


def _words(el) -> set[str]:
    return set(_WORD.findall(normalize_text("".join(el.itertext())).casefold()))


def _marked(node) -> list:
    """The outermost marked elements inside `node` (not links), short beside it."""
    whole = _text_len(node)
    out, stack = [], [iter(node)]
    while stack:  # depth first, in document order, without recursion (a page may nest deep)
        kid = next(stack[-1], None)
        if kid is None:
            stack.pop()
            continue
        if not isinstance(kid.tag, str) or kid.tag == "a":
            continue
        n = _text_len(kid)
        if not n:
            continue
        if signature(kid) and n <= MAX_SHARE * whole:
            out.append(kid)
        elif kid.tag not in TEXT_BLOCKS:
            stack.append(iter(kid))
    return out


def _jaccard(a: set, b: set) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def template_lines(nodes: list, said: str = "") -> list[dict]:
    """[{"sig", "words"}]: the marked elements most of `nodes` (the content rule's node on each
    training page) hold whose words are mostly the same on all of them, with the words most of
    them share. `said`: the feed's full contents (casefolded): a line the feed holds is the post's."""
    nodes = [n for n in nodes if n is not None and isinstance(getattr(n, "tag", None), str)]
    if len(nodes) < MIN_PAGES:
        return []
    by_sig: dict[str, list[set]] = defaultdict(list)
    for node in nodes:
        first: dict[str, object] = {}
        for el in _marked(node):
            first.setdefault(signature(el), el)
        for sig, el in first.items():
            if said and normalize_text("".join(el.itertext())).casefold() in said:
                by_sig[sig].append(None)  # the feed says it: the post's own
            else:
                by_sig[sig].append(_words(el))
    out = []
    for sig, sets in by_sig.items():
        if len(sets) < 3 or len(sets) <= SHARED_SHARE * len(nodes) or any(s is None for s in sets):
            continue
        pairs = [_jaccard(a, b) for i, a in enumerate(sets) for b in sets[i + 1:]]
        if median(pairs) < LIKE:
            continue
        count = Counter(w for s in sets for w in s)
        core = sorted(w for w, c in count.items() if c * 2 > len(sets))
        if len(core) >= MIN_WORDS:
            out.append({"sig": sig, "words": core[:MAX_WORDS]})
    return sorted(out, key=lambda line: -len(line["words"]))[:MAX_LINES]


def without_template_lines(node, lines: list[dict] | None):
    """A copy of `node` without its marked elements that are one of the template's `lines` (the
    same mark, mostly the same words); `node` itself where it has none, or where nothing else
    would be left."""
    if node is None or not lines or isinstance(node, str):
        return node
    wanted = {line["sig"]: set(line["words"]) for line in lines if line.get("sig") and line.get("words")}
    if not wanted:
        return node

    def find(root) -> list:  # the elements of the lines' marks, however much of a short post they hold
        return [el for el in root.iter() if el is not root and isinstance(el.tag, str) and signature(el) in wanted
                and not any(signature(a) in wanted for a in _between(el, root))]

    def is_line(el) -> bool:
        return _jaccard(_words(el), wanted[signature(el)]) >= LIKE

    return without_elements(node, find, is_line)


def _between(el, root) -> list:
    """`el`'s ancestors below `root`."""
    out = []
    for a in el.iterancestors():
        if a is root:
            break
        out.append(a)
    return out
