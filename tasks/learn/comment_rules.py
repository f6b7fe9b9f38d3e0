"""Learning a blog's comment rule from a post whose comment feed is known (paper, section 4.1).

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
per blog and applied to every other post (tasks.extract.comments).
"""
from __future__ import annotations

import re

from tasks.learn.comment_nodes import (
    DATE_ATTRS, HAS, MIN_SIMILARITY, apply_all, class_tokens, date_score, date_value, first, is_ancestor, match_comments, pad,
    region, sim_sets, similarity, stable_id, tag_of)
from tasks.fetch.html import node_text
from tasks.learn.fields import clean_author
from tasks.learn.rules import xpath_literal
from tasks.text.similarity import bigrams, normalize_text

__all__ = ["group_rules", "relative_rules", "learn_comment_rule"]

MAX_SEEDS = 60  # elements proposing text rules, best first
ANCESTOR_LEVELS = 6
MAX_NODES_PER_COMMENT = 40  # rules returning more nodes than this per feed comment are noise (every <p>)


def _anchors(el) -> list[str]:
    out = []
    if stable_id(el.get("id")):
        out.append(f"//*[@id={xpath_literal(el.get('id'))}]")
    tag = tag_of(el)
    out += [f"//{tag}[{HAS.format(t)}]" for t in class_tokens(el)]
    return out


def _unpositioned(path: str) -> str:
    return re.sub(r"\[\d+\]", "", path)


def group_rules(el) -> list[str]:
    """Rules that select `el` together with the nodes like it (its siblings in a list of
    comments): class tokens, semantic attributes, id- or class-anchored paths, and the
    absolute path without positions."""
    tag = tag_of(el)
    out = list(_anchors(el))[1 if stable_id(el.get("id")) else 0:]  # its own id names one node
    for a in ("itemprop", "role"):
        v = el.get(a)
        if v and len(v) < 60 and "'" not in v:
            out.append(f"//{tag}[@{a}={xpath_literal(v)}]")
    steps, node = [], el
    for _ in range(ANCESTOR_LEVELS):
        parent = node.getparent()
        if parent is None or not isinstance(parent.tag, str):
            break
        steps.insert(0, tag_of(node))
        for anchor in _anchors(parent):
            out.append(anchor + "/" + "/".join(steps))
            out.append(anchor + "//" + tag)
            out += [anchor + f"//{tag}[{HAS.format(t)}]" for t in class_tokens(el)]
        node = parent
    out.append(_unpositioned(el.getroottree().getpath(el)))
    return list(dict.fromkeys(out))


def _below_rules(el) -> list[str]:
    """Steps that find `el` anywhere below a node: by class token (with and without its
    tag), by semantic attribute, and last by its tag alone."""
    tag = tag_of(el)
    below = [f"//{tag}[{HAS.format(t)}]" for t in class_tokens(el)]
    below += [f"//*[{HAS.format(t)}]" for t in class_tokens(el)]
    for a in ("itemprop", "rel", "role"):
        v = el.get(a)
        if v and len(v) < 60 and "'" not in v:
            below.append(f"//{tag}[@{a}={xpath_literal(v)}]")
    below.append(f"//{tag}")
    return below


def _descendant_rules(container, el, below: list[str]) -> list[str]:
    """Rules from `container` down to `el` inside it: the attribute steps, the child path
    without positions, then the tag anywhere below."""
    steps, node = [], el
    while node is not None and node is not container:
        steps.insert(0, tag_of(node))
        node = node.getparent()
    return list(dict.fromkeys(["." + b for b in below[:-1]] + ["./" + "/".join(steps), "." + below[-1]]))


def _sibling_rules(container, el, below: list[str]) -> list[str]:
    """Rules from `container` to `el` in one of its siblings (a comment that is a run of
    siblings): the sibling itself, or the steps below it."""
    parent = container.getparent()
    if parent is None:
        return []
    kids = [k for k in parent if isinstance(k.tag, str)]
    i = kids.index(container)
    for j, k in enumerate(kids):
        if k is el or is_ancestor(k, el):
            axis = f"preceding-sibling::*[{i - j}]" if j < i else f"following-sibling::*[{j - i}]"
            if k is el:
                return [axis]
            return list(dict.fromkeys([axis + b for b in below]))
    return []


def relative_rules(container, el) -> list[str]:
    """Rules from `container` to `el`: a descendant (by class token or semantic attribute
    anywhere below, by tag, by the child path without positions) or, for comments that
    are runs of siblings, a node in a nearby sibling (preceding-sibling::*[k]...)."""
    if el is container:
        return ["."]
    below = _below_rules(el)
    if is_ancestor(container, el):
        return _descendant_rules(container, el, below)
    return _sibling_rules(container, el, below)


def _seed_elements(roots, target_sets: list[set]) -> list:
    """The elements whose text resembles a feed comment, most similar (then shortest)
    first, MAX_SEEDS of them: they propose the text rules."""
    seeds = []
    for root in roots:
        for el in root.iter():
            if not isinstance(el.tag, str) or el.tag in ("html", "body", "head"):
                continue
            text = node_text(el)
            if not text:
                continue
            best = max(sim_sets(bigrams(pad(text)), t) for t in target_sets)
            if best >= MIN_SIMILARITY:
                seeds.append((best, len(text), el))
    seeds.sort(key=lambda x: (-x[0], x[1]))
    return [el for _, _, el in seeds[:MAX_SEEDS]]


def _text_sets(nodes: list, cache: dict) -> list[set]:
    """The nodes' padded bigram sets (cached: many rules return the same nodes)."""
    for node in nodes:
        if node not in cache:
            cache[node] = bigrams(pad(node_text(node)))
    return [cache[node] for node in nodes]


def _learn_text_rule(roots, targets: list[str]):
    """(rule, score, matched [(node, target index)]) of the best text rule, or None."""
    n = len(targets)
    target_sets = [bigrams(pad(t)) for t in targets]
    candidates = list(dict.fromkeys(r for el in _seed_elements(roots, target_sets) for r in group_rules(el)))
    best = None
    cache: dict = {}
    for rule in candidates:
        nodes = apply_all(roots, rule)
        if len(nodes) < n or len(nodes) > MAX_NODES_PER_COMMENT * n + 50:
            continue  # fewer nodes than the feed has comments: this rule can not be it
        sets = _text_sets(nodes, cache)
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
        if skip is not None and (d is skip or is_ancestor(skip, d)):
            continue
        t = node_text(d)
        if t and len(t) <= len(author) + 40 and (similarity(clean_author(t), author) >= 0.8
                                                   or re.search(r"(?<!\w)" + re.escape(author) + r"(?!\w)", t)):
            return True
    return False


def _container_of(node, author: str | None, text_nodes: set):
    """The lowest ancestor of a comment's text node that also shows its author (and holds
    no other comment's text). When the comments are runs of siblings (Blogger's
    dt author / dd text / dd footer), there is no such element: the text node itself."""
    last, up = node, node.getparent()
    for _ in range(ANCESTOR_LEVELS):
        if up is None or not isinstance(up.tag, str) or up.tag in ("body", "html"):
            break
        if any(t is not node and is_ancestor(up, t) for t in text_nodes):
            break
        if not author or _holds_author(up, node, author):
            return up
        last, up = up, up.getparent()
    return last


def _best_relative(pairs, field_score, candidates) -> str | None:
    """The candidate relative rule whose first result scores best over the matched comments."""
    best, best_key = None, None
    for rule in candidates:
        total = 0.0
        for container, target in pairs:
            total += field_score(first(container, rule), target)
        key = (round(total, 4), -len(rule))
        if total > 0 and (best_key is None or key > best_key):
            best, best_key = rule, key
    return best


def _others(c, n):
    """The elements of a comment's region outside its text node."""
    return [d for r in region(c) for d in r.iter() if isinstance(d.tag, str) and d is not n
            and not is_ancestor(n, d) and not is_ancestor(d, n)]


def _learn_container(roots, containers: list, text_rule: str) -> str | None:
    """The group rule that selects every matched container, and as few other nodes as possible."""
    all_text = apply_all(roots, text_rule)
    best, best_key = None, None
    for rule in dict.fromkeys(r for c in containers[:8] for r in group_rules(c)):
        got = apply_all(roots, rule)
        ids = set(map(id, got))
        covered = sum(1 for c in containers if id(c) in ids)
        if covered < len(containers) * 0.9:
            continue
        with_text = sum(1 for g in got if any(t is g or is_ancestor(g, t) for t in all_text))
        key = (covered, round(with_text / max(1, len(got)), 3), -len(got), -len(rule))
        if best_key is None or key > best_key:
            best, best_key = rule, key
    return best


def _author_node(c, n, f):
    a = f.get("author")
    if not a:
        return None
    hits = [d for d in _others(c, n) if node_text(d) and len(node_text(d)) <= len(a) + 40]
    hits.sort(key=lambda d: -similarity(clean_author(node_text(d)), a))
    return hits[0] if hits and similarity(clean_author(node_text(hits[0])), a) >= 0.5 else None


def _learn_author(pairs) -> str | None:
    cands = [r for c, n, f in pairs[:8] if _author_node(c, n, f) is not None
             for r in relative_rules(c, _author_node(c, n, f))]
    if not cands:
        return None
    return _best_relative(
        [(c, f) for c, _, f in pairs],
        lambda node, f: similarity(clean_author(node_text(node)), f.get("author")) if node is not None else 0,
        list(dict.fromkeys(cands)))


def _learn_date(pairs) -> str | None:
    cands = []
    for c, n, f in pairs[:8]:
        for d in _others(c, n):
            if (any(d.get(a) for a in DATE_ATTRS) or len(node_text(d)) <= 120) and \
                    date_score(date_value(d), f.get("published")) > 0:
                cands += relative_rules(c, d)
    return _best_relative([(c, f) for c, _, f in pairs],
                          lambda node, f: date_score(date_value(node), f.get("published")) + _holds_date_itself(node),
                          list(dict.fromkeys(cands)))


SELF_DATED = 0.01  # a rule's node that is the date itself, among rules reading it as well: preferred


def _holds_date_itself(node) -> float:
    """A little for a node that is the date (its own machine attribute, or no element inside),
    not an element holding it: `.//a` reads the permalink wrapping a `<time>` on the sample, and
    a commenter's name link on a page where a commenter left a site (the first `a`)."""
    if node is None or isinstance(node, str):
        return 0.0
    return SELF_DATED if any(node.get(a) for a in DATE_ATTRS) or not len(node) else 0.0


def _learn_text(pairs) -> str | None:
    """The relative rule to the comment's text node, by similarity to the feed's text."""
    return _best_relative(
        [(c, f) for c, _, f in pairs],
        lambda node, f: similarity(node_text(node), f["content_text"]) if node is not None else 0,
        list(dict.fromkeys(r for c, n, f in pairs[:8] for r in relative_rules(c, n))))


def _matched_comments(matched: list, feed: list[dict]) -> list[tuple]:
    """(container, text node, feed comment) of every comment the text rule matched."""
    text_nodes = set(n for n, _ in matched)
    return [(_container_of(node, feed[j].get("author"), text_nodes), node, feed[j]) for node, j in matched]


def _learn_affixes(pairs, author_rel: str | None) -> dict:
    """The words printed around every matched comment's author name (see _author_affixes)."""
    if not author_rel:
        return {}
    return _author_affixes([(node_text(first(c, author_rel)), f.get("author")) for c, _, f in pairs])


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
    learned = _learn_text_rule(roots, [normalize_text(c["content_text"]) for c in feed])
    if learned is None:
        return None
    text_rule, score, matched = learned
    pairs = _matched_comments(matched, feed)
    best = _learn_container(roots, [c for c, _, _ in pairs], text_rule)
    if best is None:
        return None
    text_rel = _learn_text(pairs)
    author_rel = _learn_author(pairs)
    affixes = _learn_affixes(pairs, author_rel)
    rule = {"container": best, "author": author_rel, "date": _learn_date(pairs), "text": text_rel or ".", **affixes,
            "score": round(score, 4), "matched": len(matched)}
    if text_rel and _reads_all(pairs, text_rel):
        rule["text_all"] = True
    return rule


def _reads_all(pairs, text_rel: str) -> bool:
    """Does every node of the text rule (a comment in several paragraphs, each a `p`) say the feed's
    text better than the first alone, on more of the matched comments than it says it worse?
    (whizzy: the first paragraph, "Hi there,", was each comment's text, and the feed's whole one
    was kept beside it.)"""
    better = worse = 0
    for c, _, f in pairs:
        try:
            nodes = [n for n in c.xpath(text_rel) if not isinstance(n, str)]
        except Exception:
            return False
        if len(nodes) < 2:
            continue
        one = similarity(node_text(nodes[0]), f["content_text"])
        every = similarity(" ".join(node_text(n) for n in nodes), f["content_text"])
        better += every > one + 0.05
        worse += every < one - 0.05
    return better > worse


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
