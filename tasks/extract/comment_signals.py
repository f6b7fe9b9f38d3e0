"""What a post page as served says about comments a script would add, with no list of widgets.

--js auto renders a sample of a blog's posts only where the page as served shows signs that
a browser would see more (workers/fetch/rendering.py compares the two); these are the signs,
all read from the markup, none naming a platform:

- a count of comments shown ("12 comments", "3 Kommentare") above the comments found, where
  no link leads to a further page of them (a paginated thread needs no script);
- an empty comment container after the post (an element named for comments, threads or
  discussions, with no text; a form and its fields are no container);
- an empty element after the post that names an endpoint in a data attribute (data-src,
  data-url ...: where a script fetches what it fills the element with);
- a "load more" / "show comments" control (a button, or a link that goes nowhere);
- a frame named for comments; a <noscript> that speaks of comments.

Only a page with a script can have anything drawn by one: a page whose markup holds no
script (JSON data blocks are none) gives no sign at all, whatever it shows. Scripts and
frames alone, which most pages have, are no sign.

`more_controls` finds, in a rendered page, the controls that load more (their text says
so in the blog's language) as CSS selectors, so that the browser clicks them on every post
of that blog. Pure functions over HTML.
"""
from __future__ import annotations

import re

from tasks.fetch.html import node_text, parse_html
from tasks.fetch.js_need import COMMENT_WORDS as _COMMENT_WORDS, has_scripts
from tasks.extract.comment_count import shown_count
from tasks.learn.comment_blocks import learn_comment_blocks

__all__ = ["script_signals", "more_controls", "shown_count", "comment_area_words"]

_NAMED = re.compile(_COMMENT_WORDS, re.I)
_MORE = re.compile(r"(?<!\w)(more|plus|m[aá]s|mehr|weitere|altri|meer|mais|więcej|show|load|afficher|voir|cargar|"
                   r"mostrar|laden|anzeigen|older|previous|précédents|anteriores|ältere)(?!\w)", re.I)
_FRAME = re.compile(r"<iframe\b([^>]*)>", re.I)
_NOSCRIPT = re.compile(r"<noscript\b[^>]*>(.*?)</noscript>", re.I | re.S)
_FRAME_MARKS = re.compile(r"""\b(?:src|id|class|name|title|data-[\w-]+)\s*=\s*(["'])(.*?)\1""", re.I | re.S)
# where a form is, or what holds a field, the element is no container for comments
_NOT_CONTAINERS = {"a", "script", "style", "link", "meta", "textarea", "input", "select", "option", "button",
                   "label", "form", "img", "br", "hr", "svg", "source", "iframe", "noscript", "template", "time"}
_BLOCKS = {"div", "section", "aside", "article", "ol", "ul", "dl", "main", "footer", "header", "nav", "table",
           "tbody", "details"}
_ENDPOINT_ATTR = re.compile(r"^data-[\w-]*(?:src|url|source|endpoint|api|feed|href)$", re.I)
_MEDIA = re.compile(r"\.(?:png|jpe?g|gif|webp|avif|svg|ico|bmp|mp4|webm|mp3|ogg|css|woff2?)(?:[?#]|$)", re.I)
_PAGE_PARAM = re.compile(r"(?:^|[?&;])[\w-]*page[\w-]*=\d", re.I)
_MORE_WORD = re.compile(r"more|plus|m[aá]s|mehr|weitere|older|ältere", re.I)
_CONTROLS = "//button | //*[@role='button'] | //a[not(@href) or starts-with(@href, '#') or starts-with(@href, 'javascript')]"


_NOT_READ = {"form", "script", "style", "noscript", "template", "textarea", "button", "select", "label"}


def comment_area_words(root) -> int:
    """Words a reader sees in the parts of the page named for comments (the outermost element
    whose id or class says so; forms and their fields left out). What rendering adds there is
    what a script drew into the comments, not a cookie notice or a widget elsewhere on the page."""
    if root is None:
        return 0

    def named(el) -> bool:
        names = f"{el.get('id') or ''} {el.get('class') or ''}".replace("responsive", "")
        return bool(_NAMED.search(names))

    def words(el) -> int:
        if el.tag in _NOT_READ:
            return 0
        n = len((el.text or "").split())
        for child in el:
            if isinstance(child.tag, str):
                n += words(child)
            n += len((child.tail or "").split())
        return n

    total, stack = 0, [root]
    while stack:
        el = stack.pop()
        if not isinstance(el.tag, str) or el.tag in _NOT_READ:
            continue
        if el is not root and named(el):
            total += words(el)
        else:
            stack.extend(el)
    return total


def _after_content(root, content):
    if content is None:
        return list(root.iter())
    seen, out = False, []
    inside = set(content.iter())
    for el in root.iter():
        if el is content:
            seen = True
        elif seen and el not in inside:
            out.append(el)
    return out


def _count_signal(root, content, found, url: str | None) -> str | None:
    n = shown_count(root)
    if not n:
        return None
    if found is None:
        rule = learn_comment_blocks([(root, content)])
        found = rule["matched"] if rule else 0
    if n <= found or _thread_pages(root, url):
        return None
    return f"{n} comments shown, {found} in the page"


def _thread_pages(root, url: str | None) -> bool:
    """A link in the comments' part of the page to a further page of them: below the page's
    own URL (a comment page of the post) or with a page number in its query."""
    from urllib.parse import urljoin, urlsplit

    here = urlsplit(url or "")
    base = here.path.rstrip("/")
    for a in root.iter("a"):
        href = (a.get("href") or "").strip()
        if not href or href.startswith(("#", "javascript:")) or not _NAMED.search(_marks(a) + " " + href):
            continue
        there = urlsplit(urljoin(url or "", href))
        if url and there.netloc and there.netloc != here.netloc:
            continue
        below = bool(base) and there.path.rstrip("/").startswith(base + "/")
        if below or _PAGE_PARAM.search(there.query):
            return True
    return False


def _in_form(el) -> bool:
    node = el.getparent()
    while node is not None:
        if node.tag == "form":
            return True
        node = node.getparent()
    return False


def _empty(el) -> bool:
    """No text, and nothing but empty containers inside (no field, image or frame)."""
    return not node_text(el) and not any(isinstance(d.tag, str) and d.tag in _NOT_CONTAINERS - {"a", "time"}
                                         for d in el.iterdescendants())


def _block(el) -> bool:
    """An element a script mounts what it draws on: a block, or a custom element."""
    return el.tag in _BLOCKS or "-" in el.tag


def _empty_container(after: list) -> str | None:
    for el in after:
        names = f"{el.get('id') or ''} {el.get('class') or ''}"
        if _block(el) and _NAMED.search(names) and _empty(el) and not _in_form(el):
            return f"empty comment container <{el.tag} {names.strip()}>"
    return None


def _fed_container(after: list) -> str | None:
    """An empty element naming, in a data attribute, an endpoint its content comes from."""
    for el in after:
        if not _block(el):
            continue
        for name, value in el.attrib.items():
            value = (value or "").strip()
            if _ENDPOINT_ATTR.match(name) and value and not _MEDIA.search(value) and _empty(el):
                return f"empty <{el.tag}> filled from {name}={value[:60]!r}"
    return None


def _says_more(t: str) -> bool:
    return bool(t) and len(t) <= 40 and bool(_MORE.search(t)) and bool(_MORE_WORD.search(t))


def _anchors(root) -> set:
    return {v for el in root.iter() if isinstance(el.tag, str) for v in (el.get("id"), el.get("name")) if v}


def _control(root) -> str | None:
    anchors = None
    for el in root.xpath(_CONTROLS):
        href = el.get("href") or ""
        if len(href) > 1 and href.startswith("#"):  # a link to a place in the page (a table of contents)
            anchors = _anchors(root) if anchors is None else anchors
            if href[1:] in anchors:
                continue
        t = node_text(el)
        if _says_more(t) or (t and len(t) <= 40 and _MORE.search(t) and (_NAMED.search(t) or _NAMED.search(_marks(el)))):
            return f"control {t!r}"
    return None


def script_signals(html, content=None, found: int | None = None, raw: str | None = None,
                   url: str | None = None) -> list[str]:
    """Why a browser may see more comments on this page than its markup holds (empty: no reason).
    `html` is the page's markup, or its parsed root: then `raw` is the markup it was parsed
    from (a page parsed once, tasks.fetch.page.Page); a root without its markup is taken to
    have scripts, and its frames and <noscript> are not looked at. `content` is the post's
    content element of a parsed root; `found` the comments read from the page as served
    (else the page's repeated blocks); `url` the page's, for links to further comment pages."""
    if isinstance(html, (str, bytes)):
        raw = html.decode("utf-8", "replace") if isinstance(html, bytes) else html
        root = parse_html(raw)
    else:
        root = html
    if root is None or (raw is not None and not has_scripts(raw)):
        return []  # nothing on the page runs: nothing is drawn
    after = [el for el in _after_content(root, content) if isinstance(el.tag, str)]
    out = [_count_signal(root, content, found, url), _empty_container(after), _fed_container(after), _control(root)]
    if raw is not None:  # the parse drops frames' attributes we need and <noscript>: read from the markup
        out += [_comment_frame(raw), _noscript_comments(raw)]
    return [x for x in out if x]


def _comment_frame(raw: str) -> str | None:
    for attrs in _FRAME.findall(raw):
        marks = " ".join(v for _, v in _FRAME_MARKS.findall(attrs))
        if _NAMED.search(marks):
            return f"a frame named for comments ({marks.strip()[:60]})"
    return None


def _noscript_comments(raw: str) -> str | None:
    for inner in _NOSCRIPT.findall(raw):
        text = re.sub(r"<[^>]+>", " ", inner)
        if _NAMED.search(text):
            return f"<noscript> about comments: {' '.join(text.split())[:60]!r}"
    return None


def _marks(el, levels: int = 6) -> str:
    out, node = [], el
    for _ in range(levels):
        if node is None:
            break
        out.append(f"{node.get('id') or ''} {node.get('class') or ''}")
        node = node.getparent()
    return " ".join(out)


def _css_tag(el) -> str | None:
    """The element's tag if a CSS selector can name it (not a comment, not an odd name)."""
    return el.tag if isinstance(el.tag, str) and re.fullmatch(r"[a-z][a-z0-9]*", el.tag) else None


def _own_selector(el, tag: str) -> str | None:
    """tag#id (an id without digits: not one item's), else tag.classes (three at most)."""
    ident = el.get("id") or ""
    if re.fullmatch(r"[A-Za-z][\w-]*", ident) and not re.search(r"\d", ident):
        return f"{tag}#{ident}"
    classes = [c for c in (el.get("class") or "").split() if re.fullmatch(r"[A-Za-z_][\w-]*", c)]
    return tag + "".join("." + c for c in classes[:3]) if classes else None


def _selector(el) -> str | None:
    """A CSS selector for a control: tag#id, tag.classes, or [role=button] under its parent's."""
    tag = _css_tag(el)
    if tag is None:
        return None
    own = _own_selector(el, tag)
    if own:
        return own
    parent = el.getparent()
    if el.get("role") != "button" or parent is None or not (parent.get("id") or parent.get("class")):
        return None
    up = _selector(parent)
    return f"{up} > {tag}[role='button']" if up else None


def more_controls(html, content=None) -> list[str]:
    """CSS selectors of the controls after the post that load more comments, by what they say."""
    root = parse_html(html) if isinstance(html, (str, bytes)) else html
    after = set(_after_content(root, content))
    out = []
    for el in root.xpath(_CONTROLS):
        if el not in after:
            continue
        t = node_text(el)
        if _says_more(t):
            sel = _selector(el)
            if sel:
                out.append(sel)
    return list(dict.fromkeys(out))
