"""Robust HTML parsing and the one definition of a node's text.

Blogs serve wrong charsets, broken markup and absurd nesting; rule learning and
extraction must see the same tree and the same text for the same bytes, so both go
through `parse_html` and `node_text`. Text is what lxml's text_content() gives (the
harness's truth is built that way), minus script/style/noscript/template, comments and
a frame's fallback markup, each text piece NFKC-normalised, whitespace folded.
"""
from __future__ import annotations

import copy

import json
import re
import threading

from lxml import etree
from lxml import html as lhtml

from tasks.fetch.charset import decode
from tasks.text.similarity import nfkc, normalize_text

DROP_TAGS = ("script", "style", "noscript", "template")
_XML_DECL = re.compile(r"^\s*<\?xml[^>]*\?>", re.I)
_JSON_LD = re.compile(r"""<script[^>]*type\s*=\s*["']?application/ld\+json[^>]*>(.*?)</script>""",
                      re.I | re.S)


_LOCAL = threading.local()  # lxml parsers must not be shared between threads
_MAX_DEPTH = 1500  # libxml2 stops reading a document at depth 2048, even with huge_tree
_SURROGATE = re.compile("[\ud800-\udfff]")
_TAG = re.compile(r"<(/?)([A-Za-z][\w:.-]*)[^>]*>")
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
         "source", "track", "wbr", "p", "li", "option"}


def _parser(encoding: str | None = None):
    key = f"parser_{encoding}"
    p = getattr(_LOCAL, key, None)
    if p is None:
        # plain lxml elements: lxml.html's element classes cost a Python call per node touched;
        # no table of ids (nothing here looks elements up by id; libxml2 hashes every id and
        # <a name> otherwise, a twentieth of the parse)
        p = etree.HTMLParser(recover=True, huge_tree=True, remove_comments=True, remove_pis=True,
                             default_doctype=False, collect_ids=False, encoding=encoding)
        setattr(_LOCAL, key, p)
    return p


def _payload(text: str):
    """(what to hand libxml2, the parser for it): the text as UTF-8 bytes, which libxml2
    reads as they are. lxml would hand a str over as Latin-1, UTF-16 or UCS-4 for libxml2
    to convert first (a twentieth to a tenth slower), and libxml2 drops everything after a
    lone surrogate (JSON can carry one), which becomes U+FFFD here."""
    try:
        return text.encode("utf-8"), _parser("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text).encode("utf-8"), _parser("utf-8")


def _flatten_deep(text: str, limit: int = _MAX_DEPTH) -> str:
    """Drop the opening tags nested deeper than `limit` (by a naive count), so a page
    with thousands of unclosed tags keeps its text and everything after it. Stray
    closing tags that this leaves are ignored by the parser."""
    out, depth, last = [], 0, 0
    for m in _TAG.finditer(text):
        name = m.group(2).lower()
        if name in _VOID or m.group(0).endswith("/>"):
            continue
        if m.group(1):
            depth = max(0, depth - 1)
        elif depth >= limit:
            out.append(text[last:m.start()])
            last = m.end()
        else:
            depth += 1
    out.append(text[last:])
    return "".join(out)


def _empty():
    return lhtml.document_fromstring("<html><head></head><body></body></html>", parser=_parser())


def parse_html(data: bytes | str | None, url: str | None = None, encoding: str | None = None):
    """Parse a page into an lxml root element; never raises on bad input.

    script/style/noscript/template elements (their tails kept) and comments are gone,
    so every text the rules see is visible text. `url` becomes the document's base URL.
    """
    if data is None:
        return _empty()
    text = decode(bytes(data), encoding) if isinstance(data, (bytes, bytearray)) else str(data)
    if m := _XML_DECL.match(text):
        text = text[m.end():]
    if "\x00" in text:
        text = text.replace("\x00", "")
    if not text or text.isspace():
        return _empty()
    payload, parser = _payload(text)
    try:
        root = lhtml.document_fromstring(payload, parser=parser, base_url=url)
        if any(e.type_name == "ERR_RESOURCE_LIMIT" for e in parser.error_log):
            payload, parser = _payload(_flatten_deep(text))
            root = lhtml.document_fromstring(payload, parser=parser, base_url=url)
    except (etree.ParserError, ValueError):
        try:
            root = lhtml.fragment_fromstring(text, create_parent="body", parser=_parser())
            root = root.getroottree().getroot()
        except (etree.ParserError, ValueError):
            return _empty()
    if root is None:
        return _empty()
    _keep_json_ld(root)
    etree.strip_elements(root, *DROP_TAGS, etree.Comment, etree.ProcessingInstruction, with_tail=False)
    for frame in root.iter("iframe"):  # what a frame holds is for browsers without frames: never shown
        frame.text = None
        for kid in list(frame):
            frame.remove(kid)
    return root


JSON_LD_REL = "bh:json-ld"  # <link rel=... data-json=...> in <head>: the page's JSON-LD, kept off the text


def _keep_json_ld(root) -> None:
    """Copy each JSON-LD block into an empty <link> in <head> (scripts are dropped, yet
    tasks.extract.metadata reads JSON-LD from the parsed tree; no text, no rule sees it)."""
    scripts = [s for s in root.iter("script") if "ld+json" in (s.get("type") or "").lower()]
    if not scripts:
        return
    head = root.find("head")
    parent = head if head is not None else root
    for s in scripts:
        if s.text and s.text.strip():
            try:
                parent.insert(0, etree.Element("link", {"rel": JSON_LD_REL, "data-json": s.text.strip()}))
            except ValueError:  # characters XML attributes cannot hold
                continue


def node_text(node) -> str:
    """The normalised text of an element (or of an attribute/text string)."""
    if node is None:
        return ""
    if isinstance(node, str):
        return normalize_text(node)
    if not isinstance(node.tag, str):  # comment or PI
        return ""
    # libxml2 joins the text pieces and folds runs of space, tab, CR, LF in C; what that
    # leaves to fold goes through split() after all: spaces NFKC made (only where it
    # changed the text), and the whitespace that NFKC keeps and libxml2 does not fold
    folded = _STRING_VALUE(node)
    s = nfkc(folded)
    if (s is not folded and ("  " in s or s[:1] == " " or s[-1:] == " ")) or _odd_space(s):
        s = " ".join(s.split())
    return s


def _odd_space(s: str) -> bool:
    """Does `s` hold whitespace of str.split() that NFKC keeps and normalize-space does not
    fold? (Ten characters; a membership test each is a memchr, isprintable() a table
    lookup per character, five times slower on a post; written out, not a loop over them,
    which costs as much as the tests on a title.)"""
    return ("\x0b" in s or "\x0c" in s or "\x1c" in s or "\x1d" in s or "\x1e" in s or "\x1f" in s
            or "\x85" in s or "\u1680" in s or "\u2028" in s or "\u2029" in s)


_STRING_VALUE = etree.XPath("normalize-space(.)", smart_strings=False, regexp=False)


_BLOCKS = frozenset("address article aside blockquote br dd details div dl dt figcaption figure footer h1 h2 h3 h4 "
                    "h5 h6 header hr li main nav ol p pre section summary table td th tr ul".split())


def block_text(node) -> str:
    """The normalised text of an element read as a page shows it: its blocks (paragraphs, list
    items, cells, line breaks) apart, where `node_text` joins the text of markup written without
    whitespace between them (minified pages: `<li>One</li><li>Two</li>` reads "One Two", not
    "OneTwo")."""
    if node is None or isinstance(node, str) or not isinstance(node.tag, str):
        return node_text(node)
    parts: list[str] = []
    hidden = None  # a formula's copy for screen readers being walked: its text is not shown
    for event, el in etree.iterwalk(node, events=("start", "end")):
        tag = el.tag if isinstance(el.tag, str) else ""
        if hidden is not None:
            if el is hidden and event == "end":
                hidden = None
                if el.tail:
                    parts.append(el.tail)
            continue
        if event == "start":
            if tag in _FORMULA_COPY and _formula_copy(el, node):
                hidden = el
                continue
            if tag in _BLOCKS:
                parts.append(" ")
            if el.text and isinstance(el.tag, str):
                parts.append(el.text)
        else:
            if tag in _BLOCKS:
                parts.append(" ")
            if el.tail and el is not node:
                parts.append(el.tail)
    return normalize_text("".join(parts))


_FORMULA_COPY = frozenset(("math", "annotation", "annotation-xml"))


def _formula_copy(el, top) -> bool:
    """Is `el` a formula's text a page does not show? A MathML annotation (the formula's TeX
    source) never is shown; a MathML copy beside the formula's drawing that is hidden from
    screen readers (KaTeX, MathJax: `aria-hidden="true"`) is the readers' copy, shown by none:
    read both and every formula comes out two or three times ("FSTF_{ST}FST")."""
    if el.tag != "math":
        return True
    for at in (el, el.getparent()):
        if at is None or at is top:
            break
        for sib in (*at.itersiblings(preceding=True), *at.itersiblings()):
            if isinstance(sib.tag, str) and sib.get("aria-hidden") == "true":
                return True
    return False


def to_html(node) -> str:
    """Serialise an element (without its tail) or pass a string through."""
    if node is None:
        return ""
    if isinstance(node, str):
        return str(node)
    return etree.tostring(node, encoding="unicode", with_tail=False, method="html")


def html_to_text(data: str | bytes | None) -> str:
    """Normalised text of an HTML fragment or document (feed content, summaries)."""
    if not data:
        return ""
    if isinstance(data, str) and "<" not in data and "&" not in data:
        return normalize_text(data)
    root = parse_html(data)
    body = root.find("body")
    return node_text(body if body is not None else root)


def html_block_text(data: str | bytes | None) -> str:
    """`html_to_text` with the fragment's blocks apart (`block_text`): the text a post's content
    reads as, to compare with the content text the rules and the page-level extractor give."""
    if not data:
        return ""
    root = parse_html(data)
    body = root.find("body")
    return block_text(body if body is not None else root)


def json_ld(text: str | bytes | None) -> list:
    """The JSON-LD objects of a page (script type=application/ld+json), flattened
    through @graph; unparseable blocks are skipped."""
    if not text:
        return []
    if isinstance(text, (bytes, bytearray)):
        text = decode(bytes(text))
    out = []
    for block in _JSON_LD.findall(text):
        try:
            obj = json.loads(block.strip())
        except ValueError:
            continue
        out += flatten_json_ld(obj)
    return out


def flatten_json_ld(obj) -> list[dict]:
    """The objects of one JSON-LD document: lists unrolled, @graph members after their owner."""
    out, stack = [], [obj]
    while stack:
        o = stack.pop(0)
        if isinstance(o, list):
            stack[:0] = o
        elif isinstance(o, dict):
            out.append(o)
            if isinstance(o.get("@graph"), list):
                stack.extend(o["@graph"])
    return out


def drop_keeping_tail(el) -> None:
    """Remove `el` from its parent, the text after it (its tail) kept in its place."""
    parent = el.getparent()
    if parent is None:
        return
    if el.tail:
        prev = el.getprevious()
        if prev is not None:
            prev.tail = (prev.tail or "") + el.tail
        else:
            parent.text = (parent.text or "") + el.tail
    parent.remove(el)


def without_elements(node, find, wanted):
    """A copy of `node` without the elements `find(node)` lists that `wanted(el)` accepts (found
    again on the copy by their places in `find`'s list); `node` itself where none is accepted,
    or where the copy would hold no text."""
    cut = [i for i, el in enumerate(find(node)) if wanted(el)]
    if not cut:
        return node
    out = copy.deepcopy(node)
    found = find(out)
    for i in cut:
        drop_keeping_tail(found[i])
    return out if "".join(out.itertext()).strip() else node
