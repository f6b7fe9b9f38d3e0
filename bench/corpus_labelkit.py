"""The labelling kit a corpus blog's build/label.py imports (copied into each blog's build/ as
labelkit.py when the corpus is rebuilt, docs/corpus-build.md): post pages read with lxml and
explicit XPaths, never from blogharvest's or trafilatura's output.

- `load` reads a page in the encoding a browser reads it in (`page_encoding`): lxml reads bytes
  that declare theirs only as HTML5's `<meta charset>` as Latin-1 (session 16: one blog's labels
  were mojibake);
- `norm` collapses whitespace and keeps every character as the page has it (no NFKC);
- `text(node)` reads the element's own text, never its tail (the text after the element,
  which belongs to its parent: a byline once read "Kirk on").
"""
from __future__ import annotations

import copy
import json
import re
from pathlib import Path

from lxml import html as lh


def page_encoding(data: bytes) -> str | None:
    """The encoding a browser reads the page in: the one its `<meta>` declares (gb2312 read as its
    superset, as browsers do), else UTF-8 where the bytes decode so; None: lxml's own guess."""
    declared = re.search(rb"""<meta[^>]*charset=["']?([\w-]+)""", data[:4096], re.I)
    encoding = declared.group(1).decode("ascii").lower() if declared else None
    encoding = {"gb2312": "gb18030", "gbk": "gb18030", "utf8": "utf-8"}.get(encoding, encoding)
    if encoding in (None, "utf-8"):
        try:
            data.decode("utf-8")
            return "utf-8"
        except UnicodeDecodeError:
            return None
    return encoding


def load(path: Path, encoding: str | None = None):
    """The page's tree, in `encoding` or the one it is in (`page_encoding`)."""
    data = path.read_bytes() or b"<html/>"
    encoding = encoding or page_encoding(data)
    if encoding:
        try:
            return lh.fromstring(data, parser=lh.HTMLParser(encoding=encoding))
        except LookupError:  # an encoding name lxml does not know
            pass
    return lh.fromstring(data)


BLOCKS = frozenset(("br", "p", "div", "li", "tr", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "pre",
                    "blockquote", "ul", "ol", "table", "section", "figure", "figcaption", "dd", "dt", "hr"))


def norm(s: str | None) -> str:
    """Whitespace collapsed; the characters kept as the page has them."""
    return re.sub(r"\s+", " ", s or "").strip()


def _settable(s: str) -> str:
    """s as lxml lets it be set again: a page's C0 control characters (which lxml reads but
    will not write back) are whitespace where they are separators, else left out."""
    return re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f]", lambda m: " " if m.group() >= "\x1c" else "", s)


def text(node, drop: str | None = None) -> str:
    """Whitespace-normalised text of node (never its tail); drop: an XPath (relative to
    node) of descendants to leave out."""
    if node is None:
        return ""
    if isinstance(node, str):
        return norm(node)
    n = copy.deepcopy(node)
    n.tail = None
    for bad in n.xpath(".//script|.//style|.//noscript|.//template"):
        bad.drop_tree()
    if drop:
        for bad in n.xpath(drop):
            if bad is n:
                continue
            bad.drop_tree()
    for el in n.iter():  # block elements: their words kept apart from their neighbours', as shown
        if isinstance(el.tag, str) and el.tag in BLOCKS:
            el.tail = (" " + _settable(el.tail)) if el.tail else " "
            if el.tag != "br":
                el.text = (" " + _settable(el.text)) if el.text else " "
    return norm(n.text_content())


def one(root, xpath: str):
    got = root.xpath(xpath)
    if len(got) != 1:
        raise ValueError(f"{xpath!r}: {len(got)} nodes")
    return got[0]


def first(root, xpath: str):
    got = root.xpath(xpath)
    return got[0] if got else None


def write(blog: Path, records: list[dict]) -> None:
    (blog / "posts.txt").write_text("".join(r["path"] + "\n" for r in records), encoding="utf-8")
    with open(blog / "truth.jsonl", "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
