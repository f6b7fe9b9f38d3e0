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
  When the feed has no author, the page's own metadata names one (meta author,
  rel=author, itemprop, JSON-LD, .author/.byline) and the rule is learned for that name.

For every chosen node the page votes for all the rule forms that select it
(tasks.learn.rules.element_rules); `reduce_rules` keeps the form most pages voted for.
"""
from __future__ import annotations

import re
from collections import defaultdict

from tasks.extract.metadata import site_names
from tasks.fetch.html import html_to_text, json_ld, node_text, parse_html
from tasks.learn.spans import learn_span, span_key
from tasks.learn.rules import (apply_rule, attribute_rules, element_rules, text_node_rules,
                         walk_scores)
from tasks.text.similarity import bigrams, normalize_text

try:  # tasks/text/dates.py is owned by another module; it is the contract we rely on
    from tasks.text.dates import parse_date, renderings
except ImportError:  # pragma: no cover - only while dates.py does not exist
    def renderings(iso, now=None):
        return [iso[:10]] if iso else []

    def parse_date(text, lang=None, now=None):
        m = re.search(r"\d{4}-\d{2}-\d{2}", text or "")
        return m.group(0) if m else None

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
_BY = re.compile(r"^(?:(?:posted|written|published|authored)\s+)?(?:by|par|von|por|di|door|author|"
                 r"auteur|autor|written by)\s*[:\-–—]?\s+", re.I)


# ---------------------------------------------------------------- helpers

_EMAIL = re.compile(r"\S+@\S+")
_EMPTY_PARENS = re.compile(r"\(\s*\)")
_OUTER_PARENS = re.compile(r"^\(|\)$")


def clean_author(name: str | None) -> str:
    """A person's name as feeds and pages print it, without e-mail or "By"."""
    s = normalize_text(name)
    if "@" in s:
        s = _EMAIL.sub("", s)
    if "(" in s or ")" in s:
        s = _OUTER_PARENS.sub("", _EMPTY_PARENS.sub("", s).strip())
    s = _BY.sub("", s.strip())
    s = s.split(" | ")[0]  # "Seth Zenz | USLHC | USA": the name, not its affiliations
    return s.strip(" ,;|-–—:")


def _plausible_name(s: str) -> bool:
    return bool(s) and len(s) <= 80 and len(s.split()) <= 6 and "://" not in s \
        and not s.startswith("@") and any(c.isalpha() for c in s)


_PARTICLES = {"van", "von", "de", "der", "den", "da", "di", "du", "del", "della", "la", "le", "bin", "ibn",
              "al", "el", "y", "e", "and", "&", "und", "et"}


def person_like(name: str) -> bool:
    """Does this read as a person's (or a login's) name rather than a tagline or a site title?
    One word passes (logins are names too); longer ones need capitalised words but for
    particles (van, de, bin) and no dotted words ("Ember.js")."""
    words = name.split()
    if not _plausible_name(name) or len(words) > 5:
        return False
    if len(words) == 1:
        return True
    caps = 0
    for w in words:
        if re.search(r"\w\.\w", w):
            return False
        if w.lower() in _PARTICLES:
            continue
        if w[:1].isupper() or not w[:1].isascii():
            caps += 1
        else:
            return False
    return caps > 0


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


def _short_candidates(tree: _Tree, sizes) -> list:
    """Machine-readable attribute values and bare text nodes: (node index, kind, key, text).

    kind "attr" (key = attribute name) or "text" (key = 1-based text() index)."""
    out = []
    for i, el in enumerate(tree.nodes):
        for attr in ("content", "datetime", "title", "value"):
            v = el.get(attr)
            if v and len(v) <= MAX_SHORT and (attr != "content" or el.tag == "meta" or el.get("itemprop")):
                out.append((i, "attr", attr, normalize_text(v)))
        if len(el) and sizes[i] and sizes[i] < 4 * MAX_SHORT:
            texts = el.xpath("text()")
            if len(texts) > 1 or (texts and len(el)):
                for k, t in enumerate(texts, 1):
                    t = normalize_text(t)
                    if t and len(t) <= MAX_SHORT and any(c.isalnum() for c in t):
                        out.append((i, "text", k, t))
    return out


def _rules_for(tree: _Tree, cand) -> list[str]:
    i, kind, key, _ = cand
    el = tree.nodes[i]
    if kind == "elem":
        return element_rules(el)
    if kind == "attr":
        return attribute_rules(el, key)
    return text_node_rules(el, key)


def page_authors(root, raw=None) -> list[str]:
    """Author names that the page's own metadata gives (for feeds without authors)."""
    probes = ["//meta[@name='author']/@content", "//meta[@property='author']/@content",
              "//meta[@name='article:author']/@content", "//meta[@property='article:author']/@content",
              "//meta[@name='dc.creator' or @name='DC.creator']/@content",
              "//*[@rel='author']", "//*[@itemprop='author']//*[@itemprop='name']",
              "//*[@itemprop='author']",
              "//*[contains(concat(' ', normalize-space(@class), ' '), ' author ')]",
              "//*[contains(concat(' ', normalize-space(@class), ' '), ' byline ')]",
              "//*[contains(concat(' ', normalize-space(@class), ' '), ' vcard ')]",
              "//*[contains(concat(' ', normalize-space(@class), ' '), ' fn ')]"]  # fn in vcard
    for p in probes:
        for r in apply_rule(root, p):
            name = clean_author(node_text(r))
            if _plausible_name(name):
                return [name]
    for obj in json_ld(raw):
        a = obj.get("author")
        for x in (a if isinstance(a, list) else [a]):
            name = clean_author(x.get("name") if isinstance(x, dict) else x if isinstance(x, str) else "")
            if _plausible_name(name):
                return [name]
    return []


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
    authors = [clean_author(a) for a in (target.get("authors") or [])]
    authors = [a for a in authors if a]
    author_source = "feed"
    site = site_names(root)  # a feed-level or meta author that is the site's name is no author
    if target.get("authors_from_feed"):
        authors = [a for a in authors if a.casefold() not in site]
    if target.get("authors_from_feed") or not all(person_like(a) for a in authors):
        # a feed-level author is often the site's name or tagline: the page's own metadata wins
        named = [a for a in page_authors(root, html) if person_like(a) and a.casefold() not in site]
        if named and not (set(named) & set(authors)):
            authors, author_source = named, "page"
    if not authors:
        authors, author_source = [a for a in page_authors(root, html) if a.casefold() not in site], "page"
    published = target.get("published")
    dates = renderings(published) if published else []

    targets = [title_t, content_t] + authors + dates
    nodes, sizes, inters, tsizes = walk_scores(root, targets)
    tree = _Tree(nodes)

    def dice_at(i, k):
        n = sizes[i] + tsizes[k]
        return 2 * inters[i][k] / n if n else 0.0

    out: dict = {f: None for f in FIELDS}

    # content: the most similar node, then (summaries) the block holding the post
    content_i = -1
    if content_t:
        content_i, cscore = _argmax([dice_at(i, 1) for i in range(len(nodes))])
    # title: most similar node, near-ties towards the content node
    title_i = None
    if title_t:
        scores = [dice_at(i, 0) for i in range(len(nodes))]
        top = max(scores) if scores else 0.0
        if top > 0:
            best, best_v = -1, float("-inf")
            for i, s in enumerate(scores):
                if s >= top - TITLE_TIE:
                    v = s + TITLE_TIE * tree.closeness(i, content_i if content_i >= 0 else None)
                    if v > best_v:
                        best, best_v = i, v
            span = learn_span(nodes[best], [title_t])
            if span is not None:
                # "Title | Site" in <head> beats "Title<small>subtitle</small>" in the page on
                # similarity; the body node that holds the title as a span is the post's own
                best, span = _body_title(tree, scores, best, span, title_t)
            title_i = best
            out["title"] = _with_span(_field(element_rules(nodes[best]), scores[best]), span)
    if content_i >= 0:
        if _is_summary(target, content_t):
            content_i = _climb(tree, content_i, title_i)
        out["content"] = _field(element_rules(nodes[content_i]), dice_at(content_i, 1))
    anchor = content_i if content_i >= 0 else None

    short = None
    if authors or dates:
        short = _short_candidates(tree, sizes)

    # authors
    if authors:
        ak = list(range(2, 2 + len(authors)))
        cands = []
        for i in range(len(nodes)):
            if sizes[i] and sizes[i] <= 4 * MAX_SHORT and nodes[i].tag not in _FORM_TAGS:
                s = max(dice_at(i, k) for k in ak)
                if s > 0.3:
                    cands.append((s + DISTANCE_WEIGHT * tree.closeness(i, anchor), s, (i, "elem", None, None)))
        for c in short:
            if nodes[c[0]].tag in _FORM_TAGS:
                continue
            s = max(_dice_pad(c[3], a) for a in authors)
            if s > 0.3:
                cands.append((s + DISTANCE_WEIGHT * tree.closeness(c[0], anchor), s, c))
        cands.sort(key=lambda x: -x[0])
        for total, s, c in cands[:10]:
            text = node_text(nodes[c[0]]) if c[1] == "elem" else c[3]
            if any(_contains_name(text, a) for a in authors):
                rules = _rules_for(tree, c)
                if rules:
                    named = [a for a in authors if _contains_name(text, a)]
                    span = learn_span(nodes[c[0]] if c[1] == "elem" else text, named, author=True)
                    out["author"] = _with_span(_field(rules, s) | {"source": author_source}, span)
                    break

    # date: best rendering similarity + closeness, and it must parse to the feed's day
    if dates:
        dk = list(range(2 + len(authors), 2 + len(authors) + len(dates)))
        cands = []
        for i in range(len(nodes)):
            if sizes[i] and sizes[i] <= 4 * MAX_SHORT:
                s = max(dice_at(i, k) for k in dk)
                if s > 0.2:
                    cands.append((s + DISTANCE_WEIGHT * tree.closeness(i, anchor), s, (i, "elem", None, None)))
        for c in short:
            s = max(_dice_pad(c[3], d) for d in dates)
            if s > 0.2:
                cands.append((s + DISTANCE_WEIGHT * tree.closeness(c[0], anchor), s, c))
        cands.sort(key=lambda x: -x[0])
        chosen = None  # (rules, score, dayfirst) of the best candidate on the feed's day
        for total, s, c in cands[:DATE_CHECKS]:
            text = node_text(nodes[c[0]]) if c[1] == "elem" else c[3]
            if chosen is not None and not _CLOCK.search(text):
                continue  # past the first on the day, only a time can do better
            found = parse_date(text)
            dayfirst = False
            if not _same_day(found, published):
                # 03/01/2008 read day first is this blog's convention, whatever its language
                found = parse_date(text, DAY_FIRST)
                dayfirst = _same_day(found, published)
                if not dayfirst:
                    continue
            rules = _rules_for(tree, c)
            if not rules:
                continue
            if _same_minute(found, published):
                # the post's own timestamp (a masthead showing the day's date is on the
                # feed's day too, on a news site most days, but it has no time)
                chosen = (rules, s, dayfirst)
                break
            if chosen is None:
                chosen = (rules, s, dayfirst)
        if chosen:
            rules, s, dayfirst = chosen
            out["date"] = _field(rules, s) | ({"dayfirst": True} if dayfirst else {})
    return out


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
    for i in [i for i in order if not _in_head(tree, i)][:tries]:
        text = normalize_text(node_text(tree.nodes[i])).casefold()
        if want not in text:
            continue
        if text == want:
            return i, None
        inner = learn_span(tree.nodes[i], [title])
        if inner is not None:
            return i, inner
    return best, span


def _contains_name(text: str, name: str) -> bool:
    f = lambda s: re.sub(r"[^\w]+", " ", s.casefold()).split()
    t, n = f(text), f(name)
    if not n:
        return False
    k = len(n)
    return any(t[j:j + k] == n for j in range(len(t) - k + 1))


def _with_span(field: dict | None, span: dict | None) -> dict | None:
    """A page's rule with the span of its node's text that holds the value (tasks.learn.spans)."""
    return field | {"span": span} if field and span else field


def _field(rules: list[str], score: float) -> dict | None:
    if not rules:
        return None
    return {"rule": rules[0], "score": round(float(score), 4), "rules": rules}


# ---------------------------------------------------------------- reduce

def reduce_rules(page_rules: list) -> dict:
    """Algorithm 1's vote: per field, the rule the most pages chose (each page votes
    for every form of its best node), with its vote share over all pages and its
    mean score; ties go to the form pages ranked first (id, class before paths),
    then to the higher mean score."""
    out: dict = {}
    pages = [p for p in page_rules if isinstance(p, dict)]
    n = len(pages)
    for field in FIELDS:
        votes = defaultdict(int)
        scores = defaultdict(list)
        ranks = defaultdict(list)
        dayfirst = defaultdict(int)
        spans = defaultdict(dict)  # rule -> span key -> [votes, span]
        extra = {}
        for p in pages:
            f = p.get(field)
            if not f or not f.get("rule"):
                continue
            forms = f.get("rules") or [f["rule"]]
            for r, rule in enumerate(dict.fromkeys(forms)):
                votes[rule] += 1
                scores[rule].append(float(f.get("score") or 0.0))
                ranks[rule].append(r)
                if "source" in f:
                    extra.setdefault(rule, {"source": f["source"]})
                if f.get("dayfirst"):
                    dayfirst[rule] += 1
                if f.get("span"):
                    spans[rule].setdefault(span_key(f["span"]), [0, f["span"]])[0] += 1
        if not votes:
            out[field] = None
            continue
        order = sorted(votes, key=lambda r: (votes[r], -sum(ranks[r]) / len(ranks[r]),
                                             sum(scores[r]) / len(scores[r])), reverse=True)
        best = order[0]
        # runners-up that select other nodes' forms too: tried in turn on a page where
        # the best rule selects nothing (a post without a byline, another template)
        fallbacks = [r for r in order[1:] if votes[r] * 5 >= votes[best]][:FALLBACKS]
        out[field] = {"rule": best, "share": round(votes[best] / n, 4),
                      "score": round(sum(scores[best]) / len(scores[best]), 4),
                      "fallbacks": fallbacks} | extra.get(best, {})
        if dayfirst[best]:
            out[field]["dayfirst"] = True
        # the span most pages of the best rule learned, if a fifth of them did (posts whose
        # node holds the value alone, a title without a counter, vote for none; a span that
        # does not fit a post leaves its text whole), twice unless the rule has two votes
        top = max(spans[best].values(), key=lambda v: v[0], default=None)
        if top and 5 * top[0] >= votes[best] and (top[0] >= 2 or votes[best] <= 2):
            out[field]["span"] = top[1]
    return out
