"""Where a comment's name, date and text sit inside its block, learned with no feed.

Every block of a list of comments is laid out the same way, so a slot is the relative rule
that finds the same kind of text in (nearly) every block, voted over all of them:

- the name: a short text on its first line, not a date, not a number, that differs from
  block to block (a "Reply" button does not), with no text of the comment inside it; the
  innermost such node (the name, not "Ann says:");
- the date (optional): a node a date parses from;
- the text: the longest own text of the block outside the name and the date, read whole
  (every paragraph of it, none of a nested reply's).

Any language: word counts treat CJK and kana as words of two characters. Pure functions
over lxml elements; tasks.learn.comment_blocks chooses the blocks.
"""
from __future__ import annotations

import re
from collections import Counter

from tasks.fetch.html import node_text
from tasks.text.similarity import normalize_text
from tasks.learn.comment_nodes import (
    DATE_ATTRS, REST, is_date_child, date_value, is_ancestor, own_matches, rest_text, shown_name, text_without)
from tasks.learn import comment_lines
from tasks.learn.comment_rules import relative_rules

__all__ = ["learn_slots", "is_name", "is_said", "words", "is_date_text", "own_nodes", "name_line"]

MIN_PRESENT = 0.6  # share of blocks in which a slot must be found
NAME_CHARS, NAME_WORDS = 60, 6
SAID_CHARS, SAID_WORDS = 16, 4  # a text that surely says something (proposes a block)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
NAME_HINT = re.compile(r"author|name|user|nick|fn\b|who|cite|vcard", re.I)
SKIP = frozenset({"html", "body", "head", "script", "style", "form", "nav", "input", "textarea", "button",
                  "select", "option", "label", "img", "svg"})
CODE = frozenset({"code", "pre", "kbd", "samp", "var"})  # never a name
# data and code, never a comment (nor inside one as a block)
NOT_BLOCKS = frozenset({"table", "thead", "tbody", "tfoot", "tr", "td", "th", "caption", "pre", "code"})


def words(t: str) -> int:
    """Words of a text, two CJK or kana characters counting as one."""
    cjk = len(_CJK.findall(t))
    return len(_CJK.sub(" ", t).split()) + (cjk + 1) // 2


def is_date_text(t: str) -> bool:
    from tasks.text.dates import parse_date
    return bool(re.search(r"\d", t)) and len(t) <= 80 and parse_date(t) is not None


def is_name(t: str) -> bool:
    """Short, few words, not mostly digits (a date, a count, in any numerals), not a date."""
    if not (0 < len(t) <= NAME_CHARS and words(t) <= NAME_WORDS):
        return False
    digits = sum(ch.isdigit() for ch in t)
    letters = sum(ch.isalpha() for ch in t)
    size = len(t.replace(" ", ""))  # a handle may be half digits ("yt75"), with letters first
    return (digits <= 0.3 * size or (digits <= 0.5 * size and letters >= 2 and t[:1].isalpha())) \
        and not is_date_text(t)


def signed(t: str) -> bool:
    """A dated line that names someone ("投稿者 NAME : DATE", "On DATE, NAME commented:"): a short
    line holding a date, and two words or more that stand apart from its numbers (a date's own
    words, "März", "年", "PM", sit beside them)."""
    if not (t and len(t) <= NAME_CHARS + 20 and is_date_text(t)):
        return False
    toks = re.findall(r"[^\W\d_]+|\d+", t)
    apart = [tok for i, tok in enumerate(toks) if not tok[0].isdigit()
             and not (i > 0 and toks[i - 1][0].isdigit()) and not (i + 1 < len(toks) and toks[i + 1][0].isdigit())]
    return sum(words(tok) for tok in apart) >= 2


def is_said(t: str) -> bool:
    """A text that says something: a few words, not a date."""
    return len(t) >= SAID_CHARS and words(t) >= SAID_WORDS and not (len(t) < 80 and is_date_text(t))


RUN_MAX = 6  # siblings after a run's head that belong to it at most


def _sig(el) -> tuple:
    return el.tag, (el.get("class") or "").split()[:1]


def run_of(el) -> list:
    """A comment made of a run of siblings (a dt name, a dd text, a dd footer; a heading
    and its paragraphs): the element and the siblings after it up to the next one like it,
    when such heads repeat; else the element alone."""
    parent = el.getparent()
    if parent is None or not isinstance(el.tag, str):
        return [el]
    if len(node_text(el)) > NAME_CHARS + 20:
        return _footed(el) or [el]  # a head is a name line, not a comment of its own
    sig = _sig(el)
    out = [el]
    for k in el.itersiblings():
        if not isinstance(k.tag, str):
            continue
        if _sig(k) == sig:
            return out if len(out) > 1 else [el]
        out.append(k)
        if len(out) > RUN_MAX + 1:
            return [el]
    # the last run of the list: as long as the runs before it, when they repeat
    prev = [k for k in el.itersiblings(preceding=True) if isinstance(k.tag, str) and _sig(k) == sig]
    return out[:max(2, len(run_of(prev[0])))] if prev and len(out) > 1 else [el]


def footer_of(el):
    """The line after a comment's text that names it (`_footed`), or None."""
    if el.getparent() is None or not isinstance(el.tag, str):
        return None
    pair = _footed(el)
    return pair[1] if pair else None


def _footed(el) -> list | None:
    """A comment whose name line follows its text (Movable Type's `div#c12` text, then its
    `p.posted` "Posted by: Ann at DATE"): the element and that footer, where such pairs repeat
    (the siblings alternate text, footer: the pair before or after it is alike)."""
    sibs = [k for k in el.getparent() if isinstance(k.tag, str)]
    i = next(j for j, k in enumerate(sibs) if k is el)
    if i + 1 >= len(sibs):
        return None
    foot = sibs[i + 1]
    if _sig(foot) == _sig(el) or len(node_text(foot)) > NAME_CHARS + 20 or not node_text(foot):
        return None
    pair = (_sig(el), _sig(foot))
    after = i + 3 < len(sibs) and (_sig(sibs[i + 2]), _sig(sibs[i + 3])) == pair
    before = i >= 2 and (_sig(sibs[i - 2]), _sig(sibs[i - 1])) == pair
    return [el, foot] if after or before else None


def own_nodes(container, containers: set) -> list:
    """The block's descendants (and its run's siblings, theirs) that are not inside a nested
    block (a reply), in page order."""
    out, stack = [], list(container) + [k for k in run_of(container)[1:]]
    while stack:
        d = stack.pop(0)
        if not isinstance(d.tag, str) or d in containers or d.tag in SKIP:
            continue
        out.append(d)
        stack = list(d) + stack
    return out


def _votes(containers: list, field_nodes) -> list[str]:
    """Relative rules proposed by the first blocks' candidate nodes for a slot."""
    rules = []
    for c in containers[:12]:
        for d in field_nodes(c):
            rules += relative_rules(c, d)
    return list(dict.fromkeys(r for r in rules if r != "."))


def _best(rules: list[str], score) -> str | None:
    best, best_key = None, None
    for rule in rules:
        s = score(rule)
        key = (round(s, 4), "@" in rule, -len(rule))  # a tie: the rule naming the node by its marks
        if s > 0 and (best_key is None or key > best_key):
            best, best_key = rule, key
    return best


# ---------------------------------------------------------------- the name

def _hinted(n) -> bool:
    for x in (n, n.getparent()):
        if x is not None and (NAME_HINT.search(f"{x.get('class') or ''} {x.get('id') or ''}")
                              or x.tag in ("cite", "b", "strong", "h2", "h3", "h4", "h5", "h6")
                              or x.get("itemprop") in ("author", "name") or x.get("rel") == "author"):
            return True
    return False


def _holds_said(n) -> bool:
    """Does a name node hold more than a name and a line or two about it (a comment's text)?"""
    return len(node_text(n)) > len(shown_name(n)) + NAME_CHARS


def _affix_share(names: list[str]) -> float:
    """The share of names printed with the same first or last word ("Ann says:")."""
    split = [n.split() for n in names if len(n.split()) > 1]
    if len(split) < 2:
        return 0.0
    top = max(Counter(w[0] for w in split).most_common(1)[0][1], Counter(w[-1] for w in split).most_common(1)[0][1])
    return top / len(names)


def _name_score(containers: list, nested: set):
    def score(rule):
        nodes = [next(iter(own_matches(c, rule, nested)), None) for c in containers]
        got = [n for n in nodes if n is not None and not _permalink(n)]
        if len(got) < MIN_PRESENT * len(nodes):
            return 0.0
        names = [shown_name(n) for n in got]
        named = sum(map(is_name, names)) / len(names)
        if named < 0.8 or any(_holds_said(n) for n in got[:20]):
            return 0.0
        distinct = len(set(names)) / len(names)
        if len(names) > 2 and Counter(names).most_common(1)[0][1] >= 0.9 * len(names):
            return 0.0  # the same word in every block: a button, a label
        hint = sum(map(_hinted, got)) / len(got)
        return len(got) / len(nodes) * named + distinct + 0.5 * hint - 0.5 * _affix_share(names)
    return score


# ---------------------------------------------------------------- the date

def _date_score(containers: list, nested: set, name_rule: str | None):
    """Share of blocks with a date, a little more for a node that is only the date (a
    machine attribute, a short text) than for a line that holds it among other words."""
    def score(rule):
        nodes = [next(iter(own_matches(c, rule, nested)), None) for c in containers]
        got = [n for n in nodes if n is not None and date_value(n)]
        if len(got) < MIN_PRESENT * len(nodes):
            return 0.0
        if name_rule and rule == name_rule:
            return 0.0
        machine = sum(1 for n in got if any(n.get(a) for a in DATE_ATTRS)) / len(got)
        length = sum(len(node_text(n)) for n in got) / len(got)
        return len(got) / len(nodes) + 0.2 * machine + 0.1 / (1 + length / 20)
    return score


# ---------------------------------------------------------------- the text

def _text_score(containers: list, nested: set, avoid: list[list], name_rule: str, date_rule: str | None):
    """Present share x mean length of the text read whole, 0 for a rule whose nodes hold the
    name or the date (`avoid`: those nodes per block) or repeat from block to block."""
    def score(rule):
        texts, present, single = [], 0, True
        for c, keep_out in zip(containers, avoid):
            if rule == REST:
                t = rest_text(c, {"author": name_rule, "date": date_rule}, nested)
                if t:
                    present += 1
                    texts.append(t)
                continue
            nodes = own_matches(c, rule, nested)
            single = single and len(nodes) <= 1
            if any(n is a or is_ancestor(n, a) or is_ancestor(a, n) for n in nodes for a in keep_out if a is not None):
                return 0.0
            t = " ".join(text_without(n, nested) for n in nodes).strip()
            if t:
                present += 1
                texts.append(t)
        if present < MIN_PRESENT * len(containers) or len(set(texts)) < 0.8 * len(texts):
            return 0.0
        chrome = _affix_share(texts)  # "Reply" / "Like" printed after every text: not what was said
        # one node holding the whole text (comment-content) over its paragraphs, which a
        # comment written without <p> lacks
        loose = 0.9 if rule == REST else 1  # an element holding the text, where there is one
        return present / len(containers) * sum(map(len, texts)) / len(texts) * (1 - 0.5 * chrome) * \
            (1.01 if single else 1) * loose
    return score


def _affixes(names: list[str]) -> dict:
    """Words printed around every name ("Ann said:", "Par Ann")."""
    out = {}
    split = [n.split() for n in names if n]
    if len(split) < 3:
        return out
    for key, pick in (("author_suffix", -1), ("author_prefix", 0)):
        words, left = [], split
        for _ in range(MAX_AFFIX_WORDS):  # "Ann dit :": ":", then "dit"
            common = Counter(w[pick] for w in left if len(w) > 1)
            if not common:
                break
            word, n = common.most_common(1)[0]
            # what is left once the word is cut must read as names ("Reader 7" is a name, "7" none)
            rest = [w[:-1] if pick == -1 else w[1:] for w in left if len(w) > 1 and w[pick] == word]
            if not (n >= 0.9 * len(split) and len(set(" ".join(w) for w in left)) > 1
                    and sum(is_name(" ".join(w)) for w in rest) >= 0.8 * len(rest)):
                break
            words.append(word)
            left = rest
        if words:
            out[key] = " ".join(reversed(words) if pick == -1 else words)
    return out


def _permalink(d) -> bool:
    """A node that is (or is all of) a link to an anchor, the comment's own permalink: its
    title ("Tohle je divné,"), never whose it is."""
    links = [a for a in (d, *d.iterancestors("a")) if a.tag == "a"]
    if not links and len(d) == 1 and d[0].tag == "a" and node_text(d) == node_text(d[0]):
        links = [d[0]]
    return any("#" in (a.get("href") or "") for a in links)


def _name_nodes(own: dict):
    """The nodes of a block that show a name; a node showing one only beside its date child
    ("grobo<a>12.01.2008</a>") where no node inside it shows one (else that inner node is the name's).
    A permalink's words are no name."""
    def found(c):
        named = [d for d in own[c] if d.tag not in CODE and is_name(shown_name(d)) and not _permalink(d)]
        inner = {a for d in named for a in d.iterancestors()}
        return [d for d in named if d not in inner or not any(is_date_child(k) for k in d)][:8]
    return found


MAX_AFFIX_WORDS = 2  # words an affix around every name holds ("dit :", "said:")
MAX_PAIRED = 12  # name rules tried two by two for blocks that show the name in one of two tags


def _paired_name(containers: list, nested: set, rules: list[str], best: str | None) -> str | None:
    """The name slot where no one rule finds the name in every block: a name linked to the
    commenter's site in <strong>, an unlinked one in <h7>. Two rules that find a name in
    blocks apart from each other (never both in one) and together in nearly all, as one union,
    where it scores above the best single rule."""
    score = _name_score(containers, nested)
    if best == ".":
        return best
    covers = []
    for r in rules:
        if r == ".":
            continue
        hit = frozenset(i for i, c in enumerate(containers)
                        if (n := next(iter(own_matches(c, r, nested)), None)) is not None and is_name(shown_name(n)))
        if 0 < len(hit) < len(containers):
            covers.append((r, hit))
    covers = sorted(covers, key=lambda x: -len(x[1]))[:MAX_PAIRED]
    top, top_score = best, (score(best) if best else 0.0)
    for i, (a, ha) in enumerate(covers):
        for b, hb in covers[i + 1:]:
            if ha & hb or len(ha | hb) < MIN_PRESENT * len(containers):
                continue
            if any(own_matches(containers[k], b, nested) for k in ha) or any(own_matches(containers[k], a, nested) for k in hb):
                continue  # each rule finds nothing where the other finds the name (a date, a "Reply" would)
            union = f"{a} | {b}"
            s = score(union)
            if s > top_score:
                top, top_score = union, s
    return top


def _names_all(containers: list, nested: set, rule: str) -> bool:
    """Does `rule` find a name in every block?"""
    return all((n := next(iter(own_matches(c, rule, nested)), None)) is not None and is_name(shown_name(n))
               for c in containers)


def _date_line(containers: list, nested: set, dated: list[str], name_rule: str | None) -> tuple[str | None, dict | None]:
    """(the date line's rule, its comment_lines reading) where every block's date line prints
    its name between the lines' constant words, and says the name the element `name_rule`
    shows wherever it shows one; else (None, None)."""
    rule = _best(dated, _date_score(containers, nested, None))
    nodes = [next(iter(own_matches(c, rule, nested)), None) for c in containers] if rule else []
    if name_rule is None:  # (as before: the lines of the blocks that have one)
        line = comment_lines.learn([node_text(n) for n in nodes if n is not None]) if rule else None
        return (rule, line) if line else (None, None)
    if not nodes or any(n is None for n in nodes):
        return None, None
    line = comment_lines.learn([node_text(n) for n in nodes])
    if line is None:
        return None, None
    said_any = shown_any = agreed = 0
    for c, n in zip(containers, nodes):
        said = comment_lines.name_in(node_text(n), line)
        shown = next(iter(own_matches(c, name_rule, nested)), None)
        named = shown is not None and is_name(shown_name(shown))
        shown_any += named
        if named and (shown is n or is_ancestor(n, shown)):  # the line's own name element (not a link in the text)
            if " ".join(shown_name(shown).split()).casefold() != " ".join((said or "").split()).casefold():
                return None, None
            agreed += 1
        said_any += bool(said) or comment_lines.unsigned(node_text(n), line)  # (signed by no one: the lines' shape)
    if said_any < comment_lines.SHARE * len(containers) or agreed < shown_any / 2:
        return None, None  # the name elements are mostly elsewhere: the line's words are no name
    return rule, line


def _line_reading(containers: list, nested: set, rule: str) -> dict | None:
    """The comment_lines reading of the text `rule` selects in the blocks, where enough blocks
    have it, open it with the same lead words and print a name there; else None."""
    texts = [node_text(n) for c in containers if (n := next(iter(own_matches(c, rule, nested)), None)) is not None]
    enough = comment_lines.SHARE * len(containers)
    line = comment_lines.learn(texts) if len(texts) >= enough else None
    return line if line and sum(1 for t in texts if comment_lines.name_in(t, line) or comment_lines.unsigned(t, line)) \
        >= enough else None


def _own_line(containers: list, nested: set, name_rule: str) -> dict | None:
    """The name element's own text read as a line ("Comment from: Ann [Visitor]"); None where it
    is the name alone."""
    return _line_reading(containers, nested, name_rule)


LINE_CHARS = 160  # a line that names its comment's author is short


def name_line(containers: list, nested: set, own: dict) -> tuple[str | None, dict | None]:
    """(the rule of a line every block prints its name in between constant words, its
    comment_lines reading), the line no date: "Comment from: Ann [Visitor] · site"; else (None, None)."""
    for rule in _votes(containers, lambda c: [d for d in own[c] if 2 < len(node_text(d)) <= LINE_CHARS][:8]):
        if (line := _line_reading(containers, nested, rule)) is not None:
            return rule, line
    return None, None


def _link_holder(containers: list, nested: set, name_rule: str) -> str:
    """The rule of the element that holds a linked name and nothing else (`<strong class="fn"><a
    rel="external nofollow">Ann</a></strong>`) where the name rule selects the link: a link is
    there only for commenters who left a site, the holder for every one (a sample of linked names
    left the others' comments nameless). The name rule where no one holder's rule fits them all."""
    holders = []
    for c in containers:
        node = next(iter(own_matches(c, name_rule, nested)), None)
        if node is None:
            continue
        up = node.getparent()
        if node.tag != "a" or up is None or up is c or normalize_text(node_text(up)) != normalize_text(node_text(node)):
            return name_rule
        holders.append((c, up))
    if not holders:
        return name_rule
    for rule in relative_rules(*holders[0]):
        if all(next(iter(own_matches(c, rule, nested)), None) is up for c, up in holders):
            return rule
    return name_rule


def learn_slots(containers: list) -> dict | None:
    """{"author", "date", "text", "text_all": True, affixes} of these blocks (every block of
    the sample posts), or None when they show no name or no text."""
    nested = set(containers)
    own = {c: own_nodes(c, nested) for c in containers}
    proposed = _votes(containers, _name_nodes(own)) + (["."] if any(len(run_of(c)) > 1 for c in containers[:12]) else [])
    name_rule = _paired_name(containers, nested, proposed, _best(proposed, _name_score(containers, nested)))
    dated = _votes(containers, lambda c: sorted((d for d in own[c] if date_value(d)), key=lambda d: len(node_text(d)))[:4])
    line, dated_line = None, False
    if name_rule is None or not _names_all(containers, nested, name_rule):
        # no element of its own, or one only some commenters have (a link to a site): the name
        # may be a word of the date line ("Posted by: NAME at ..."), linked or not
        line_rule, line = _date_line(containers, nested, dated, name_rule)
        dated_line = line is not None
        if line is None and name_rule is None:  # or of a line of its own ("Comment from: NAME [Visitor]")
            line_rule, line = name_line(containers, nested, own)
        if line is not None:
            name_rule = line_rule
        elif name_rule is None:
            return None
    if line is None:  # the name element is itself a line with words around the name ("Comment from: Ann [Visitor]")
        line = _own_line(containers, nested, name_rule)
        name_rule = _link_holder(containers, nested, name_rule) if line is None else name_rule
    date_rule = name_rule if dated_line else _best(dated, _date_score(containers, nested, name_rule))
    avoid = [[next(iter(own_matches(c, r, nested)), None) for r in (name_rule, date_rule) if r] for c in containers]
    text_rule = _best(_votes(containers, lambda c: sorted(
        (d for d in own[c] if len(node_text(d)) >= 2), key=lambda d: -len(node_text(d)))[:6]) + [REST],
        _text_score(containers, nested, avoid, name_rule, date_rule))
    if text_rule is None:
        return None
    if line:
        return {"author": name_rule, "author_line": line, "date": date_rule, "text": text_rule, "text_all": True}
    names = [shown_name(next(iter(own_matches(c, name_rule, nested)), None)) for c in containers]
    return {"author": name_rule, "date": date_rule, "text": text_rule, "text_all": True, **_affixes(names)}
