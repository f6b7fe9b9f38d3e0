"""Does a page need a browser? Its feed entry's text missing from the page as served, or
comments that a script loads (a named widget, a load-more control): the --js auto decisions,
made on markup alone, without starting Chromium."""
from __future__ import annotations

import re

from tasks.fetch.browser import DEFAULT_LOAD_MORE
from tasks.fetch.html import html_to_text, node_text, parse_html
from tasks.text.similarity import normalize_text

__all__ = ["needs_js", "has_script_comments", "script_comment_widgets", "widget_markers", "page_words",
           "content_signs", "entry_text", "has_scripts", "speaks_of_comments", "COMMENT_WORDS"]

_SHINGLE = 3
# words that name comments, threads, replies (en, fr, es, de ...), in ids, classes and text
COMMENT_WORDS = r"comment|commentaire|comentario|kommentar|reacti|réponse|respuesta|antwort|repl|discussion|thread|talk|respon"
_COMMENTS = re.compile(COMMENT_WORDS, re.I)
_SCRIPT = re.compile(r"<script\b([^>]*)>", re.I)
_DATA_TYPE = re.compile(r"""\btype\s*=\s*["']?(?:application/(?:ld\+)?json|text/(?:template|x-template|html|plain))""", re.I)
PRESENT = 0.5  # share of the feed text's word triples a page must show to "have" it


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", normalize_text(text).lower())


def _coverage(needle: str, hay_words: list[str]) -> float:
    """Share of the word triples of `needle` found in the page's words (containment, not
    similarity: a page is much longer than a post, and a summary is only its start)."""
    words = _words(needle)
    if not words:
        return 0.0
    if len(words) < _SHINGLE:
        hay = " " + " ".join(hay_words) + " "
        return 1.0 if " " + " ".join(words) + " " in hay else 0.0
    have = {tuple(hay_words[i:i + _SHINGLE]) for i in range(len(hay_words) - _SHINGLE + 1)}
    mine = [tuple(words[i:i + _SHINGLE]) for i in range(len(words) - _SHINGLE + 1)]
    return sum(1 for m in mine if m in have) / len(mine)


def _entry_text(entry: dict) -> str:
    for key in ("content_html", "summary_html", "content", "summary"):
        value = (entry or {}).get(key)
        if value:
            text = html_to_text(value)
            if text:
                return text
    return normalize_text((entry or {}).get("content_text") or "")


def has_scripts(raw: str) -> bool:
    """Whether the markup holds a script that runs (a JSON or template block is data): a page
    without one has nothing drawn by script."""
    return any(not _DATA_TYPE.search(attrs) for attrs in _SCRIPT.findall(raw or ""))


def speaks_of_comments(text: str) -> bool:
    """Whether a text names comments, threads, replies (COMMENT_WORDS)."""
    return bool(_COMMENTS.search(text or ""))


def entry_text(entry: dict) -> str:
    """The text a feed entry gives of its post (content, else summary), or ""."""
    return _entry_text(entry)


FEW_WORDS = 40  # a page showing fewer words than this has little but its template
_NOSCRIPT = re.compile(r"<noscript\b[^>]*>(.*?)</noscript>", re.I | re.S)
_CONTENT_NAMES = re.compile(r"(?:^|[\s_-])(?:app|root|main|content|post|article|entry|page|story)(?:$|[\s_-])", re.I)
_HOLDERS = ("main", "article", "div", "section")


def content_signs(raw_html: str | bytes) -> list[str]:
    """Signs in a page as served that a script draws its content (no feed text to look for):
    a <noscript> that asks for JavaScript (not for comments), a content container (main, article, or an element
    named app/root/content/post/entry ...) with no text, a page that shows almost no words.
    A page without a script that runs gives none."""
    if not raw_html:
        return []
    text = raw_html.decode("utf-8", "replace") if isinstance(raw_html, (bytes, bytearray)) else raw_html
    if not has_scripts(text):
        return []
    out = []
    for inner in _NOSCRIPT.findall(text):
        said = " ".join(re.sub(r"<[^>]+>", " ", inner).split())
        if re.search(r"java\s*script|\bJS\b", said, re.I) and not speaks_of_comments(said):  # not a widget's
            out.append(f"<noscript> asks for JavaScript: {said[:60]!r}")
            break
    root = parse_html(text)
    for el in root.iter(*_HOLDERS):
        named = el.tag in ("main", "article") or _CONTENT_NAMES.search(f"{el.get('id') or ''} {el.get('class') or ''}")
        if named and len(_words(node_text(el))) < 3 and el.find(".//img") is None:
            out.append(f"empty content container <{el.tag} {(el.get('id') or el.get('class') or '').strip()}>")
            break
    words = len(_words(node_text(root)))
    if words < FEW_WORDS:
        out.append(f"the page shows {words} words")
    return out


def page_words(html) -> list[str]:
    return _words(node_text(parse_html(html))) if html else []


def needs_js(raw_html: str | bytes, feed_entry: dict, rendered_html: str | None = None) -> bool:
    """True when the entry's content (or summary) is missing from the page's text as
    served but present once rendered: the blog needs a browser (--js auto).

    Without `rendered_html` it answers whether rendering is worth trying (the text is
    missing as served). An entry without any text decides nothing: False.
    """
    text = _entry_text(feed_entry)
    if not text:
        return False
    raw = _coverage(text, page_words(raw_html))
    if raw >= PRESENT:
        return False
    if rendered_html is None:
        return True
    return _coverage(text, page_words(rendered_html)) >= PRESENT


# markers of comment systems that load by script, matched on the raw markup
_WIDGETS: tuple[tuple[str, re.Pattern], ...] = tuple((name, re.compile(rx, re.I)) for name, rx in (
    ("disqus", r"""id\s*=\s*["']?disqus_thread|disqus\.com/(?:embed|count)\.js|\bdisqus_(?:shortname|config|identifier)\b|disqus\.com/embed/comments"""),
    ("facebook", r"""class\s*=\s*["'][^"']*\bfb-comments\b|facebook\.com/(?:v[\d.]+/)?plugins/comments|<fb:comments\b"""),
    ("livefyre", r"""livefyre\.com|\blivefyre-comments\b|id\s*=\s*["']?livefyre"""),
    ("intensedebate", r"""intensedebate\.com/js|id\s*=\s*["']?idc-container"""),
    ("commento", r"""id\s*=\s*["']?commento\b|commento\.io/js|/js/commento\.js"""),
    ("hyvor", r"""talk\.hyvor\.com|<hyvor-talk-comments\b"""),
    ("utterances", r"""utteranc\.es/client\.js"""),
    ("giscus", r"""giscus\.app/client\.js"""),
    ("remark42", r"""remark42|\bremark_config\b"""),
    ("cusdis", r"""cusdis\.com/js|id\s*=\s*["']?cusdis_thread"""),
    ("graphcomment", r"""graphcomment\.com/js|id\s*=\s*["']?graphcomment"""),
    ("hypercomments", r"""hypercomments\.com|\b_hcwp\b"""),
    ("data-comments", r"""\bdata-comments?-(?:src|url|source|endpoint|api)\s*="""),
))


_HIDDEN_CLASS = re.compile(r"(?:^|\s)(?:loaded|hidden|hide|d-none|is-hidden|exhausted)(?:\s|$)", re.I)
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)


def _hidden_in_markup(el, depth: int = 3) -> bool:
    """A button its markup already hides or marks as spent (Blogger's `loadmore loaded`
    container when every comment is in the page), up to `depth` ancestors up."""
    node = el
    for _ in range(depth + 1):
        if node is None or not isinstance(node.tag, str):
            break
        if node.get("hidden") is not None or _HIDDEN_CLASS.search(node.get("class") or "") \
                or _HIDDEN_STYLE.search(node.get("style") or ""):
            return True
        node = node.getparent()
    return False


def _load_more_comments(root) -> bool:
    """A "load more" button of the known kinds that is about comments (its text, or an
    id/class of it or an ancestor, says so)."""
    from lxml.cssselect import CSSSelector
    from lxml.cssselect import SelectorError

    for sel in DEFAULT_LOAD_MORE:
        try:
            found = CSSSelector(sel)(root)
        except SelectorError:
            continue
        for el in found:
            if _hidden_in_markup(el):
                continue
            if re.search(r"comment|repl|discussion|thread", node_text(el), re.I):
                return True
            node = el
            for _ in range(8):
                if node is None:
                    break
                marks = f"{node.get('id') or ''} {node.get('class') or ''}"
                if re.search(r"comment|discussion|respon", marks, re.I):
                    return True
                node = node.getparent()
    return False


def widget_markers(raw_html: str | bytes) -> list[str]:
    """Names of the script-loaded comment systems whose markers the raw markup holds (the
    marker list alone, no parse: cheap enough for every post page)."""
    if not raw_html:
        return []
    text = raw_html.decode("utf-8", "replace") if isinstance(raw_html, (bytes, bytearray)) else raw_html
    return [name for name, rx in _WIDGETS if rx.search(text)]


def script_comment_widgets(raw_html: str | bytes) -> list[str]:
    """Names of the script-loaded comment systems found in a page's raw markup."""
    if not raw_html:
        return []
    text = raw_html.decode("utf-8", "replace") if isinstance(raw_html, (bytes, bytearray)) else raw_html
    found = widget_markers(text)
    if _load_more_comments(parse_html(text)):
        found.append("load-more")
    return found


def has_script_comments(raw_html: str | bytes) -> bool:
    """True when the page's comments (some or all) are loaded by script: Disqus,
    Facebook, LiveFyre and the like, data-comments-src endpoints, or a "load more
    comments" button. Such a post is rendered before its comments are extracted."""
    return bool(script_comment_widgets(raw_html))
