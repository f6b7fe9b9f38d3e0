"""Apply a blog's learned rules to one post page (the cheap step done for every post).

`extract_post` parses the page once and evaluates one compiled XPath per field, and cuts
the value out of its node where the learner found it shares the node with other text
(tasks.learn.spans). Where a rule finds nothing on a page (a post without a byline, an
odd template), the fallback chain fills the gap: JSON-LD, microdata, meta tags, the feed
entry, h1/<time datetime>/rel=author, the feed's blog-wide author
(tasks.extract.fields); the record says which source gave each field. `matches_entry`
is update_crawl's check that the stored rules still extract what the feed says.
"""
from __future__ import annotations

import re

from lxml import etree

from tasks.text.dates import near_day, parse_date, url_day
from tasks.extract.fields import complete
from tasks.extract.footer import cut_keeping, without_footer
from tasks.learn.link_slots import without_link_slots
from tasks.learn.template_blocks import without_template
from tasks.learn.template_lines import without_template_lines
from tasks.extract.header import without_header
from tasks.fetch.html import block_text, html_to_text, node_text, parse_html, to_html
from tasks.learn.authors import byline_authors
from tasks.learn.fields import DAY_FIRST, clean_author, page_authors, person_like
from tasks.learn.plausible import generic_fields
from tasks.learn.spans import apply_span
from tasks.text.names import split_authors
from tasks.learn.rules import apply_rule, first_match, first_matches, first_of
from tasks.text.similarity import dice

FIELDS = ("title", "content", "author", "date")
_DATE_PROBES = ("//meta[@property='article:published_time']/@content",
                "//meta[@name='article:published_time']/@content",
                "//meta[@itemprop='datePublished']/@content",
                "//*[@itemprop='datePublished']/@datetime",
                "//time[@datetime]/@datetime",
                "//meta[@name='date']/@content",
                "//meta[@name='DC.date.issued' or @name='dc.date']/@content")
_TITLE_PROBES = ("//meta[@property='og:title']/@content", "//h1", "//title")
_MAX_AUTHORS = 5
MAX_DATE_NODES = 6  # nodes of a date rule tried for one that reads as a date (and the URL's day)
_INNER_DATES = etree.XPath(".//time/@datetime | .//*[@itemprop]/@content", smart_strings=False, regexp=False)


def rule_of(rules: dict | None, field: str) -> str | None:
    """The XPath of a field, whether stored as {"rule": ...} or as a bare string."""
    v = (rules or {}).get(field)
    if isinstance(v, dict):
        return v.get("rule")
    return v if isinstance(v, str) else None


def rules_of(rules: dict | None, field: str) -> list[str]:
    """The field's rule and its runners-up, in the order to try them."""
    v = (rules or {}).get(field)
    if isinstance(v, dict):
        return [r for r in (v.get("rule"), *(v.get("fallbacks") or ())) if r]
    return [v] if isinstance(v, str) and v else []


def _with_text(root, rule: str) -> list:
    """[(node, text)] of what `rule` selects, the nodes with text only."""
    return [(r, t) for r in apply_rule(root, rule) if (t := node_text(r))]


def _select(root, rules: list[str]) -> list:
    """[(node, text)] of the first of `rules` that selects anything with text."""
    for rule in rules:
        found = _with_text(root, rule)
        if found:
            return found
    return []


def _rule_first(root, rule: str, elements: bool = False, firsts=None) -> tuple | None:
    """(node, text) of the first node with text that `rule` selects (its first element if
    `elements`: (None, "") when it selects only strings), or None if nothing it selects
    has text. The rule's first result comes from `firsts` (tasks.learn.rules.first_matches) or
    first_match; only if that has no text is the rule applied whole. Such a rule selects
    elements only or strings only (its last step says which), so when its first result
    is a string, `elements` finds none."""
    first = firsts[rule] if firsts and rule in firsts else first_match(root, rule)
    if first and (text := node_text(first[0])):
        return (None, "") if elements and isinstance(first[0], str) else (first[0], text)
    found = _with_text(root, rule)
    if not found:
        return None
    return next(((r, t) for r, t in found if not (elements and isinstance(r, str))), (None, ""))


def _parent_rule(rule: str) -> str | None:
    """The rule without its last step (`//*[@class='post-body']/div[2]` -> `//*[@class='post-body']`)
    where that step's parent is a container the template names (an id or a class), else None
    (a rule of one step; a positional path, whose parent is a block of the whole page)."""
    depth, quote, cuts = 0, None, []
    for i, ch in enumerate(rule):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == "/" and depth == 0 and (i == 0 or rule[i - 1] != "/"):
            cuts.append(i)  # where a step starts ('//' counted once)
    if len(cuts) < 2:
        return None
    parent = rule[:cuts[-1]]
    last = parent[cuts[-2]:]
    return parent if ("[@class=" in last or "[@id=" in last) else None


MIN_CONTAINER_TEXT = 80  # a container read in the rule's place holds a post's text, not a caption


def _container(root, rule: str) -> tuple:
    """(node, text) of the one element the content rule's parent step selects, where the rule
    finds nothing: a post whose body is not wrapped in the inner element the training posts
    had (a sitemap post of a list, an old post) is read from the post's container. (None, "")
    where the parent selects none or several (a listing), or too little text."""
    parent = _parent_rule(rule)
    if not parent:
        return None, ""
    try:
        hits = [n for n in apply_rule(root, parent)[:2] if not isinstance(n, str)]
    except Exception:  # a rule that does not compile without its last step: no container
        return None, ""
    if len(hits) != 1:
        return None, ""
    text = node_text(hits[0])
    return (hits[0], text) if len(text) >= MIN_CONTAINER_TEXT else (None, "")


def _select_first(root, rules: list[str], elements: bool = False, firsts=None) -> tuple:
    """`_select(...)[0]` (the first element of it if `elements`), or (None, ""), mostly
    without applying a rule to the whole page (`_rule_first`)."""
    for rule in rules:
        got = _rule_first(root, rule, elements, firsts)
        if got is not None:
            return got
        if elements and (body := _textless(root, rule, firsts)) is not None:
            return body, ""  # a post of photos alone, or empty: its body, not a runner-up's sidebar text
    return None, ""


def _textless(root, rule: str, firsts=None):
    """The element `rule` selects first, where none it selects has text, else None: the
    rule holds on this page (its post has no text), and a runner-up rule (tried where the
    rule selects nothing: another template) would read something else."""
    first = firsts[rule] if firsts and rule in firsts else first_match(root, rule)
    el = first[0] if first else None
    return el if el is not None and not isinstance(el, str) and isinstance(el.tag, str) else None


def _authors(found: list, span: dict | None, lang: str | None) -> tuple[list[str], bool]:
    """The names the author rule's nodes give: each node's span (tasks.learn.spans) or
    whole text, without "By", split into a list (tasks.text.names); and whether a span
    gave them."""
    names, spanned = [], False
    for node, text in found[:_MAX_AUTHORS]:
        value = apply_span(node, span, author=True) if span else None
        spanned = spanned or value is not None
        for name in split_authors(clean_author(value or text), lang):
            if span and value is None and not person_like(name):
                continue  # the byline's span does not fit this post: its whole text is no name
            if name and name not in names and len(name) <= 120:
                names.append(name)
    return names[:_MAX_AUTHORS], spanned


def _machine_date(el) -> str | None:
    """A machine-readable date on or inside a selected element (<time datetime>, content=)."""
    if isinstance(el, str):
        return None
    for v in [el.get("datetime"), el.get("content")] + _INNER_DATES(el):
        d = parse_date(v) if v else None
        if d:
            return d
    return None


def _date(root, rules: list[str], lang: str | None = None, firsts=None, url: str | None = None) -> str | None:
    """The date `rules` select (the first of their first three nodes that reads as one). Where the
    URL carries a day and the first date is not it, a further node's date that is (the first
    was another post's: a "next post" card) wins."""
    first, text = _select_first(root, rules, firsts=firsts)
    if first is None:
        return None
    d = _machine_date(first) or parse_date(text, lang)
    day = url_day(url)
    if d and (not day or near_day(d, day)):
        return d
    for r, text in _select(root, rules)[1:MAX_DATE_NODES]:
        other = _machine_date(r) or parse_date(text, lang)
        if other and (not day or near_day(other, day)):
            return other
    return None if d and day else d  # no node's date is the URL's: other sources first (extract_root)


def _page_date(root) -> str | None:
    """The last resort: machine-readable dates anywhere on the page (<time datetime>)."""
    for probe in _DATE_PROBES:
        for r in first_of(root, probe):
            d = parse_date(node_text(r))
            if d:
                return d
    return None


TITLE_DATE_CHARS = 80  # a date line beside the title is short ("Category · 2007年05月14日")
TITLE_DATE_NODES = 6  # elements after the title looked at


def _date_by_title(title_node, lang: str | None = None) -> str | None:
    """A date printed just after the post's title, in its header (the title's parent): a short
    element after the title whose text reads as a date. A blog whose date rule read the comments'
    dates (held-out ytti-ja without a feed) still has its posts' days where its header shows them."""
    if title_node is None or isinstance(title_node, str):
        return None
    node = title_node
    while node.getparent() is not None and node.getnext() is None and node.getparent().tag not in ("body", "html"):
        node = node.getparent()  # (a title link inside its heading: the heading's siblings)
    looked = 0
    for sib in node.itersiblings():
        if not isinstance(sib.tag, str):
            continue
        looked += 1
        if looked > TITLE_DATE_NODES:
            break
        text = node_text(sib)
        if text and len(text) <= TITLE_DATE_CHARS and (d := parse_date(text, lang)):
            return d
    return None


def _page_title(root) -> str | None:
    for probe in _TITLE_PROBES[1:]:
        title = (_rule_first(root, probe) or (None, ""))[1]
        if title:
            return title
    return None


def _span(rules: dict | None, field: str) -> dict | None:
    v = (rules or {}).get(field)
    return v.get("span") if isinstance(v, dict) else None


def _date_lang(root, rules: dict | None) -> str | None:
    """How to read 03/01/2008: day first if the learner saw it so, else the page's language."""
    learned = (rules or {}).get("date")
    if isinstance(learned, dict) and learned.get("dayfirst"):
        return DAY_FIRST
    return (root.get("lang") or "").strip() or None


def _rule_title(root, rules: dict | None, title_rules: list[str], firsts) -> tuple[str, str | None, object]:
    """The title the rule selects, cut out of its node by the learned span where it fits,
    which of the two gave it ("rule", "span"; None when the rule found none), and its node."""
    tnode, title = _select_first(root, title_rules, firsts=firsts)
    if not title:
        return title, None, None
    span = _span(rules, "title")
    if span and tnode is not None and (inner := apply_span(tnode, span)):
        return inner, "span", tnode
    return title, "rule", tnode


def post_block(root, rules: dict | None, block):
    """The content block without the post's header (tasks.extract.header) and the template's blocks, for a content block
    found apart from extract_root (the comments cut out of it: workers/pipeline.py)."""
    if block is None or "title" in generic_fields(rules):
        return _without_template(block, rules)
    tnode, title = _select_first(root, rules_of(rules, "title"))
    span = _span(rules, "title")
    inner = apply_span(tnode, span) if span and tnode is not None else None
    return _without_template(without_header(block, tnode, inner or title), rules)


def _rule_authors(root, rules: dict | None, author_rules: list[str], lang: str | None) -> tuple[list[str], str | None]:
    """The names the author rule gives, and whether its span ("span") or its nodes' whole
    text ("rule") gave them (None when it gave none)."""
    if not author_rules:
        return [], None
    authors, spanned = _authors(_select(root, author_rules), _span(rules, "author"), lang)
    return authors, (("span" if spanned else "rule") if authors else None)


def _without_template(node, rules: dict | None):
    """`node` without what the content rule's node holds on every post beside the post: the
    template's blocks (tasks.learn.template_blocks), lines of links (tasks.learn.link_slots) and
    marked lines that say nearly the same on every post (tasks.learn.template_lines)."""
    content = (rules or {}).get("content")
    if not isinstance(content, dict):
        return node
    node = without_link_slots(without_template(node, content.get("template")), content.get("link_slots"))
    return without_template_lines(node, content.get("template_lines"))


def _ended_at_date(root, node, text: str, date_rules: list[str], firsts, title_node):
    """(node, text, title node) cut at the date rule's line where it lies inside the node after
    the post's text: the blog's posts end at their byline (tasks.learn.byline_end). The title's
    node, where it lies in the node before the line, is its copy in the cut node."""
    line, _ = _select_first(root, date_rules, elements=True, firsts=firsts)
    if line is None or isinstance(line, str):
        return node, text, title_node
    cut, title_copy = cut_keeping(node, line, title_node)
    if cut is None or not block_text(cut).strip():
        return node, text, title_node
    return cut, block_text(cut), title_copy if title_copy is not None else title_node


def _page_lang(root, blog: dict | None) -> str | None:
    """The page's language, else the feed's: which word joins a list of authors."""
    return (root.get("lang") or "").strip() or (blog or {}).get("language") or None


def _rule_sources(title: str | None, content: bool, authors: str | None, published: bool) -> dict:
    """field -> what filled it ("rule", "span") for the fields the rules filled, in record order."""
    found = (("title", title), ("content", "rule" if content else None), ("authors", authors),
             ("published", "rule" if published else None))
    return {field: source for field, source in found if source}


def extract_root(root, raw, rules: dict | None, entry: dict | None = None, blog: dict | None = None,
                 url: str | None = None) -> dict:
    """`extract_post` on a page already parsed (rendered pages, the learner's checks).

    entry: the post's feed entry, if the feed lists it; blog: {"authors": the feed's
    blog-wide author, "title": the feed's title, "language": the feed's language, for
    the word that joins authors where the page names none} (tasks.extract.fields.complete)."""
    # a field the blog reads generically (tasks.learn.plausible) has no rule here but content's,
    # whose node the template checks use (the fallback replaces its text: workers/extract/fallback.py)
    generic = generic_fields(rules)
    title_rules, content_rules, author_rules, date_rules = (
        [] if f in generic and f != "content" else rules_of(rules, f) for f in FIELDS)
    lang = _page_lang(root, blog)
    # the title, content and date rules' first matches, in one walk over the page
    firsts = first_matches(root, [r[0] for r in (title_rules, content_rules, date_rules) if r])
    title, title_source, title_node = _rule_title(root, rules, title_rules, firsts)
    node, text = _select_first(root, content_rules, elements=True, firsts=firsts)
    if node is None and content_rules:  # a post without the inner wrapper the rule names: its container
        node, text = _container(root, content_rules[0])
    if node is not None and text and date_rules and ((rules or {}).get("content") or {}).get("ends_at_date"):
        node, text, title_node = _ended_at_date(root, node, text, date_rules, firsts, title_node)
    if node is not None and text:
        node = without_header(node, title_node, title)  # a block around the post's heading: not the heading
        node = _without_template(node, rules)  # nor what every post's node holds beside the post
        text = block_text(node)  # its paragraphs and list items apart, also where markup is minified
    authors, authors_source = _rule_authors(root, rules, author_rules, lang)
    page_url = url or root.getroottree().docinfo.URL
    published = _date(root, date_rules, _date_lang(root, rules), firsts, page_url)
    if node is not None and text:  # a block that starts with the post's day or ends with its byline: not those lines
        cut = without_footer(node, published or (entry or {}).get("published"), lang, authors)
        if cut is not node:
            node, text = cut, block_text(cut)
    found = {
        "title": title or None,
        "content_text": text or None,
        "content_html": to_html(node) if node is not None else None,
        "authors": authors,
        "published": published,
        "sources": _rule_sources(title_source, bool(text), authors_source, bool(published)),
    }
    signs = {"title": lambda: _page_title(root), "published": lambda: _page_date(root) or _date_by_title(title_node, lang),
             "authors": lambda: page_authors(root, raw), "byline": lambda: byline_authors(root)}
    learned = ("authors",) if author_rules else ()
    off = isinstance((rules or {}).get("date"), dict) and rules["date"].get("url_days") == "off"
    return _url_day_kept(complete(found, root, page_url, entry, blog, signs, lang, learned), page_url, off)


def _url_day_kept(out: dict, url: str | None, off: bool = False) -> dict:
    """A post whose URL carries its day (/2014/03/09/slug/) is dated that day (give or take one,
    for time zones) when no source reads it: a date further off is another post's or an update's.
    `off`: the blog's feed dates its posts off their URLs' days (a file named the day its draft
    began): the URL's day only where nothing else dates the post."""
    day = url_day(url)
    if not day or (out.get("published") and (off or near_day(out["published"], day))):
        return out
    return dict(out, published=day, sources=dict(out.get("sources") or {}, published="url"))


def extract_post(html, url: str | None, rules: dict | None) -> dict:
    """{"title", "content_text", "content_html", "authors", "published"} of one post page."""
    root = parse_html(html, url)
    return extract_root(root, html, rules)


def matches_entry(extracted: dict, entry: dict, threshold: float = 0.5) -> bool:
    """Do the rules still extract this feed entry? Title and content (or summary) must
    be similar to the feed's, in the paper's sense (Dice of bigrams above 0.5)."""
    title = html_to_text(entry.get("title") or "")
    got_title = extracted.get("title") or ""
    if title and dice(title.casefold(), got_title.casefold()) <= threshold:
        return False
    target = html_to_text(entry.get("content_html") or entry.get("summary_html") or "")
    got = extracted.get("content_text") or ""
    if not target:
        return bool(got)
    if entry.get("content_html"):
        return dice(target, got) > threshold
    # a summary: its words should appear in the extracted body
    words = re.findall(r"\w+", target.casefold())[:60]
    body = set(re.findall(r"\w+", got.casefold()))
    return bool(words) and sum(w in body for w in words) / len(words) > threshold
