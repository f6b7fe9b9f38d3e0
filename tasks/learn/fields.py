"""Rule learning: one page and its feed entry -> the best rule per field; many -> a vote.

`learn_page` runs Algorithm 2's walk once over the page with every target at once
(title, content, each author, each rendering of the date) and picks, per field:

* content: the node most similar to the feed's content. When the feed gives only a
  summary (the first paragraph or so), that node is a paragraph, so we climb from it
  to the block that holds the whole post: the highest ancestor that still does not
  contain the post's title (the post body sits beside its title, not around it).
* title: the most similar node, near-ties broken towards the content node.
* authors and date: similarity plus a tree-distance term to the content node (the
  byline and the date sit next to the post, not in the sidebar). Machine-readable
  values count as candidates too (`meta/@content`, `time/@datetime`) and so do bare
  text nodes. A date candidate must parse (tasks.text.dates) to the feed's day +-1.
  When the feed has no author, the page's own metadata names one (tasks.learn.authors)
  and the rule is learned for that name.

For every chosen node the page votes for all the rule forms that select it
(tasks.learn.rules.element_rules); `reduce_rules` keeps the form most pages voted for.
"""
from __future__ import annotations

import re
from collections import defaultdict

from tasks.fetch.html import html_to_text, node_text, parse_html
from tasks.learn.authors import author_marked, clean_author, contains_name, page_authors, person_like, target_authors
from tasks.learn.spans import learn_span, span_key
from tasks.learn.rules import attribute_rules, element_rules, text_node_rules, walk_scores
from tasks.text.similarity import bigrams, normalize_text

try:  # tasks/text/dates.py is owned by another module; it is the contract we rely on
    from tasks.text.dates import parse_date, renderings
except ImportError:  # pragma: no cover - only while dates.py does not exist
    def renderings(iso, now=None):
        return [iso[:10]] if iso else []

    def parse_date(text, lang=None, now=None):
        m = re.search(r"\d{4}-\d{2}-\d{2}", text or "")
        return m.group(0) if m else None

__all__ = ["learn_page", "reduce_rules", "clean_author", "page_authors", "person_like", "DAY_FIRST"]

FIELDS = ("title", "content", "author", "date")
DISTANCE_WEIGHT = 0.25  # weight of closeness 1/(1+tree distance) for authors and dates
TITLE_TIE = 0.02  # titles: closeness only breaks near-ties
MAX_SHORT = 300  # author/date candidates longer than this are not bylines or dates
DATE_CHECKS = 40
FALLBACKS = 4  # runner-up rules kept per field
_FORM_TAGS = {"select", "option", "optgroup", "form", "input", "textarea", "button", "label"}  # widgets, not bylines
DAY_FIRST = "en-gb"  # a language hint that makes tasks.text.dates read 03/01/2008 as 3 January
_SUMMARY_END = re.compile(r"(\.\.\.|…|\[…\]|\[\.\.\.\]|read more|continue reading|lire la suite|"
                          r"weiterlesen|leer más|seguir leyendo)\W*$", re.I)
_BLOCKS = {"p", "blockquote", "pre", "ul", "ol", "dl", "table", "figure", "h1", "h2", "h3", "h4",
           "h5", "h6", "li", "span", "a", "em", "strong", "b", "i", "img", "br", "code", "section"}
_VALUE_ATTRS = ("content", "datetime", "title", "value")


# ---------------------------------------------------------------- helpers

def _depths_and_parents(nodes):
    index = {id(n): i for i, n in enumerate(nodes)}
    parent = [-1] * len(nodes)
    depth = [0] * len(nodes)
    for i, n in enumerate(nodes):  # document order: a parent comes before its children
        p = n.getparent()
        if p is not None and id(p) in index:
            parent[i] = index[id(p)]
            depth[i] = depth[parent[i]] + 1
    return index, parent, depth


class _Tree:
    """Node indices, parents and depths for tree distances between elements."""

    def __init__(self, nodes):
        self.nodes = nodes
        self.index, self.parent, self.depth = _depths_and_parents(nodes)

    def distance(self, a: int, b: int) -> int:
        da, db = self.depth[a], self.depth[b]
        d = 0
        while da > db:
            a, da, d = self.parent[a], da - 1, d + 1
        while db > da:
            b, db, d = self.parent[b], db - 1, d + 1
        while a != b:
            a, b, d = self.parent[a], self.parent[b], d + 2
        return d

    def closeness(self, a: int, b: int | None) -> float:
        if b is None or a < 0:
            return 0.0
        return 1.0 / (1.0 + self.distance(a, b))

    def contains(self, anc: int, node: int) -> bool:
        while node >= 0:
            if node == anc:
                return True
            node = self.parent[node]
        return False


def _dice_pad(a: str, b: str) -> float:
    A, B = bigrams(" " + a + " "), bigrams(" " + b + " ")
    return 2 * len(A & B) / (len(A) + len(B)) if A or B else 0.0


_CLOCK = re.compile(r"\d:\d\d")


def _same_minute(found: str | None, iso: str | None) -> bool:
    """Do a date read on the page and the feed's date both have a time, with the same
    minutes? (Hours differ by the page's time zone; minutes agree but for :30 zones.)"""
    return bool(found and iso and len(found) >= 16 and len(iso) >= 16 and found[10] == "T" == iso[10]
                and found[14:16] == iso[14:16])


def _same_day(found: str | None, iso: str | None) -> bool:
    import datetime as dt
    if not found or not iso:
        return False
    try:
        a = dt.date.fromisoformat(found[:10])
        b = dt.date.fromisoformat(iso[:10])
    except ValueError:
        return False
    return abs((a - b).days) <= 1


def _attribute_candidates(i: int, el) -> list:
    """Machine-readable values of node `i` (`time/@datetime`, `meta/@content`: content only
    on meta or itemprop nodes, elsewhere it is page data)."""
    out = []
    for attr in _VALUE_ATTRS:
        v = el.get(attr)
        if v and len(v) <= MAX_SHORT and (attr != "content" or el.tag == "meta" or el.get("itemprop")):
            out.append((i, "attr", attr, normalize_text(v)))
    return out


def _text_node_candidates(i: int, el) -> list:
    """The bare text nodes of node `i` beside its children ("Posted by <a>Jane</a> on 3 May")."""
    texts = el.xpath("text()")
    if not (len(texts) > 1 or (texts and len(el))):
        return []
    out = []
    for k, t in enumerate(texts, 1):
        t = normalize_text(t)
        if t and len(t) <= MAX_SHORT and any(c.isalnum() for c in t):
            out.append((i, "text", k, t))
    return out


def _short_candidates(tree: _Tree, sizes) -> list:
    """Machine-readable attribute values and bare text nodes: (node index, kind, key, text).

    kind "attr" (key = attribute name) or "text" (key = 1-based text() index)."""
    out = []
    for i, el in enumerate(tree.nodes):
        out += _attribute_candidates(i, el)
        if len(el) and sizes[i] and sizes[i] < 4 * MAX_SHORT:
            out += _text_node_candidates(i, el)
    return out


def _rules_for(tree: _Tree, cand) -> list[str]:
    i, kind, key, _ = cand
    el = tree.nodes[i]
    if kind == "elem":
        return element_rules(el)
    if kind == "attr":
        return attribute_rules(el, key)
    return text_node_rules(el, key)


# ---------------------------------------------------------------- learning

def _is_summary(target: dict, content: str) -> bool:
    if target.get("content_is_summary"):
        return True
    return bool(_SUMMARY_END.search(content[-40:]))


def _argmax(values, key=None):
    best_i, best = -1, float("-inf")
    for i, v in enumerate(values):
        if v > best:
            best_i, best = i, v
    return best_i, best


def _climb(tree: _Tree, start: int, title: int | None) -> int:
    """From the node matching a summary, up to the block that holds the whole post:
    the highest ancestor that does not contain the title node. If the title sits
    right beside the summary paragraph (no body wrapper), the shared parent is it."""
    if title is None or start < 0:
        return start
    if tree.contains(start, title):
        return start
    cur = start
    while True:
        p = tree.parent[cur]
        if p < 0 or tree.nodes[p].tag in ("body", "html"):
            break
        if tree.contains(p, title):
            if tree.nodes[cur].tag in _BLOCKS:
                cur = p  # the summary is one paragraph among the post's own blocks
            break
        cur = p
    return cur


class _Scores:
    """One walk's similarities (Algorithm 2) of every node to every target, and the tree of
    those nodes for closeness."""

    def __init__(self, root, targets: list[str]):
        self.nodes, self.sizes, self.inters, self.tsizes = walk_scores(root, targets)
        self.tree = _Tree(self.nodes)

    def dice(self, i: int, k: int) -> float:
        """Dice of node `i`'s padded bigrams and target `k`'s."""
        n = self.sizes[i] + self.tsizes[k]
        return 2 * self.inters[i][k] / n if n else 0.0

    def column(self, k: int) -> list[float]:
        return [self.dice(i, k) for i in range(len(self.nodes))]

    def text(self, cand) -> str:
        """A candidate's text: its node's for an element, else the value itself."""
        return node_text(self.nodes[cand[0]]) if cand[1] == "elem" else cand[3]


def learn_page(html, url: str | None, target: dict) -> dict:
    """The best rule per field for one page and its feed entry.

    target: {"title", "content" (html or text), "content_is_summary": bool,
             "authors": [...], "published": iso}
    Returns {"title"|"content"|"author"|"date": {"rule", "score", "rules"} or None},
    where "rules" lists every rule form that selects the chosen node (the page's votes).
    """
    root = parse_html(html, url)
    title_t = html_to_text(target.get("title") or "")
    content_t = html_to_text(target.get("content") or "")
    authors, author_source = target_authors(root, html, target)
    published = target.get("published")
    dates = renderings(published) if published else []
    page = _Scores(root, [title_t, content_t] + authors + dates)
    out: dict = {f: None for f in FIELDS}

    # content: the most similar node, then (summaries) the block holding the post
    content_i = _argmax(page.column(1))[0] if content_t else -1
    title_i = None
    if title_t:
        title_i, out["title"] = _learn_title(page, title_t, content_i)
    if content_i >= 0:
        content_i, out["content"] = _learn_content(page, content_i, title_i, _is_summary(target, content_t))
    anchor = content_i if content_i >= 0 else None
    short = _short_candidates(page.tree, page.sizes) if authors or dates else None
    if authors:
        keys = range(2, 2 + len(authors))
        cands = _near_candidates(page, short, keys, authors, 0.3, anchor, skip=_FORM_TAGS)
        out["author"] = _learn_author(page, cands[:10], authors, author_source)
    if dates:
        keys = range(2 + len(authors), 2 + len(authors) + len(dates))
        cands = _near_candidates(page, short, keys, dates, 0.2, anchor)
        out["date"] = _learn_date(page, cands[:DATE_CHECKS], published)
    return out


def _learn_title(page: _Scores, title: str, content_i: int) -> tuple[int | None, dict | None]:
    """(node, rule field) of the title: the most similar node, near-ties towards the
    content node; (None, None) where no node resembles it."""
    scores = page.column(0)
    top = max(scores) if scores else 0.0
    if top <= 0:
        return None, None
    best = _innermost(page.tree, scores, _near_tie(page.tree, scores, top, content_i if content_i >= 0 else None))
    span = learn_span(page.nodes[best], [title])
    # "Title | Site" in <head> beats "Title<small>subtitle</small>" in the page on similarity,
    # and <title> saying the title exactly ties with the page's heading: the body node that
    # holds the title (whole or as a span) is the post's own, the title as the page shows it
    # (where the head's differs, on a post retitled after its metadata was written)
    best, span = _body_title(page.tree, scores, best, span, title)
    return best, _with_span(_field(element_rules(page.nodes[best]), scores[best]), span)


def _innermost(tree: _Tree, scores: list[float], best: int) -> int:
    """The deepest node inside `best` that scores as well: the heading itself, not a block that
    holds it and, on this page, nothing else with text (on the next, the post's tags too)."""
    inner = best
    for i, s in enumerate(scores):
        if i != best and s >= scores[best] and tree.depth[i] > tree.depth[inner] and tree.contains(best, i):
            inner = i
    return inner


def _near_tie(tree: _Tree, scores: list[float], top: float, anchor: int | None) -> int:
    """Among the nodes within TITLE_TIE of the best score, the one closest to `anchor`."""
    best, best_v = -1, float("-inf")
    for i, s in enumerate(scores):
        if s >= top - TITLE_TIE:
            v = s + TITLE_TIE * tree.closeness(i, anchor)
            if v > best_v:
                best, best_v = i, v
    return best


def _learn_content(page: _Scores, start: int, title_i: int | None, summary: bool) -> tuple[int, dict | None]:
    """(node, rule field) of the content: the most similar node, or for a summary the
    block above it that holds the whole post."""
    node = _climb(page.tree, start, title_i) if summary else start
    return node, _field(element_rules(page.nodes[node]), page.dice(node, 1))


def _near_candidates(page: _Scores, short: list, keys, values: list[str], floor: float,
                     anchor: int | None, skip=frozenset()) -> list:
    """Candidates for a byline or a date, best first, as (total, similarity, candidate):
    elements (tags in `skip` aside) whose text resembles one of the targets `keys`, and
    short values resembling one of `values`, above `floor`; total adds closeness to the
    content node (`anchor`)."""
    cands = []
    for i, el in enumerate(page.nodes):
        if page.sizes[i] and page.sizes[i] <= 4 * MAX_SHORT and el.tag not in skip:
            s = max(page.dice(i, k) for k in keys)
            if s > floor:
                cands.append((s + DISTANCE_WEIGHT * page.tree.closeness(i, anchor), s, (i, "elem", None, None)))
    for c in short:
        if page.nodes[c[0]].tag in skip:
            continue
        s = max(_dice_pad(c[3], v) for v in values)
        if s > floor:
            cands.append((s + DISTANCE_WEIGHT * page.tree.closeness(c[0], anchor), s, c))
    cands.sort(key=lambda x: -x[0])
    return cands


def _learn_author(page: _Scores, cands: list, authors: list[str], source: str) -> dict | None:
    """The rule field of the first candidate that names one of `authors` and has a rule,
    with the span of its text that holds the names. Where several name them as well, one the
    page marks as the author's (rel/itemprop/class "author") goes first: the byline, not a
    "posted in A, B, C by X" line whose link to X moves with the number of tags."""
    named_cands = []
    for _, s, c in cands:
        text = page.text(c)
        named = [a for a in authors if contains_name(text, a)]
        if named:
            named_cands.append((s, c, text, named))
    if named_cands:
        top = named_cands[0][0]
        marked = [x for x in named_cands if x[0] >= top - AUTHOR_TIE and author_marked(page.nodes[x[1][0]])]
        named_cands = marked[:1] + [x for x in named_cands if not marked or x is not marked[0]]
    for s, c, text, named in named_cands:
        rules = _rules_for(page.tree, c)
        if rules:
            span = learn_span(page.nodes[c[0]] if c[1] == "elem" else text, named, author=True)
            return _with_span(_field(rules, s) | {"source": source}, span)
    return None


AUTHOR_TIE = 0.01  # similarity within which candidates naming the author tie


def _day_reading(text: str, published: str | None) -> tuple[str, bool] | None:
    """(date read, read day first?) where `text` parses to the feed's day +-1, else None.
    03/01/2008 read day first is the blog's convention, whatever its language."""
    found = parse_date(text)
    if _same_day(found, published):
        return found, False
    found = parse_date(text, DAY_FIRST)
    return (found, True) if _same_day(found, published) else None


_MODIFIED = re.compile(r"modif|updated|lastmod|edited", re.I)


def _says_modified(el) -> bool:
    """Does the node name itself a modification date (class, itemprop, property, name)?"""
    return bool(_MODIFIED.search(" ".join(el.get(a) or "" for a in ("class", "itemprop", "property", "name"))))


def _published_first(page: _Scores, cands: list, published: str | None) -> list:
    """`cands` with each node that says it holds a modification date (hAtom's `updated`,
    schema.org's dateModified) moved after an unmarked one beside it (under the same
    grandparent) on the feed's day: a post never edited shows one day in both, and the rule
    must hold on the posts that were. Elsewhere the order stands (a comment's date is never
    preferred so)."""
    out = list(cands)
    for m in [x for x in cands if _says_modified(page.nodes[x[2][0]])]:
        el = page.nodes[m[2][0]].getparent()
        near = el.getparent() if el is not None and el.getparent() is not None else el
        k = out.index(m)
        for u in out[k + 1:]:
            node = page.nodes[u[2][0]]
            if near is not None and not _says_modified(node) and any(node is n for n in near.iter()) \
                    and _day_reading(page.text(u[2]), published):
                out.remove(m)
                out.insert(out.index(u) + 1, m)
                break
    return out


def _learn_date(page: _Scores, cands: list, published: str | None) -> dict | None:
    """The rule field of the first candidate on the feed's day, or of a later one that
    also shows the feed's minute (the post's own timestamp: a masthead showing the day's
    date is on the feed's day too, on a news site most days, but it has no time)."""
    chosen = None  # (rules, score, dayfirst) of the best candidate on the feed's day
    cands = _published_first(page, cands, published)
    for _, s, c in cands:
        text = page.text(c)
        if chosen is not None and not _CLOCK.search(text):
            continue  # past the first on the day, only a time can do better
        reading = _day_reading(text, published)
        rules = _rules_for(page.tree, c) if reading else None
        if not rules:
            continue
        found, dayfirst = reading
        if _same_minute(found, published):
            chosen = (rules, s, dayfirst)
            break
        if chosen is None:
            chosen = (rules, s, dayfirst)
    if not chosen:
        return None
    rules, s, dayfirst = chosen
    return _field(rules, s) | ({"dayfirst": True} if dayfirst else {})


def _in_head(tree: _Tree, i: int) -> bool:
    while i >= 0:
        if tree.nodes[i].tag == "head":
            return True
        i = tree.parent[i]
    return False


def _body_title(tree: _Tree, scores: list, best: int, span: dict, title: str, tries: int = 40) -> tuple:
    """(node, span) of the title: `best` unless it sits in <head> and a node of the body,
    among the next most similar, holds the title whole or as a span."""
    if not _in_head(tree, best):
        return best, span
    want = normalize_text(title).casefold()
    # headings first (a breadcrumb "Home » Title" holds the title too), then by similarity
    order = sorted((i for i, s in enumerate(scores) if s > 0.1),
                   key=lambda i: (tree.nodes[i].tag not in ("h1", "h2", "h3"), -scores[i]))
    head = {id(e) for n in tree.nodes if n.tag == "head" for e in n.iter()}  # (one walk: a page 5,000 deep)
    for i in [i for i in order if id(tree.nodes[i]) not in head][:tries]:
        text = normalize_text(node_text(tree.nodes[i])).casefold()
        if want not in text:
            continue
        if text == want:
            return i, None
        inner = learn_span(tree.nodes[i], [title])
        if inner is not None:
            return i, inner
    return best, span


def _with_span(field: dict | None, span: dict | None) -> dict | None:
    """A page's rule with the span of its node's text that holds the value (tasks.learn.spans)."""
    return field | {"span": span} if field and span else field


def _field(rules: list[str], score: float) -> dict | None:
    if not rules:
        return None
    return {"rule": rules[0], "score": round(float(score), 4), "rules": rules}


# ---------------------------------------------------------------- reduce

class _Tally:
    """One field's votes across pages: per rule form, the pages voting for it, their
    scores, the rank each gave it, how many read its dates day first, the spans they
    learned (span key -> [votes, span]) and the extra keys of the first vote (source)."""

    def __init__(self):
        self.votes = defaultdict(int)
        self.scores = defaultdict(list)
        self.ranks = defaultdict(list)
        self.dayfirst = defaultdict(int)
        self.spans = defaultdict(dict)
        self.extra = {}

    def add(self, f: dict):
        """A page's field: a vote for each form of its rule, in the page's order."""
        for r, rule in enumerate(dict.fromkeys(f.get("rules") or [f["rule"]])):
            self.votes[rule] += 1
            self.scores[rule].append(float(f.get("score") or 0.0))
            self.ranks[rule].append(r)
            if "source" in f:
                self.extra.setdefault(rule, {"source": f["source"]})
            if f.get("dayfirst"):
                self.dayfirst[rule] += 1
            if f.get("span"):
                self.spans[rule].setdefault(span_key(f["span"]), [0, f["span"]])[0] += 1

    def mean_score(self, rule: str) -> float:
        return sum(self.scores[rule]) / len(self.scores[rule])

    def order(self) -> list[str]:
        """Rules by votes, then by the rank pages gave them (id, class before paths), then
        by mean score."""
        return sorted(self.votes, key=lambda r: (self.votes[r], -sum(self.ranks[r]) / len(self.ranks[r]),
                                                 self.mean_score(r)), reverse=True)

    def span(self, rule: str) -> dict | None:
        """The span most pages of `rule` learned, if a fifth of them did (posts whose node
        holds the value alone, a title without a counter, vote for none; a span that does
        not fit a post leaves its text whole), twice unless the rule has two votes."""
        top = max(self.spans[rule].values(), key=lambda v: v[0], default=None)
        if top and 5 * top[0] >= self.votes[rule] and (top[0] >= 2 or self.votes[rule] <= 2):
            return top[1]
        return None


def _tally(pages: list[dict], field: str) -> _Tally:
    tally = _Tally()
    for p in pages:
        f = p.get(field)
        if f and f.get("rule"):
            tally.add(f)
    return tally


def _elected(tally: _Tally, n: int) -> dict:
    """The field's rule from its votes over `n` pages, with share, mean score, fallbacks."""
    order = tally.order()
    best = order[0]
    # runners-up that select other nodes' forms too: tried in turn on a page where
    # the best rule selects nothing (a post without a byline, another template)
    fallbacks = [r for r in order[1:] if tally.votes[r] * 5 >= tally.votes[best]][:FALLBACKS]
    out = {"rule": best, "share": round(tally.votes[best] / n, 4), "score": round(tally.mean_score(best), 4),
           "fallbacks": fallbacks} | tally.extra.get(best, {})
    if tally.dayfirst[best]:
        out["dayfirst"] = True
    span = tally.span(best)
    if span:
        out["span"] = span
    return out


def reduce_rules(page_rules: list) -> dict:
    """Algorithm 1's vote: per field, the rule the most pages chose (each page votes
    for every form of its best node), with its vote share over all pages and its
    mean score; ties go to the form pages ranked first (id, class before paths),
    then to the higher mean score."""
    pages = [p for p in page_rules if isinstance(p, dict)]
    out: dict = {}
    for field in FIELDS:
        tally = _tally(pages, field)
        out[field] = _elected(tally, len(pages)) if tally.votes else None
    return out
