"""Comments of a post: from its comment feed, and from its page by a learned rule.

A comment feed (wfw:commentRss, Atom replies, Blogger's and WordPress's per-post feeds)
gives exact comments but often only the newest few. When a post has more comments than
its feed lists, the page is the only source: we learn a *comment rule* on it, supervised
by the feed's comments (paper, section 4.1):

1. text rule: every element whose text resembles a feed comment proposes group rules
   (rules meant to select many nodes: a class token, an anchored path, the absolute path
   without positions). Rules returning fewer nodes than the feed has comments are
   dropped; the rest are scored by the maximum weighted bipartite matching between the
   nodes they return and the feed's comments (weight = similarity, solved by
   scipy.optimize.linear_sum_assignment). The best score wins, fewer nodes break ties.
2. container: for each matched node, the lowest ancestor that also holds the feed
   comment's author; a group rule that selects those containers.
3. author, date and text rules relative to the container, each chosen by how well it
   reproduces the matched feed comments.

A rule is plain JSON ({"container", "author", "date", "text"}, XPath strings), learned once
per blog and applied to every other post. Replies: a comment is the reply of the nearest
earlier comment whose thread element (the comment's container or its parent) encloses it
at a greater depth. Pure functions: text in, plain data out.
"""
from __future__ import annotations

import re
import threading
import urllib.parse

from lxml import etree

from tasks.text.dates import parse_date
from tasks.fetch.html import node_text
from tasks.learn.fields import clean_author
from tasks.learn.rules import apply_rule, xpath_literal
from tasks.text.similarity import bigrams, normalize_text

__all__ = ["feed_comments", "learn_comment_rule", "extract_comments", "match_comments", "merge_comments",
           "comment_id", "comment_page_links", "comment_feed_links", "similarity", "KNOWN_RULES", "MIN_SIMILARITY"]

MIN_SIMILARITY = 0.5  # a page node "is" a feed comment from this similarity on
SAME_COMMENT = 0.8  # a page comment and a feed comment merged into one from this similarity on
MAX_SEEDS = 60  # elements proposing text rules, best first
ANCESTOR_LEVELS = 6
MAX_NODES_PER_COMMENT = 40  # rules returning more nodes than this per feed comment are noise (every <p>)

# Comment markup of the common platforms, tried (in order) when a blog has no learned
# rule and no comment feed to learn one from.
_HAS = "contains(concat(' ', normalize-space(@class), ' '), ' {} ')"
_SUB = "contains(@class, '{}')"
KNOWN_RULES: tuple[dict, ...] = (
    {"container": "//*[contains(@itemtype, 'schema.org/Comment')]",
     "author": ".//*[@itemprop='author']", "date": ".//*[@itemprop='dateCreated' or @itemprop='datePublished']",
     "text": ".//*[@itemprop='text']"},
    {"container": f"//*[{_HAS.format('comment-body')}][.//*[{_HAS.format('comment-content')}]]",
     "author": f".//*[{_HAS.format('fn')}]", "date": ".//time",
     "text": f".//*[{_HAS.format('comment-content')}]"},
    {"container": f"//*[{_HAS.format('comment-block')}]", "author": f".//*[{_HAS.format('user')}]",
     "date": f".//*[{_HAS.format('datetime')}]", "text": f".//*[{_HAS.format('comment-content')}]"},
    {"container": f"//*[self::li or self::div or self::article][{_HAS.format('comment')}]",
     "author": f".//*[{_SUB.format('author')} or {_SUB.format('user')} or @itemprop='author']",
     "date": f".//time | .//*[{_SUB.format('date')}]",
     "text": f".//*[{_SUB.format('comment-text')} or {_SUB.format('comment-content')} or "
             f"{_HAS.format('text')} or {_HAS.format('content')} or {_SUB.format('message')}]"},
)

_DATE_ATTRS = ("datetime", "content", "title", "data-timestamp", "data-time")
_COMMENT_PAGE = re.compile(r"/comment-page-\d+/?$|[?&](?:cpage|commentPage|comment_page|comments_page)=\d+", re.I)
_COMMENT_PAGE_HINT = re.compile(r"comment|cpage", re.I)
_HREFS = etree.XPath("//a/@href", smart_strings=False, regexp=False)
_COMMENT_WORDS = re.compile(r"comment|commentaire|comentario|kommentar|réponse|replies", re.I)


# ---------------------------------------------------------------- similarity and matching

def _pad(s: str) -> str:
    return " " + normalize_text(s) + " "


def similarity(a: str | None, b: str | None) -> float:
    """Dice of the bigram sets of the two texts, each padded with a space (as tasks.learn.rules)."""
    if not a or not b:
        return 0.0
    A, B = bigrams(_pad(a)), bigrams(_pad(b))
    return 2 * len(A & B) / (len(A) + len(B)) if A or B else 0.0


def _sim_sets(A: set, B: set) -> float:
    if not A or not B:
        return 0.0
    return 2 * len(A & B) / (len(A) + len(B))


def match_comments(texts: list[str], targets: list[str], *, sets=None, target_sets=None):
    """Maximum weighted bipartite matching of page texts to feed texts (weight = similarity).

    Returns (score, pairs): score is the matched weight over len(targets) (1.0 when every
    feed comment has an identical node), pairs [(text index, target index, weight)].
    """
    import numpy as np

    from tasks.extract.assignment import max_weight_assignment

    if (not texts and not sets) or not targets:
        return 0.0, []
    sets = sets if sets is not None else [bigrams(_pad(t)) for t in texts]
    target_sets = target_sets if target_sets is not None else [bigrams(_pad(t)) for t in targets]
    w = np.zeros((len(sets), len(target_sets)))
    for i, a in enumerate(sets):
        la = len(a)
        for j, b in enumerate(target_sets):
            lb = len(b)
            if la and lb and 2 * min(la, lb) / (la + lb) >= 0.2:  # dice can not exceed this bound
                w[i, j] = 2 * len(a & b) / (la + lb)
    rows, cols = max_weight_assignment(w)
    pairs = [(int(r), int(c), float(w[r, c])) for r, c in zip(rows, cols) if w[r, c] > 0]
    return sum(p[2] for p in pairs) / len(targets), pairs


# ---------------------------------------------------------------- feed comments

def comment_id(href: str | None, post_url: str | None) -> str | None:
    """One id per comment whichever source names it: a link to the post (or to one of its
    comment pages, with any query: ?showComment=, ?replytocom=) with a #fragment becomes
    post_url#fragment; any other link or id is kept as it is."""
    if not href or not post_url:
        return href or None
    u = urllib.parse.urljoin(post_url, href)
    s, p = urllib.parse.urlsplit(u), urllib.parse.urlsplit(post_url)
    if not s.fragment or s.netloc != p.netloc:
        return u
    if re.sub(r"/comment-page-\d+/?$", "/", s.path).rstrip("/") != p.path.rstrip("/"):
        return u
    return post_url.split("#")[0] + "#" + s.fragment


def feed_comments(items: list[dict], post_url: str | None = None) -> list[dict]:
    """tasks.discover.feeds.parse_comment_feed's items as record comments, oldest first.

    {"id", "url", "author", "published", "content_text", "parent"}; `parent` is the
    id of the comment answered (None for a comment on the post). With `post_url`, ids are
    comment_id's (post_url#fragment), the ids the post's page gives the same comments."""
    out = [{"id": comment_id(c.get("url"), post_url) or c.get("id"), "url": c.get("url"),
            "author": clean_author(c.get("author")) or None, "published": c.get("published"),
            "content_text": normalize_text(c.get("content_text")), "parent": c.get("parent")}
           for c in items or []]
    alias = {}
    for c, raw in zip(out, items or []):
        for k in (raw.get("id"), raw.get("url")):
            if k:
                alias[k] = c["id"]
    for c in out:
        if c["parent"]:
            c["parent"] = alias.get(c["parent"]) or comment_id(c["parent"], post_url)
    return sorted(out, key=lambda c: c["published"] or "")


# ---------------------------------------------------------------- group rules

def _tokens(el) -> list[str]:
    return [t for t in (el.get("class") or "").split() if re.fullmatch(r"[A-Za-z_-][A-Za-z_-]*", t)][:6]


def _tag(el) -> str:
    t = el.tag
    return t if isinstance(t, str) and re.fullmatch(r"[A-Za-z][\w-]*", t) else "*"


def _stable_id(v: str | None) -> bool:
    return bool(v) and len(v) <= 80 and not re.search(r"\d", v) and "'" not in v and '"' not in v


def _anchors(el) -> list[str]:
    out = []
    if _stable_id(el.get("id")):
        out.append(f"//*[@id={xpath_literal(el.get('id'))}]")
    tag = _tag(el)
    out += [f"//{tag}[{_HAS.format(t)}]" for t in _tokens(el)]
    return out


def _unpositioned(path: str) -> str:
    return re.sub(r"\[\d+\]", "", path)


def group_rules(el) -> list[str]:
    """Rules that select `el` together with the nodes like it (its siblings in a list of
    comments): class tokens, semantic attributes, id- or class-anchored paths, and the
    absolute path without positions."""
    tag = _tag(el)
    out = list(_anchors(el))[1 if _stable_id(el.get("id")) else 0:]  # its own id names one node
    for a in ("itemprop", "role"):
        v = el.get(a)
        if v and len(v) < 60 and "'" not in v:
            out.append(f"//{tag}[@{a}={xpath_literal(v)}]")
    steps, node = [], el
    for _ in range(ANCESTOR_LEVELS):
        parent = node.getparent()
        if parent is None or not isinstance(parent.tag, str):
            break
        steps.insert(0, _tag(node))
        for anchor in _anchors(parent):
            out.append(anchor + "/" + "/".join(steps))
            out.append(anchor + "//" + tag)
            out += [anchor + f"//{tag}[{_HAS.format(t)}]" for t in _tokens(el)]
        node = parent
    out.append(_unpositioned(el.getroottree().getpath(el)))
    return list(dict.fromkeys(out))


def relative_rules(container, el) -> list[str]:
    """Rules from `container` to `el`: a descendant (by class token or semantic attribute
    anywhere below, by tag, by the child path without positions) or, for comments that
    are runs of siblings, a node in a nearby sibling (preceding-sibling::*[k]...)."""
    if el is container:
        return ["."]
    tag = _tag(el)
    below = [f"//{tag}[{_HAS.format(t)}]" for t in _tokens(el)]
    below += [f"//*[{_HAS.format(t)}]" for t in _tokens(el)]
    for a in ("itemprop", "rel", "role"):
        v = el.get(a)
        if v and len(v) < 60 and "'" not in v:
            below.append(f"//{tag}[@{a}={xpath_literal(v)}]")
    below.append(f"//{tag}")
    if _is_ancestor(container, el):
        steps, node = [], el
        while node is not None and node is not container:
            steps.insert(0, _tag(node))
            node = node.getparent()
        return list(dict.fromkeys(["." + b for b in below[:-1]] + ["./" + "/".join(steps), "." + below[-1]]))
    parent = container.getparent()
    if parent is None:
        return []
    kids = [k for k in parent if isinstance(k.tag, str)]
    i = kids.index(container)
    for j, k in enumerate(kids):
        if k is el or _is_ancestor(k, el):
            axis = f"preceding-sibling::*[{i - j}]" if j < i else f"following-sibling::*[{j - i}]"
            if k is el:
                return [axis]
            return list(dict.fromkeys([axis + b for b in below]))
    return []


def _elements(nodes) -> list:
    return [n for n in nodes if not isinstance(n, str) and isinstance(getattr(n, "tag", None), str)]


def _apply_all(roots, rule) -> list:
    out = []
    for r in roots:
        out += _elements(apply_rule(r, rule))
    return out


def _first(container, rule):
    if not rule:
        return None
    if rule == ".":
        return container
    try:
        found = container.xpath(rule)
    except Exception:
        return None
    return found[0] if found else None


# ---------------------------------------------------------------- learning

def _learn_text_rule(roots, targets: list[str]):
    """(rule, score, matched [(node, target index)]) of the best text rule, or None."""
    n = len(targets)
    target_sets = [bigrams(_pad(t)) for t in targets]
    seeds = []
    for root in roots:
        for el in root.iter():
            if not isinstance(el.tag, str) or el.tag in ("html", "body", "head"):
                continue
            text = node_text(el)
            if not text:
                continue
            s = bigrams(_pad(text))
            best = max(_sim_sets(s, t) for t in target_sets)
            if best >= MIN_SIMILARITY:
                seeds.append((best, len(text), el))
    seeds.sort(key=lambda x: (-x[0], x[1]))
    candidates = list(dict.fromkeys(r for _, _, el in seeds[:MAX_SEEDS] for r in group_rules(el)))
    best = None
    cache: dict = {}
    for rule in candidates:
        nodes = _apply_all(roots, rule)
        if len(nodes) < n or len(nodes) > MAX_NODES_PER_COMMENT * n + 50:
            continue  # fewer nodes than the feed has comments: this rule can not be it
        sets = []
        for node in nodes:
            if node not in cache:
                cache[node] = bigrams(_pad(node_text(node)))
            sets.append(cache[node])
        score, pairs = match_comments([], targets, sets=sets, target_sets=target_sets) if sets else (0.0, [])
        key = (round(score, 4), -len(nodes), -len(rule))
        if best is None or key > best[0]:
            best = (key, rule, score, [(nodes[i], j) for i, j, w in pairs if w >= MIN_SIMILARITY])
    if best is None or best[2] < MIN_SIMILARITY * 0.5 or not best[3]:
        return None
    return best[1], best[2], best[3]


def _holds_author(el, skip, author: str) -> bool:
    for d in el.iter():
        if d is el or not isinstance(d.tag, str):
            continue
        if skip is not None and (d is skip or _is_ancestor(skip, d)):
            continue
        t = node_text(d)
        if t and len(t) <= len(author) + 40 and (similarity(clean_author(t), author) >= 0.8
                                                   or re.search(r"(?<!\w)" + re.escape(author) + r"(?!\w)", t)):
            return True
    return False


def _is_ancestor(anc, node) -> bool:
    p = node.getparent()
    while p is not None:
        if p is anc:
            return True
        p = p.getparent()
    return False


def _container_of(node, author: str | None, text_nodes: set):
    """The lowest ancestor of a comment's text node that also shows its author (and holds
    no other comment's text). When the comments are runs of siblings (Blogger's
    dt author / dd text / dd footer), there is no such element: the text node itself."""
    last, up = node, node.getparent()
    for _ in range(ANCESTOR_LEVELS):
        if up is None or not isinstance(up.tag, str) or up.tag in ("body", "html"):
            break
        if any(t is not node and _is_ancestor(up, t) for t in text_nodes):
            break
        if not author or _holds_author(up, node, author):
            return up
        last, up = up, up.getparent()
    return last


SIBLINGS = 3  # siblings either side searched for a sibling-run comment's author and date


def _region(container) -> list:
    """Where a comment's fields are: the container, and for a sibling-run comment its
    nearest siblings too."""
    parent = container.getparent()
    if parent is None:
        return [container]
    kids = [k for k in parent if isinstance(k.tag, str)]
    i = kids.index(container)
    return [container] + kids[max(0, i - SIBLINGS):i][::-1] + kids[i + 1:i + 1 + SIBLINGS]


def _in_region(container, el) -> bool:
    return any(r is el or _is_ancestor(r, el) for r in _region(container))


def _best_relative(pairs, field_score, candidates) -> str | None:
    """The candidate relative rule whose first result scores best over the matched comments."""
    best, best_key = None, None
    for rule in candidates:
        total = 0.0
        for container, target in pairs:
            total += field_score(_first(container, rule), target)
        key = (round(total, 4), -len(rule))
        if total > 0 and (best_key is None or key > best_key):
            best, best_key = rule, key
    return best


def _date_value(node) -> str | None:
    """The ISO date a node shows: a machine attribute first, else its text."""
    if node is None:
        return None
    if isinstance(node, str):
        return parse_date(node)
    for a in _DATE_ATTRS:
        v = node.get(a)
        if v:
            if a.startswith("data-") and v.isdigit():
                import datetime as dt
                n = int(v) / (1000 if len(v) > 11 else 1)
                return dt.datetime.fromtimestamp(n, dt.timezone.utc).isoformat()
            d = parse_date(v)
            if d:
                return d
    t = node_text(node)
    return parse_date(t) if t and len(t) <= 120 else None


def _date_score(found: str | None, iso: str | None) -> float:
    """3 for the same instant, 2 for the same minute as printed, 1 for the same day."""
    if not found or not iso or found[:10] != iso[:10]:
        return 0.0
    if len(found) > 10 and len(iso) > 10:
        import datetime as dt
        try:
            if dt.datetime.fromisoformat(found) == dt.datetime.fromisoformat(iso):
                return 3.0
        except ValueError:
            pass
        if found[:16] == iso[:16]:
            return 2.0
    return 1.0


def learn_comment_rule(roots, feed: list[dict]) -> dict | None:
    """A comment rule for the page(s) `roots` (lxml roots: a post and its comment pages),
    learned from the post's feed comments ({"author", "published", "content_text"}).

    Returns {"container", "author", "date", "text", "score", "matched"} or None when no
    rule returns at least as many nodes as the feed has comments."""
    if not isinstance(roots, (list, tuple)):
        roots = [roots]
    feed = [c for c in feed or [] if normalize_text(c.get("content_text"))]
    if not feed or not roots:
        return None
    targets = [normalize_text(c["content_text"]) for c in feed]
    learned = _learn_text_rule(roots, targets)
    if learned is None:
        return None
    text_rule, score, matched = learned
    text_nodes = set(n for n, _ in matched)
    pairs = [(_container_of(node, feed[j].get("author"), text_nodes), node, feed[j]) for node, j in matched]
    containers = [c for c, _, _ in pairs]
    # the container rule: selects every matched container, and as few other nodes as possible
    all_text = _apply_all(roots, text_rule)
    best, best_key = None, None
    for rule in dict.fromkeys(r for c in containers[:8] for r in group_rules(c)):
        got = _apply_all(roots, rule)
        ids = set(map(id, got))
        covered = sum(1 for c in containers if id(c) in ids)
        if covered < len(containers) * 0.9:
            continue
        with_text = sum(1 for g in got if any(t is g or _is_ancestor(g, t) for t in all_text))
        key = (covered, round(with_text / max(1, len(got)), 3), -len(got), -len(rule))
        if best_key is None or key > best_key:
            best, best_key = rule, key
    if best is None:
        return None
    cands = lambda pick: list(dict.fromkeys(r for c, n, f in pairs[:8] for r in relative_rules(c, pick(c, n, f))))

    text_rel = _best_relative([(c, f) for c, _, f in pairs],
                              lambda node, f: similarity(node_text(node), f["content_text"]) if node is not None else 0,
                              cands(lambda c, n, f: n))

    def author_node(c, n, f):
        a = f.get("author")
        if not a:
            return None
        hits = [d for r in _region(c) for d in r.iter() if isinstance(d.tag, str) and d is not n
                and not _is_ancestor(n, d) and not _is_ancestor(d, n)
                and node_text(d) and len(node_text(d)) <= len(a) + 40]
        hits.sort(key=lambda d: -similarity(clean_author(node_text(d)), a))
        return hits[0] if hits and similarity(clean_author(node_text(hits[0])), a) >= 0.5 else None

    author_pairs = [(c, n, f) for c, n, f in pairs if author_node(c, n, f) is not None]
    author_rel = None
    if author_pairs:
        author_rel = _best_relative(
            [(c, f) for c, _, f in pairs],
            lambda node, f: similarity(clean_author(node_text(node)), f.get("author")) if node is not None else 0,
            list(dict.fromkeys(r for c, n, f in author_pairs[:8] for r in relative_rules(c, author_node(c, n, f)))))

    affixes = _author_affixes([(node_text(_first(c, author_rel)), f.get("author")) for c, _, f in pairs]) \
        if author_rel else {}

    def date_nodes(c, n):
        return [d for r in _region(c) for d in r.iter() if isinstance(d.tag, str) and d is not n
                and not _is_ancestor(n, d) and not _is_ancestor(d, n)
                and (any(d.get(a) for a in _DATE_ATTRS) or len(node_text(d)) <= 120)]

    date_cands = []
    for c, n, f in pairs[:8]:
        for d in date_nodes(c, n):
            if _date_score(_date_value(d), f.get("published")) > 0:
                date_cands += relative_rules(c, d)
    date_rel = _best_relative([(c, f) for c, _, f in pairs],
                              lambda node, f: _date_score(_date_value(node), f.get("published")),
                              list(dict.fromkeys(date_cands)))
    return {"container": best, "author": author_rel, "date": date_rel, "text": text_rel or ".", **affixes,
            "score": round(score, 4), "matched": len(matched)}


def _author_affixes(shown: list[tuple[str, str | None]]) -> dict:
    """Words the page prints around every author name ("Ann said...", "Ann says:"), learned
    from the matched comments so that they are cut from the others."""
    pre, suf = set(), set()
    for text, name in shown:
        if not text or not name or name not in text:
            continue
        i = text.index(name)
        pre.add(text[:i].strip())
        suf.add(text[i + len(name):].strip())
    out = {}
    if len(pre) == 1 and next(iter(pre)):
        out["author_prefix"] = next(iter(pre))
    if len(suf) == 1 and next(iter(suf)):
        out["author_suffix"] = next(iter(suf))
    return out


def _clean_shown_author(text: str, rule: dict) -> str:
    p, s = rule.get("author_prefix"), rule.get("author_suffix")
    if p and text.startswith(p):
        text = text[len(p):]
    if s and text.endswith(s):
        text = text[:-len(s)]
    return clean_author(text)


# ---------------------------------------------------------------- extraction

def _per_comment(name: str | None) -> bool:
    """An element id that can name one comment: numbered (comment-12, c12, cmt-12), unlike the
    ids of the list of all comments (#comments, #respond)."""
    return bool(name) and bool(re.search(r"\d", name))


def _anchor_id(el) -> str | None:
    """The numbered id of the comment's element or of its thread element (li > article)."""
    for node in (el, el.getparent()):
        if node is not None and _per_comment(node.get("id")):
            return node.get("id")
    return None


_ids = threading.local()  # this thread's last page and its id/name -> element index


def _named(root, fragment: str):
    """The element a #fragment names (by id or name, first in document order); the page's
    index is built once per page, not once per link."""
    if getattr(_ids, "root", None) is not root:
        index: dict = {}
        for el in root.iter():
            if isinstance(el.tag, str):
                for key in (el.get("id"), el.get("name")):
                    if key is not None:
                        index.setdefault(key, el)
        _ids.root, _ids.index = root, index
    return _ids.index.get(fragment)


def _permalink(c, date_node, containers: list, base_url: str | None) -> str | None:
    """The comment's own link (href with #fragment naming this comment's element): the link
    around its date, else a link inside it to the comment or one of its close ancestors."""
    root = c.getroottree().getroot()
    others = [o for o in containers if o is not c]
    members = set(containers)
    close = [c]
    for _ in range(3):
        if close[-1].getparent() is None:
            break
        close.append(close[-1].getparent())

    def names_this(href: str | None):
        if not href or "#" not in href:
            return None
        frag = urllib.parse.unquote(href.split("#", 1)[1])
        target = _named(root, frag) if _per_comment(frag) else None
        if target is None or any(o is target for o in others):
            return None
        if _is_ancestor(target, c):  # its thread element (li > article), not the list of all (#comments)
            if target not in close[1:3] or next((o for o in target.iter() if o in members), None) is not c:
                return None
        elif not (target is c or _is_ancestor(c, target) or _in_region(c, target)) or \
                any(_is_ancestor(target, o) for o in others):
            return None
        return urllib.parse.urljoin(base_url or "", href)

    if date_node is not None and not isinstance(date_node, str):
        around, node = list(date_node.iter("a")), date_node.getparent()
        for _ in range(2):
            if node is None or node is c.getparent():
                break
            around.append(node)
            node = node.getparent()
        for a in around:
            if a.tag == "a" and names_this(a.get("href")):
                return names_this(a.get("href"))
    ids = {n.get("id") for n in close if n.get("id")}
    for a in c.iter("a"):
        href = a.get("href") or ""
        if "#" in href and urllib.parse.unquote(href.split("#", 1)[1]) in ids and names_this(href):
            return names_this(href)
    return None


def _content_id(post_url: str, author: str | None, published: str | None, text: str) -> str:
    import hashlib

    h = hashlib.sha1(f"{author or ''}\n{published or ''}\n{normalize_text(text)}".encode()).hexdigest()[:12]
    return f"{post_url.split('#')[0]}#bh-comment-{h}"


def _depth(el) -> int:
    d, p = 0, el.getparent()
    while p is not None:
        d, p = d + 1, p.getparent()
    return d


def extract_comments(root, rule: dict, base_url: str | None = None, post_url: str | None = None) -> list[dict]:
    """Comments on one page by a learned (or known) rule, in page order:
    [{"id", "url", "author", "published", "content_text", "parent"}].

    The id is the comment's permalink as comment_id(…, post_url) gives it (the same on
    every comment page of the post and in its comment feed), else the post URL with the
    comment's element id, else with a hash of its author, date and text: never its position."""
    if root is None or not rule or not rule.get("container"):
        return []
    post_url = post_url or re.sub(r"comment-page-\d+/?$", "", (base_url or "").split("#")[0])
    containers = _elements(apply_rule(root, rule["container"]))
    if rule.get("text") and rule["text"] != ".":  # a container without a text is not a comment
        containers = [c for c in containers if _first(c, rule["text"]) is not None]
    out, depth = [], {}
    for c in containers:
        text_node = _first(c, rule.get("text") or ".")
        text = node_text(text_node) if text_node is not None else ""
        if not text:
            continue
        author = _clean_shown_author(node_text(_first(c, rule.get("author"))), rule) if rule.get("author") else ""
        date_node = _first(c, rule.get("date")) if rule.get("date") else None
        published = _date_value(date_node) if rule.get("date") else None
        link = _permalink(c, date_node, containers, base_url)
        anchor = _anchor_id(c)
        cid = (comment_id(link, post_url) if link else None) or \
            (f"{post_url}#{anchor}" if anchor else None) or _content_id(post_url, author, published, text)
        depth[id(c)] = _depth(c)
        out.append({"id": cid, "url": link, "author": author or None, "published": published,
                    "content_text": text, "parent": None, "_el": c})
    counts: dict = {}
    for c in out:
        counts[c["id"]] = counts.get(c["id"], 0) + 1
    for c in out:  # an id shared by several comments names none of them
        if counts[c["id"]] > 1:
            c["id"], c["url"] = _content_id(post_url, c["author"], c["published"], c["content_text"]), None
    for k, c in enumerate(out):
        el = c["_el"]
        for j in range(k - 1, -1, -1):
            d = out[j]["_el"]
            thread = d.getparent()
            if depth[id(d)] < depth[id(el)] and (_is_ancestor(d, el) or (thread is not None and _is_ancestor(thread, el))):
                c["parent"] = out[j]["id"]
                break
    for c in out:
        del c["_el"]
    return out


def merge_comments(page: list[dict], feed: list[dict]) -> list[dict]:
    """One list of a post's comments from its pages and its comment feed, whatever share of
    them the feed lists: the page's comments in page order, each completed by its feed
    comment (exact author, date and text), then the feed comments no page showed, oldest
    first. A page and a feed comment are one when their ids are equal, or (maximum weight
    matching) their texts are alike (SAME_COMMENT, or MIN_SIMILARITY by the same author)."""
    if not feed:
        return [dict(c) for c in page]
    pair: dict[int, int] = {}
    by_id = {}
    for j, f in enumerate(feed):
        by_id.setdefault(f.get("id"), j)
    for i, c in enumerate(page):
        j = by_id.get(c.get("id"))
        if j is not None and j not in pair.values():
            pair[i] = j
    rest_p = [i for i in range(len(page)) if i not in pair]
    rest_f = [j for j in range(len(feed)) if j not in pair.values()]
    if rest_p and rest_f:
        _, pairs = match_comments([page[i]["content_text"] for i in rest_p], [feed[j]["content_text"] for j in rest_f])
        for a, b, w in pairs:
            i, j = rest_p[a], rest_f[b]
            same_author = bool(page[i].get("author")) and \
                similarity(clean_author(page[i]["author"]), clean_author(feed[j].get("author"))) >= 0.8
            if w >= SAME_COMMENT or (w >= MIN_SIMILARITY and same_author):
                pair[i] = j
    out = []
    final = {}  # feed id -> id in the output
    for i, c in enumerate(page):
        c = dict(c)
        if i in pair:
            f = feed[pair[i]]
            c["author"] = f.get("author") or c.get("author")
            c["published"] = f.get("published") or c.get("published")
            if f.get("content_text"):
                c["content_text"] = f["content_text"]
            if not c.get("url") and f.get("id"):  # no permalink on the page: the feed's
                c["id"] = f["id"]
            c["url"] = c.get("url") or f.get("url")
            final[f.get("id")] = c["id"]
        out.append(c)
    used = set(pair.values())
    out += sorted((dict(f) for j, f in enumerate(feed) if j not in used), key=lambda f: f.get("published") or "")
    for c in out:
        if c.get("parent") in final:
            c["parent"] = final[c["parent"]]
    for i, j in pair.items():  # a reply the page does not nest, the feed says whose
        if out[i].get("parent") is None and feed[j].get("parent"):
            out[i]["parent"] = final.get(feed[j]["parent"], feed[j]["parent"])
    return out


# ---------------------------------------------------------------- links

def comment_page_links(root, post_url: str) -> list[str]:
    """Other pages of this post's comments (WordPress comment-page-N/, ?cpage=N, Blogger
    ?commentPage=N) linked from the page, in page order."""
    base = urllib.parse.urlsplit(post_url)
    post_path = re.sub(r"comment-page-\d+/?$", "", base.path)
    out = []
    for href in _HREFS(root):
        href = href.strip()
        if href and not href.startswith(("#", ".")) and not _COMMENT_PAGE_HINT.search(href):
            continue  # no comment-page word in it: the joined address cannot be one
        u = urllib.parse.urljoin(post_url, href).split("#")[0]
        p = urllib.parse.urlsplit(u)
        if p.netloc != base.netloc or not p.path.startswith(post_path.rstrip("/")):
            continue
        if _COMMENT_PAGE.search(p.path + ("?" + p.query if p.query else "")) and "replytocom" not in p.query:
            out.append(u)
    return list(dict.fromkeys(out))


def comment_feed_links(root, post_url: str) -> list[str]:
    """The post's own comment feed advertised by the page (<link rel=alternate> whose title
    or address says comments, under the post's path or a Blogger /feeds/N/comments/)."""
    out = []
    path = urllib.parse.urlsplit(post_url).path.rstrip("/")
    for link in root.xpath("//link[@rel='alternate'][@href]"):
        href = urllib.parse.urljoin(post_url, link.get("href"))
        hpath = urllib.parse.urlsplit(href).path
        title = link.get("title") or ""
        per_post = (path and hpath.startswith(path + "/")) or re.search(r"/feeds/\d+/comments/", hpath)
        if per_post and (_COMMENT_WORDS.search(title) or _COMMENT_WORDS.search(hpath) or hpath.endswith("/feed/")):
            out.append(href)
    return list(dict.fromkeys(out))
