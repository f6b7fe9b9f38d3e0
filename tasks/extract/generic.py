"""The generic extractor: trafilatura as a library, one page read with no rules at all.

The bottom of the page-level reading: tasks.extract.page_facts and tasks.extract.fallback
build on it, and tasks.learn.pseudo_feed makes training entries from it. It is slower than
the rules (a whole-page boilerplate analysis instead of one XPath per field).
"""
from __future__ import annotations

import copy
import html as htmllib

from tasks.fetch.html import block_text, parse_html, to_html
from tasks.text.similarity import normalize_text

MIN_CONTENT_CHARS = 40  # less than this is no article: the extractor found navigation


def _trafilatura(html: str, url: str | None):
    import trafilatura  # imported here: a worker that never falls back never loads it

    try:
        # include_comments: trafilatura then sets comments apart; without it they join the body
        return trafilatura.bare_extraction(html, url=url, with_metadata=True, include_comments=True,
                                           include_formatting=True, include_links=True,
                                           include_images=True, include_tables=True)
    except Exception:  # trafilatura on a hostile page: no content, never a failed crawl
        return None


def _body_html(doc) -> str | None:
    """trafilatura's XML body (p, head, list, ref, hi, lb ...) as HTML."""
    body = getattr(doc, "body", None)
    if body is None or not len(body):
        return None
    try:
        from trafilatura.htmlprocessing import convert_to_html

        tree = convert_to_html(copy.deepcopy(body))
        tree.tag = "div"
        return to_html(tree)
    except Exception:  # an internal helper changed: paragraphs of plain text will do
        text = getattr(doc, "text", "") or ""
        return "<div>" + "".join(f"<p>{htmllib.escape(p)}</p>" for p in text.split("\n") if p.strip()) + "</div>"


LOOSE_CHARS = 200  # text loose in one element (between <br>s, no <p>) that trafilatura must not miss
_INLINE = frozenset("a abbr b bdi big cite code em font i img kbd mark q s small span strike strong sub sup time tt u".split())


def _loose_runs(root) -> list[tuple]:
    """(element, its own text) of the elements holding LOOSE_CHARS or more of text of their own,
    between line breaks and inline tags (no paragraph element): an old blog's post body (a
    `div` of text and `<br>`s)."""
    out = []
    for el in root.iter("div", "td", "th", "section", "article", "main", "center", "blockquote", "dd", "body"):
        own = " ".join([el.text or ""] + [((k.text or "") if isinstance(k.tag, str) and k.tag in _INLINE else "")
                                          + " " + (k.tail or "") for k in el])
        own = normalize_text(own)
        if len(own) >= LOOSE_CHARS:
            out.append((el, own))
    return out


_LAYOUT_BLOCKS = "div p table ul ol h1 h2 h3 h4 h5 h6 blockquote".split()


def _densest(root) -> str:
    """The text of the element saying the most itself (its loose text and its paragraphs'): where a
    post's body is, on a page of one post."""
    best = ""
    for el in root.iter("div", "td", "th", "section", "article", "main", "center", "blockquote", "dd", "body"):
        own = normalize_text(" ".join([el.text or ""] + [
            ("".join(k.itertext()) if isinstance(k.tag, str) and (k.tag in _INLINE or k.tag == "p") else "")
            + " " + (k.tail or "") for k in el]))
        if len(own) > len(best):
            best = own
    return best


def _unwrapped_tables(tree) -> None:
    """Layout tables (cells holding blocks: a page laid out in a table, Serendipity's `td#content`)
    made divisions, which trafilatura reads as a page's parts rather than as a table of data."""
    for table in tree.xpath("//table"):
        if any(True for cell in table.iter("td", "th") for _ in cell.iter(*_LAYOUT_BLOCKS)):
            for el in [table, *table.iter("tbody", "thead", "tfoot", "tr", "td", "th")]:
                el.tag = "div"
                for attr in ("colspan", "rowspan", "valign", "align", "width", "cellpadding", "cellspacing", "border"):
                    el.attrib.pop(attr, None)


def _paragraphed(root, runs: list):
    """A copy of the page whose loose runs are paragraphs, one per stretch between `<br>`s or block
    children, and whose layout tables are divisions: trafilatura reads paragraphs, and leaves text
    loose in a `div` out; it reads a page laid out in a table as one table (held-out
    blogaddict-de, Serendipity: it read the sidebar instead of the post)."""
    from lxml import etree

    tree = copy.deepcopy(root)
    paths = [root.getroottree().getpath(el) for el in runs]
    for path in paths:
        found = tree.xpath(path)
        if not found:
            continue
        el = found[0]
        kids, parts = list(el), []
        p = etree.Element("p")
        p.text = el.text

        def close():
            nonlocal p
            if (p.text or "").strip() or len(p):
                parts.append(p)
            p = etree.Element("p")

        for k in kids:
            tail, k.tail = k.tail, None
            if isinstance(k.tag, str) and k.tag == "br":
                close()
                p.text = tail
            elif isinstance(k.tag, str) and k.tag not in _INLINE:
                close()
                parts.append(k)
                p.text = tail
            else:
                p.append(k)
                k.tail = tail
        close()
        el.text = None
        for k in list(el):
            el.remove(k)
        el.extend(parts)
    _unwrapped_tables(tree)
    return tree


def page_content(html: str, url: str | None = None, root=None) -> dict:
    """{"content_html", "content_text", "title", "authors", "published"} as trafilatura
    reads the page (None where it found nothing); where it leaves out a run of loose text
    the page holds (no paragraphs: `<br>`s), as trafilatura reads the page with that run
    made paragraphs. `root`: the page already parsed (it is not parsed again)."""
    doc = _trafilatura(html, url)
    doc = _with_loose_text(html, url, doc, root)
    if doc is None:
        return {"content_html": None, "content_text": None, "title": None, "authors": [], "published": None}
    body = _body_html(doc)
    # its paragraphs and list items apart (tasks.fetch.html.block_text), as the rules' content reads
    text = block_text(parse_html(body)) if body else normalize_text(getattr(doc, "text", "") or "")
    if len(text) < MIN_CONTENT_CHARS:
        body, text = None, ""
    author = getattr(doc, "author", None) or ""
    authors = [a.strip() for a in author.split(";") if a.strip()]
    return {"content_html": body, "content_text": text or None, "title": getattr(doc, "title", None) or None,
            "authors": authors, "published": getattr(doc, "date", None) or None}


def _with_loose_text(html: str, url: str | None, doc, root=None):
    """trafilatura's reading of the page made paragraphed (`_paragraphed`), where the first reading
    holds under half of the text of the element saying the most (`_densest`) and the second
    holds it."""
    if root is None:
        try:
            root = parse_html(html)
        except Exception:
            return doc
    if root is None:
        return doc
    want = _densest(root)
    if len(want) < LOOSE_CHARS:
        return doc
    runs = _loose_runs(root)
    have = normalize_text(getattr(doc, "text", "") or "") if doc is not None else ""
    if _share_in(want, have) >= 0.5:
        return doc
    again = _trafilatura(to_html(_paragraphed(root, [el for el, _ in runs])), url)
    got = normalize_text(getattr(again, "text", "") or "") if again is not None else ""
    return again if _share_in(want, got) >= 0.5 else doc


def _share_in(text: str, within: str) -> float:
    """The share of `text`'s words that `within` holds."""
    words = text.split()
    if not words:
        return 1.0
    have = set(within.split())
    return sum(w in have for w in words) / len(words)
