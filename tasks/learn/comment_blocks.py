"""A blog's comment rule with no comment feed: the repeated blocks after the posts' content.

Comments are the part of a post page made of sibling blocks of one shape, each with a short
name, often a date, and a longer text, after the post; replies repeat the same shape one
level down. No theme is named here: the blocks are found by their structure, and several
posts of the blog agree on them.

1. every element after the post's content holding a name and something said (in it, loose
   beside its name line, or in the run of siblings it heads: a dt name, its dd text) proposes
   group rules (tasks.learn.comment_rules.group_rules); a rule is a candidate where at
   least COMMENT_LIKE of the nodes it returns after the content hold a name and a text,
   and they are of one kind (not rows of different classes: a box of labelled values);
2. the candidates selecting the most blocks that are one comment each (distinct node
   sets, the shortest rule for each) are completed with their slots
   (tasks.learn.comment_slots) and judged by what they read: a comment is good when it
   has a name and a text; it is not one when its name or text links to another post or
   to an anchor of the page (related or recent posts, a recent-comments widget, a table
   of contents), when its text is printed on other posts too (a sidebar), when it is named
   as the page (the post itself, or a post of a listing), or when it has no name;
3. the rule with the most good comments (after twice its bad ones), then the most blocks
   that are one comment each, wins. A lone block, and blocks on a post read alone or
   whose content is unknown, are enough only where the blog's markup calls them comments,
   replies or responses (a weak signal beside the structure, never the method).

The rule has the shape of a feed-learned one ({"container", "author", "date", "text"}, and
"text_all": the text is every own node of the text rule) and tasks.extract.comments
applies it. Pure functions over lxml roots.
"""
from __future__ import annotations

import hashlib
import re
import urllib.parse
from collections import Counter

from tasks.extract.comment_count import shown_count
from tasks.fetch.html import node_text
from tasks.text.similarity import normalize_text
from tasks.learn.comment_nodes import (
    LINE_CHARS, date_value, elements, is_ancestor, is_date_child, names_page, own_matches, page_titles, said_text, shown_name, text_without,
    title_parts)
from tasks.learn import comment_lines
from tasks.learn.comment_lines import name_in
from tasks.learn.comment_rules import group_rules
from tasks.learn.comment_slots import (NOT_BLOCKS, SKIP, footer_of, is_date_text, is_name, is_said, learn_slots, name_line,
                                       own_nodes, run_of, signed)
from tasks.learn.rules import apply_rule

__all__ = ["learn_comment_blocks", "looks_like_comment", "theme_texts", "fingerprint", "COMMENT_MARK"]

COMMENT_LIKE = 0.8  # share of a rule's nodes that must hold a name and a text
MAX_PROPOSERS = 150  # elements per page proposing rules
TOP = 12  # candidate rules completed with slots and judged
INLINE = frozenset("a abbr b bdi cite code em font i kbd label mark q s small span strong sub sup time u".split())
LAYOUT_BLOCKS = ("div", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "table", "form")
BLOCK_CHARS = 20000  # a block larger than this is a section of the page, not a comment
COMMENT_MARK = re.compile(r"comment|komment|coment|reac|repl|respon(?!siv)|répon|antwort|discus|thread|talk|"
                          r"댓글|コメント|评论|留言|تعليق", re.I)


# ---------------------------------------------------------------- shapes

def _leaves(el) -> list:
    """(node, text) of the element's descendants that show text of their own, and of the
    elements whose text is loose between their children (a text after the name line)."""
    out = []
    for d in el.iter():
        if not isinstance(d.tag, str) or d.tag in SKIP:
            continue
        if d is not el and ((d.text or "").strip() or d.tag == "br"):
            t = node_text(d)
            if t:
                out.append((d, t, False))
        loose = normalize_text(" ".join(k.tail or "" for k in d if isinstance(k.tag, str)))
        if loose:
            out.append((d, loose, True))
    return out


def _shape(el, strong: bool) -> bool:
    """A name on its own (a node whose first line is name-like) and, apart from it, a text:
    one that says something (`strong`, for proposing) or any text that is not a date; in
    the element, or in the run of siblings it heads."""
    if not isinstance(el.tag, str) or el.tag in SKIP:
        return False
    run = run_of(el)
    whole = sum(len(node_text(n)) for n in run)
    if not (2 <= whole <= BLOCK_CHARS) or any(n.find(".//textarea") is not None for n in run):
        return False
    leaves = [x for n in run for x in _leaves(n)]
    if len(run) > 1:
        leaves += [(n, node_text(n), False) for n in run if node_text(n)]
    names = [d for d, t, loose in leaves if not loose and is_name(shown_name(d))][:6]
    if len(run) == 2 and footer_of(run[0]) is run[1] and signed(node_text(run[1])):
        names.append(run[1])  # a footer line "Posted by NAME : DATE" names the comment above it
    if not names:
        return False
    for d, t, loose in leaves:
        if not (is_said(t) if strong else len(t) >= 2 and not is_date_text(t)):
            continue
        for n in names:
            if n is not d and (loose or not _related(n, d)) and shown_name(n) != t:
                return True
    return False


def _related(a, b) -> bool:
    return any(x is b for x in a.iterancestors()) or any(x is a for x in b.iterancestors())


def looks_like_comment(el) -> bool:
    """A name and something said in it, of a comment's size."""
    return _shape(el, strong=True)


def _after(content):
    """A test: is an element after the post's content (not around it, not inside it)."""
    if content is None:
        test = lambda el: True  # noqa: E731
    else:
        order = {el: i for i, el in enumerate(content.getroottree().getroot().iter())}
        last = max((order.get(d, 0) for d in content.iter()), default=0)
        test = lambda el: order.get(el, -1) > last  # noqa: E731
    test.content = content
    return test


def _around_not(content):
    """A test for the blind reading: any element but the post's content and those around it (the
    post's own article: its byline and paragraphs are no comment of it)."""
    if content is None:
        return _after(None)
    test = lambda el: not (el is content or is_ancestor(el, content))  # noqa: E731
    test.content = None
    return test


def _proposers(root, after) -> list:
    out, layout = [], {}
    for el in root.iter():
        if isinstance(el.tag, str) and el.tag not in SKIP and el.tag not in NOT_BLOCKS and el.tag not in INLINE \
                and after(el) and looks_like_comment(el) and not _in_data(el, layout):
            out.append(el)
            if len(out) >= MAX_PROPOSERS:
                break
    return out


def _in_data(el, layout: dict) -> bool:
    """Is `el` inside a paragraph, preformatted text or a table of data (no comment block)? A
    cell that holds blocks of its own is a page laid out in a table (Serendipity's `td#content`
    holding the post and its comments): what is in it is in no table of data."""
    for a in el.iterancestors():
        if a.tag in ("p", "pre", "code", "caption"):
            return True
        if a.tag in ("td", "th"):
            if a not in layout:  # (held: the cell's proxy stays while the root lives)
                layout[a] = any(True for _ in a.iter(*LAYOUT_BLOCKS))
            return not layout[a]
        if a.tag in NOT_BLOCKS:
            return True  # in a table's rows, in no cell
    return False


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


def _one_kind(nodes: list) -> bool:
    """Blocks of one kind: where every block has classes, some class is shared by most of them
    (comment odd / comment even); rows of different classes (author, link, licence) are the
    parts of one box, not a list."""
    if len(nodes) < 2 or not all((n.get("class") or "").strip() for n in nodes):
        return True
    if len({n.get("class") for n in nodes}) < len(nodes):
        return True  # a kind repeated (comment, comment, reply)
    tokens = Counter(t for n in nodes for t in set(n.get("class").split()))
    return tokens.most_common(1)[0][1] >= 0.6 * len(nodes)


# ---------------------------------------------------------------- candidates

def _holds_form(el) -> bool:
    """Is `el` (or does it hold) a form or a text box: the box to write a comment in?"""
    return el.tag in ("form", "textarea") or next(el.iter("form", "textarea"), None) is not None


MAX_LINED = 200  # blocks of one rule on one page whose date lines are read for names




def _date_line_of(el):
    """The shortest element of `el` that shows a date (its date line), or None. Elements whose raw
    text is already far longer than a line are passed over unread (a block's whole text, read at
    every level of a long page's candidates, was most of a held-out blog's crawl CPU)."""
    best, best_len = None, LINE_CHARS + 1
    sizes = _text_sizes(el)
    for d in el.iter():
        if not isinstance(d.tag, str) or sizes[d] > 8 * LINE_CHARS:
            continue
        n = len(node_text(d))
        if n < best_len and date_value(d):
            best, best_len = d, n
    return best


def _text_sizes(el) -> dict:
    """element -> the characters of its text (its itertext, unnormalised), in one pass up the tree."""
    sizes: dict = {}
    for d in reversed(list(el.iter())):  # (children before their parent)
        n = len(d.text or "") if isinstance(d.tag, str) else 0
        for c in d:
            n += sizes.get(c, 0) + len(c.tail or "")
        sizes[d] = n
    return sizes


def _named_in_lines(nodes: list, like, lined: dict | None = None) -> bool:
    """Blocks whose name is a word of their date line where no element holds it ("Posted by: Ann
    at ...", Ann linked to her site on some comments and not on others): the lines' constant
    words (tasks.learn.comment_lines) give a name on enough of the blocks that have no name
    element of their own. `lined`: the date lines found already (element -> line), and the
    verdicts on node lists already judged, across the rules of one learning."""
    if not 3 <= len(nodes) <= MAX_LINED:
        return False
    lined = {} if lined is None else lined
    key = tuple(nodes)  # (the elements themselves: held, their identity stays theirs)
    if key not in lined:
        lined[key] = _judged_lines(nodes, like, lined)
    return lined[key]


def _judged_lines(nodes: list, like, lined: dict) -> bool:
    for n in nodes:
        if n not in lined:
            lined[n] = _date_line_of(n)
    lines = [lined[n] for n in nodes]
    rule = comment_lines.learn([node_text(x) for x in lines if x is not None])
    if rule is None:  # a line of its own ("Comment from: Ann [Visitor]")
        nested = set(nodes)
        line_rule, rule = name_line(nodes, nested, {n: own_nodes(n, nested) for n in nodes})
        lines = [next(iter(own_matches(n, line_rule, nested)), None) if line_rule else None for n in nodes]
    if rule is None:
        return False
    # (a line of the same shape that names no one, "Posted by:  at ...", is a comment left unsigned)
    named = sum(1 for n, x in zip(nodes, lines)
                if like(n) or (x is not None and (name_in(node_text(x), rule) or comment_lines.unsigned(node_text(x), rule))))
    return named >= COMMENT_LIKE * len(nodes)


def _candidates(pages) -> list[tuple[str, list, int]]:
    """(rule, nodes per page, blocks that are one comment each) of the rules worth judging,
    best structure first."""
    memo: dict = {}
    lined: dict = {}  # _named_in_lines' date lines and verdicts, shared by the rules

    def like(el):
        if el not in memo:
            memo[el] = _shape(el, strong=False)
        return memo[el]

    proposed = Counter()
    for root, after in pages:
        for el in _proposers(root, after):
            for r in group_rules(el):
                proposed[r] += 1
    seen: dict = {}
    texts: dict = {}  # node -> its text, and how many pages print each text
    for rule in proposed:
        per_page, total = [], 0
        holds_post = False
        for root, after in pages:
            found = elements(apply_rule(root, rule))
            # (the reply box may share the comments' class: a block holding a form that holds no
            # comment is left out, not counted against the blocks that are comments)
            nodes = [n for n in found if after(n) and (like(n) or not _holds_form(n))]
            if nodes and sum(map(like, nodes)) < COMMENT_LIKE * len(nodes) and not _named_in_lines(nodes, like, lined):
                nodes = []
            per_page.append(nodes)
            total += len(nodes)
            holds_post = holds_post or (nodes and after.content is not None and any(
                n is after.content or is_ancestor(n, after.content) for n in found))
        if not total or holds_post or not _one_kind([n for nodes in per_page for n in nodes]):
            continue  # nothing, or the post's own template (the next posts of a listing)
        key = frozenset(id(n) for nodes in per_page for n in nodes)
        if key in seen and _naming(seen[key][0]) <= _naming(rule):
            continue  # the same blocks: a rule naming what they are, else the shortest, names them
        for i, nodes in enumerate(per_page):
            for n in nodes:
                texts.setdefault(n, (i, node_text(n)))
        seen[key] = (rule, per_page)
    on_pages = Counter(t for t in {texts[n] for n in texts})  # (page, text) once each
    printed = Counter(t for _, t in on_pages)  # text -> pages printing it
    ranked = []
    for rule, per_page in seen.values():  # blocks printed on several posts are the theme's
        own = [n for nodes in per_page for n in nodes if len(pages) == 1 or printed[texts[n][1]] == 1]
        ranked.append(((_pure(own, like), len(own), -len(rule)), rule, per_page))
    ranked.sort(key=lambda x: x[0], reverse=True)
    return [(rule, per_page, rank[0]) for rank, rule, per_page in ranked[:TOP]]


# ---------------------------------------------------------------- judging what a rule reads

def _stem(path: str) -> str:
    path = re.sub(r"(index)?\.s?html?$", "", path)
    return path.rstrip("/")


def _target(a, page) -> str | None:
    """Where a link leads when that is not a comment's business: "#" for an anchor in this
    page (a table of contents), the address of another page of the blog (a post, a listing);
    None for this page, its comment pages, the blog's home (a folder the page is in: the blog's
    owner signs a comment with it) and other sites."""
    href = (a.get("href") or "").strip()
    if href.startswith("#") and len(href) > 1:
        return "#"
    if not href or href.startswith(("javascript:", "mailto:")) or page is None:
        return None
    u = urllib.parse.urlsplit(urllib.parse.urljoin(page.geturl(), href))
    if u.netloc != page.netloc:
        return None
    path, here = _stem(urllib.parse.unquote(u.path)), _stem(urllib.parse.unquote(page.path))
    if not path or path == here or (here and path.startswith(here)) or here.startswith(path + "/"):
        return None
    return path


def _links(node, page) -> list[str]:
    """The targets of the links in a node or around it (not a date beside the name in it: the
    comment's permalink)."""
    if node is None:
        return []
    found = [_target(a, page) for a in [*node.iter("a"), *node.iterancestors("a")]
             if a is node or not is_date_child(a)]
    return [t for t in found if t]


def _read(c, slots: dict, nested: set, page, theme) -> tuple[str, str, list, bool]:
    """(name, text, where the name links, not a comment) of one block as the extraction reads
    it: not one when its text is mostly links within the blog or printed on other posts."""
    name_node = next(iter(own_matches(c, slots["author"], nested)), None)
    name = name_in(node_text(name_node), slots["author_line"]) if slots.get("author_line") and name_node is not None \
        else shown_name(name_node)
    text, text_nodes = said_text(c, slots, nested)
    linked = sum(_linked(n, page) for n in text_nodes)
    # mostly links within the blog, or nothing but a link anywhere (a "source: <URL>" box, no one's words)
    away = linked > 0.5 * max(1, len(text)) or (bool(text_nodes) and sum(map(_link_words, text_nodes)) >= len(text) > 0)
    # the theme's when all it says is printed on other posts too ("Reply" under a text is not all)
    printed = bool(theme) and bool(text_nodes) and all(
        fingerprint(text_without(n, nested)) in theme for n in text_nodes if text_without(n, nested))
    if slots.get("author_line") and name_node is not None:  # the line's links other than the name's are not its
        said = " ".join(name.split()).casefold()
        targets = [t for a in name_node.iter("a") if " ".join(node_text(a).split()).casefold() == said
                   and (t := _target(a, page))]
    else:
        targets = _links(name_node, page)
    return name, text, targets, bool(away or printed)


def _linked(node, page) -> int:
    """Characters of a node's text that are the words of links within the blog."""
    if any(_target(a, page) for a in node.iterancestors("a")):
        return len(node_text(node))
    return sum(len(node_text(a)) for a in node.iter("a") if _target(a, page))


def _link_words(node) -> int:
    """Characters of a node's text that are the words of links, wherever they lead."""
    if next(node.iterancestors("a"), None) is not None:
        return len(node_text(node))
    return sum(len(node_text(a)) for a in node.iter("a"))


def _name_away(targets: list[str], shared: Counter) -> bool:
    """A name that links to an anchor of this page, or to another page of the blog that no
    other block's name links to (a post's title; not the blog owner's about page)."""
    return any(t == "#" or shared[t] < 2 for t in targets)


def _judge(pages, per_page: list[list], theme=frozenset()):
    """(good, bad, slots) of a candidate: its blocks read with the slots they agree on."""
    containers = [n for nodes in per_page for n in nodes]
    slots = learn_slots(containers)
    if not slots:
        return 0, len(containers), None
    nested = set(containers)
    read = []
    parts = [title_parts(root) for root, _ in pages]
    blog_name = frozenset.intersection(*parts) if len(parts) > 1 else frozenset(parts[0] if parts else ())
    headings = [page_titles(root, nested) for root, _ in pages]
    printed = Counter(h for hs in headings for h in hs)
    # a heading most pages print is the theme's (a footer's "About the author"), not what a page is
    theme_heads = {h for h, n in printed.items() if len(pages) > 1 and n > len(pages) / 2}
    for (root, _), nodes, part, heads in zip(pages, per_page, parts, headings):
        page = urllib.parse.urlsplit(root.base) if getattr(root, "base", None) else None
        titles = (heads - theme_heads) | (part - blog_name)  # the post's title, not the blog's name
        read.append([(n, t, g, a or names_page(n, titles)) for n, t, g, a in
                     (_read(c, slots, nested, page, theme) for c in nodes)])
    on_pages = Counter(t for comments in read for t in {t for _, t, _, _ in comments if t})
    shared = Counter(t for comments in read for _, _, targets, _ in comments for t in set(targets))
    good = bad = 0
    for comments in read:
        for name, text, targets, away in comments:
            if away or _name_away(targets, shared) or not is_name(name) or not text or text == name \
                    or (len(pages) > 1 and on_pages[text] > 1):
                bad += 1
            else:
                good += 1
    return good, bad, slots


def _marked(el, levels: int = 8) -> bool:
    """Does the markup call `el` or an ancestor a comment (its class, or an id that is not
    its own heading's text made a slug: a post's section "Fix threads" is #fix-threads)?"""
    node = el
    for _ in range(levels):
        if node is None:
            return False
        ident = node.get("id") or ""
        if ident and re.sub(r"-\d+$", "", ident.casefold()) == _heading_slug(node):  # (-1: a repeated heading)
            ident = ""
        if COMMENT_MARK.search(f"{ident} {node.get('class') or ''}") or _under_comment_heading(node):
            return True
        node = node.getparent()
    return False


HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")


def _under_comment_heading(node) -> bool:
    """Is `node` in a section whose heading calls it comments: the nearest heading before it
    among its siblings, marked so by its id or class (Movable Type's `<h2 id="comments">` over
    blocks `div#c12` named for nothing)?"""
    for sib in node.itersiblings(preceding=True):
        if not isinstance(sib.tag, str) or sib.tag not in HEADINGS:
            continue
        # (by its id or class: a post's own section heading may say "Antworten" in its words)
        return bool(COMMENT_MARK.search(f"{sib.get('id') or ''} {sib.get('class') or ''}"))
    return False


def _heading_slug(node) -> str | None:
    """The slug of the node's own first heading ("Fix socketserver" -> fix-socketserver)."""
    for h in node:
        if isinstance(h.tag, str) and h.tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            return re.sub(r"[\W_]+", "-", node_text(h).casefold()).strip("-")
    return None


def _enough(per_page: list[list], good: int, blind: bool) -> bool:
    """Blocks repeated on some post, or a lone block the markup calls a comment; on a post
    read alone (no other post to tell the theme's rows from comments) or where the post's
    content is not known (`blind`: its lists could be taken), blocks the markup calls comments."""
    nodes = [n for ns in per_page for n in ns]
    marked = sum(map(_marked, nodes)) >= COMMENT_LIKE * len(nodes)
    if (len(per_page) == 1 or blind) and not marked:
        return False
    if any(len(ns) >= 2 for ns in per_page):
        return good >= 2
    return good >= 1 and marked


def _kind(rule: str) -> int:
    """1 for a rule naming blocks by what they are (one step: a tag and a class token or a
    semantic attribute), which replies share; 0 for a path under one list (the top level)."""
    return int(rule.count("//") == 1 and "/" not in rule[2:] and "[" in rule)


def _naming(rule: str) -> tuple:
    """How well a rule names its blocks, least first: by what they are (_kind), by a word that
    calls them comments rather than a state they share on a few posts ("odd", "depth-1"), short."""
    return -_kind(rule), not COMMENT_MARK.search(rule), len(rule)


def fingerprint(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "replace")).hexdigest()[:10]


def theme_texts(pages, most: int = 300, least: int = 2) -> list[str]:
    """Fingerprints of the texts printed after the content on several of these posts (widgets,
    footers, labels): kept with a blog none of whose sample posts shows comments, so that a
    post read alone does not take them for its comments."""
    count: Counter = Counter()
    for root, content in pages:
        if root is None:
            continue
        after = _after(content)
        found = set()
        for el in root.iter():
            if isinstance(el.tag, str) and el.tag not in SKIP and after(el):
                t = text_without(el, frozenset())
                if 2 <= len(t) <= 2000:
                    found.add(fingerprint(t))
        count.update(found)
    return sorted(k for k, n in count.most_common() if n >= least)[:most]


def learn_comment_blocks(pages, theme=()) -> dict | None:
    """The comment rule the posts `pages` ([(root, content element or None)]) agree on, or None;
    `theme`: theme_texts of other posts of the blog (their blocks are not comments)."""
    prepared = [(root, _after(content)) for root, content in pages if root is not None]
    blind = all(content is None for root, content in pages if root is not None)
    theme = frozenset(theme or ())
    # what every one of these posts prints after its content is the theme's (a "Post a comment"
    # heading over the same notice): never a comment, even where it is selected on one post only
    # ("Thanks!" may well be said under two posts, not under every one)
    if len(prepared) >= 3:
        theme |= frozenset(theme_texts(pages, most=10 ** 6, least=len(prepared)))
    best = _best(prepared, blind, theme)
    if best is None and not blind:
        # none after the content: a content rule wider than the post (the article holding its
        # comment section) has them inside; they are taken only where the markup calls them comments
        best = _best([(root, _around_not(after.content)) for root, after in prepared], True, theme)
    return best


def _best(prepared, blind: bool, theme) -> dict | None:
    best, best_key = None, None
    shown = [shown_count(root) for root, _ in prepared]
    for rule, per_page, pure in _candidates(prepared):
        good, bad, slots = _judge(prepared, per_page, theme)
        if not slots or good <= 2 * bad or not _enough(per_page, good, blind):
            continue
        # the pages whose printed count ("Kommentare (3)") the rule's blocks make: a section of
        # trackbacks beside the comments reads as well, and counts otherwise
        counted = sum(1 for n, nodes in zip(shown, per_page) if n and len(nodes) == n)
        key = (counted, good - 2 * bad, pure, -bad, _kind(rule), -len(rule))
        if best_key is None or key > best_key:
            best_key = key
            best = {"container": rule, **slots, "source": "blocks",
                    "matched": sum(len(nodes) for nodes in per_page)}
    return best
