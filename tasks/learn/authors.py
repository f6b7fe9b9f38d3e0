"""Author names for rule learning: how feeds and pages print them, which read as a person's,
and which names a page's author rule is learned for.

A feed-level author is often the site's name or tagline, and some feeds name nobody: the
page's own metadata (meta author, rel=author, itemprop, JSON-LD, .author/.byline) then
names the author the rule is learned for (tasks.learn.fields).
"""
from __future__ import annotations

import html
import re

from lxml import etree

from tasks.extract.metadata import site_names
from tasks.fetch.html import json_ld, node_text
from tasks.learn.rules import apply_rule
from tasks.text.dates import parse_date
from tasks.text.similarity import normalize_text

_BY = re.compile(r"^(?:(?:posted|written|published|authored)\s+)?(?:by|par|von|por|di|door|author|"
                 r"auteur|autor|written by)\s*[:\-–—]?\s+", re.I)
_EMAIL = re.compile(r"\S+@\S+")
DAY_WORDS = 6  # words of a day and its time ("March 26, 2005 04:07 PM")
_THEN_DAY = re.compile(r"\s+(?:at|on|am|um|le|el|il|op|em|den|dnia|в)\s+(?=\S)", re.I)  # "Ross at March 26, 2005"
_EMPTY_PARENS = re.compile(r"\(\s*\)")
_OUTER_PARENS = re.compile(r"^\(|\)$")
_PARTICLES = {"van", "von", "de", "der", "den", "da", "di", "du", "del", "della", "la", "le", "bin", "ibn",
              "al", "el", "y", "e", "and", "&", "und", "et"}
_PAGE_AUTHOR_PROBES = (
    "//meta[@name='author']/@content", "//meta[@property='author']/@content",
    "//meta[@name='article:author']/@content", "//meta[@property='article:author']/@content",
    "//meta[@name='dc.creator' or @name='DC.creator']/@content",
    "//*[@rel='author']", "//*[@itemprop='author']//*[@itemprop='name']",
    "//*[@itemprop='author']",
    "//*[contains(concat(' ', normalize-space(@class), ' '), ' author ')]",
    "//*[contains(concat(' ', normalize-space(@class), ' '), ' byline ')]",
    "//*[contains(concat(' ', normalize-space(@class), ' '), ' vcard ')]",
    "//*[contains(concat(' ', normalize-space(@class), ' '), ' fn ')]")  # fn in vcard


def clean_author(name: str | None) -> str:
    """A person's name as feeds and pages print it, without e-mail or "By"; character references a
    feed left escaped in it (WordPress's `<dc:creator><![CDATA[A &#124; B]]>`) read."""
    s = normalize_text(html.unescape(name) if name and "&" in name else name)
    if "@" in s:
        s = _EMAIL.sub("", s)
    if "(" in s or ")" in s:
        s = _OUTER_PARENS.sub("", _EMPTY_PARENS.sub("", s).strip())
    s = _BY.sub("", s.strip())
    s = s.split(" | ")[0]  # "Seth Zenz | USLHC | USA": the name, not its affiliations
    return _before_day(s).strip(" ,;|-–—:")


def _before_day(s: str) -> str:
    """"Ross at March 26, 2005 04:07 PM" (Movable Type's "Posted by X at DATE"): the name, not the
    day the byline goes on to print."""
    if not any(c.isdigit() for c in s):
        return s
    for m in _THEN_DAY.finditer(s):
        rest = s[m.end():]  # the day and its time, nothing more ("on March 3 by Jane Doe" is no name's end)
        if len(rest.split()) <= DAY_WORDS and any(c.isdigit() for c in rest) and parse_date(rest, slow=False):
            return s[:m.start()]
    return s


def plausible_name(s: str) -> bool:
    """Short, lettered, no URL or @handle: could be a name at all."""
    return bool(s) and len(s) <= 80 and len(s.split()) <= 6 and "://" not in s \
        and not s.startswith("@") and any(c.isalpha() for c in s)


def person_like(name: str) -> bool:
    """Does this read as a person's (or a login's) name rather than a tagline or a site title?
    One word passes (logins are names too); longer ones need capitalised words but for
    particles (van, de, bin) and no dotted words ("Ember.js")."""
    words = name.split()
    if not plausible_name(name) or len(words) > 5:
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


def _ld_author_names(raw):
    """The author names the page's JSON-LD objects give, cleaned, in order (lazily)."""
    for obj in json_ld(raw):
        a = obj.get("author")
        for x in (a if isinstance(a, list) else [a]):
            yield clean_author(x.get("name") if isinstance(x, dict) else x if isinstance(x, str) else "")


# "Posted by patton at August 10, 2002", "Od veronika v 2006-06-04", "par Jean, le 3 mars": a label word,
# the name, then what ends it (a preposition or "kl." before the time, punctuation, a digit, the end)
_BYLINE = re.compile(r"(?:^|\s)(?:by|par|von|por|di|door|od|av|af|przez|от|автор:?)\s+"
                     r"([^\d\s,;|·•—–@:()][^\d,;|·•—–@:()]{0,60}?)"
                     r"(?=\s+(?:at|on|am|le|el|il|v|ve|in|om|den|um|às|a las|à|в|kl|klo)\b|\s*[,;|·•—–(:]|\s*\d|\s*$)",
                     re.I)
# "Author: X" as a label and its value, in the languages blogs are written in ("文章作者: X")
_AUTHOR_LABEL = re.compile(r"(?:(?:^|\s)(?:author|written by|autor|auteur|autore|författare|forfatter|"
                           r"tekijä|szerző|yazar|penulis|tác giả|автор)|作者|著者|筆者|作成者|작성자|글쓴이)\s*[:：]\s*"
                           r"([^\d\s,;|·•—–@:：()][^\d,;|·•—–@:：()]{0,60}?)(?=\s*[,;|·•—–(]|\s*\d|\s*$)", re.I)
_COMMENTISH = re.compile(r"comment|reply|respond|discussion", re.I)
# the site's credits, not a post's byline: "Powered by Hugo", "Theme by ...", a footer
_CREDITS = re.compile(r"(?:powered|theme|design(?:ed)?|built|made|hosted|generated|photo|image)\s+(?:by|von|par|por)\b",
                      re.I)
_FOOTERISH = re.compile(r"footer|credit|colophon|site-info|copyright|powered", re.I)
# a post's own footer ("post-footer", "entry-footer"): where its byline is printed
_POST_PART = re.compile(r"post|entry|article|byline", re.I)
MAX_BYLINE_CHARS = 160  # a byline is a short line, not a paragraph that says "by"
_BYLINE_TAGS = ("span", "div", "p", "small", "footer", "header", "li", "td", "em", "address")
RAW_LINE_CHARS = 8 * MAX_BYLINE_CHARS  # its text before whitespace is collapsed (an indented footer)


def _in_comment_block(node) -> bool:
    """Does the element lie in a comment block (its class or id says so; the page's body aside)?"""
    if isinstance(node, str) or not hasattr(node, "iterancestors"):
        return False
    return any(_COMMENTISH.search(f"{a.get('class') or ''} {a.get('id') or ''}")
               for a in (node, *node.iterancestors()) if a.tag not in ("body", "html"))


def byline_authors(root) -> list[str]:
    """The name a post's own byline prints ("Posted by X at DATE"), outside the comments: the first
    short line that reads so, in document order."""
    texts = _short_texts(root, RAW_LINE_CHARS)
    seen: dict = {}

    def line(el):  # (its line, the byline's match) or None, each element read once
        if el not in seen:
            raw = texts.get(el)
            text = normalize_text(raw) if raw is not None else ""
            if raw is None or len(text) > MAX_BYLINE_CHARS:  # a post's footer: the byline its first line ("Geschrieben
                text = _first_line(el)        # von X in Y um 08:08 | Kommentare (3)", tags and related posts below it)
            m = (_BYLINE.search(text) or _AUTHOR_LABEL.search(text)) if text and len(text) <= MAX_BYLINE_CHARS else None
            seen[el] = (text, m) if m else None
        return seen[el]

    for el in root.iter(*_BYLINE_TAGS):
        if not (got := line(el)):
            continue
        text, m = got
        # a card whose first line is the byline and whose next are its links ("Written by X" over
        # "twitter github"): its text runs them together; the line's own element reads the name
        if any(line(d) for d in el.iterdescendants(*_BYLINE_TAGS)):
            continue
        if _CREDITS.search(text) or any(
                a.tag == "footer" or _COMMENTISH.search(marks := (a.get("class") or "") + " " + (a.get("id") or ""))
                or (_FOOTERISH.search(marks) and not _POST_PART.search(marks)) for a in (el, *el.iterancestors())):
            continue
        name = clean_author(m.group(1))
        if person_like(name):
            return [name]
    return []


_LINE_ENDS = frozenset("br div p ul ol dl table blockquote pre h1 h2 h3 h4 h5 h6 hr form section article".split())


def _first_line(el) -> str:
    """The text an element begins with, up to its first line break or block child."""
    parts = [el.text or ""]
    for kid in el:
        if isinstance(kid.tag, str) and kid.tag in _LINE_ENDS:
            break
        if isinstance(kid.tag, str):
            parts.append("".join(kid.itertext()))
        parts.append(kid.tail or "")
    return normalize_text("".join(parts))


_COPYRIGHT = re.compile(r"(?:©|\(c\)|copyright)\s*(?:(?:19|20)\d\d\s*(?:[-–]\s*(?:(?:19|20)\d\d|present))?\s*)?"
                        r"(?:by\s+)?([^\d|,;·•—–@()©.]{2,60}?)(?=\s*(?:[|,;·•—–.(]|\d|$|all rights|tous droits))",
                        re.I)


# an organisation or a site, not a person: "The ... Group", "Acme Inc", "Foo Blog", "Bar Team"
_BODY_WORDS = re.compile(r"^(?:the|le|la|les|der|die|das|el|los)\s|\b(?:inc|ltd|llc|gmbh|group|media|team|blog|press|"
                         r"company|corp|foundation|project|news|studio|labs?)\b", re.I)


def _short_texts(root, cap: int) -> dict:
    """element -> its text (as itertext joins it), for the elements whose text is `cap`
    characters at most, from one walk up the tree: each element's own text is never walked
    again for its ancestors (an element's itertext each is quadratic on a deep page)."""
    out: dict = {}
    for _, el in etree.iterwalk(root, events=("end",)):
        if not isinstance(el.tag, str):
            continue
        parts, n = [el.text or ""], len(el.text or "")
        for ch in el:
            if n > cap:
                break
            t = out.get(ch) if isinstance(ch.tag, str) else ""
            if t is None:  # (a child over the cap: so is this element)
                n = cap + 1
                break
            parts += [t, ch.tail or ""]
            n += len(t) + len(ch.tail or "")
        if n <= cap:
            out[el] = "".join(parts)
    return out


def copyright_holder(root) -> list[str]:
    """The person a page's copyright line names ("© Romain Vimont |"): on a personal blog, its
    author. The last sign, after the metadata and the byline."""
    site = site_names(root)
    texts = _short_texts(root, RAW_LINE_CHARS)
    for el in root.iter("footer", "p", "div", "span", "small", "li"):
        raw = texts.get(el)
        text = normalize_text(raw) if raw is not None else None
        if not text or len(text) > MAX_BYLINE_CHARS or not (m := _COPYRIGHT.search(text)):
            continue
        name = clean_author(m.group(1))
        if name.count(" ") >= 1 and person_like(name) and name.casefold() not in site and not _BODY_WORDS.search(name):
            return [name]
    return []


def page_authors(root, raw=None) -> list[str]:
    """Author names that the page's own metadata gives (for feeds without authors), else its
    byline."""
    for p in _PAGE_AUTHOR_PROBES:
        for r in apply_rule(root, p):
            if _in_comment_block(r):  # a commenter's name is no author
                continue
            name = clean_author(node_text(r))
            if plausible_name(name):
                return (p.startswith("//meta") and shown_instead(root, name)) or [name]
    return (next(([name] for name in _ld_author_names(raw) if plausible_name(name)), None) or byline_authors(root)
            or copyright_holder(root))


# an element the theme marks as the post's author ("post-author", "author-name", "entry-author")
_AUTHOR_MARKED = "//body//*[contains(@class, 'author')]"
AUTHOR_MARK = re.compile(r"(?:^|[\s_-])author(?:$|[\s_-])", re.I)


def author_marked(el, levels: int = 2) -> bool:
    """Does the element, or one of its `levels` nearest ancestors, say it holds the post's
    author (rel="author", itemprop="author", an "author" class; a commenter's never)?"""
    for x in (el, *list(el.iterancestors())[:levels]):
        marks = " ".join(x.get(a) or "" for a in ("class", "rel", "itemprop"))
        if _COMMENTISH.search(marks):
            return False
        if AUTHOR_MARK.search(marks):
            return True
    return False


def shown_instead(root, meta_name: str) -> list[str] | None:
    """The name the page shows where its metadata names someone it does not show: the element
    its theme marks as the author's holds another spelling (a transliteration, a display name
    over a login): a record says what a reader sees. None where the page shows the metadata's
    name, or marks no other."""
    body = root.find(".//body")
    if body is None or contains_name(node_text(body), meta_name):
        return None
    for el in root.xpath(_AUTHOR_MARKED):
        if not AUTHOR_MARK.search(el.get("class") or "") or _in_comment_block(el):
            continue
        name = clean_author(node_text(el))
        if person_like(name) and name.casefold() != meta_name.casefold():
            return [name]
    return None


def contains_name(text: str, name: str) -> bool:
    """Does `text` hold the words of `name` in a row (case and punctuation aside)?"""
    f = lambda s: re.sub(r"[^\w]+", " ", s.casefold()).split()
    t, n = f(text), f(name)
    if not n:
        return False
    k = len(n)
    return any(t[j:j + k] == n for j in range(len(t) - k + 1))


def _feed_names(names, site: set) -> list[str]:
    """The feed entry's author names, cleaned, without those that are the site's name."""
    cleaned = (clean_author(a) for a in names or [])
    return [a for a in cleaned if a and a.casefold() not in site]


def target_authors(root, html, target: dict) -> tuple[list[str], str]:
    """The names a page's author rule is learned for, and where they come from ("feed" or
    "page"): the feed entry's, unless they were a feed-level author (often the site's name
    or tagline) or do not read as persons and the page's own metadata names someone else;
    the page's metadata too where the feed names nobody."""
    site = site_names(root)  # a feed-level or meta author that is the site's name is no author
    from_feed = bool(target.get("authors_from_feed"))
    authors = _feed_names(target.get("authors"), site if from_feed else set())
    if from_feed or not all(person_like(a) for a in authors):
        named = [a for a in page_authors(root, html) if person_like(a) and a.casefold() not in site]
        if named and not (set(named) & set(authors)):
            return named, "page"
    if not authors:
        return [a for a in page_authors(root, html) if a.casefold() not in site], "page"
    return authors, "feed"
