"""What a post page as served says about comments a script would add, with no list of widgets.

--js auto renders a sample of a blog's posts only where the static page hints that a
browser would see more (workers/fetch/rendering.py compares the two); these are the hints:

- a count of comments shown ("12 comments", "3 Kommentare") above the comments found;
- an empty comment container after the post (an element named for comments, threads or
  discussions, with no text);
- a "load more" / "show comments" control (a button, or a link that goes nowhere);
- a frame or a script in the page's body.

`more_controls` finds, in a rendered page, the controls that load more (their text says
so in the blog's language) as CSS selectors, so that the browser clicks them on every post
of that blog. Pure functions over HTML.
"""
from __future__ import annotations

import re

from tasks.fetch.html import node_text, parse_html
from tasks.learn.comment_blocks import learn_comment_blocks

__all__ = ["script_signals", "more_controls", "shown_count"]

_COMMENT_WORDS = r"comment|commentaire|comentario|kommentar|reacti|réponse|respuesta|antwort|repl|discussion|thread|talk|respon"
_COUNT = re.compile(rf"(\d+)\s*(?:{_COMMENT_WORDS})", re.I)
_NAMED = re.compile(_COMMENT_WORDS, re.I)
_MORE = re.compile(r"(?<!\w)(more|plus|m[aá]s|mehr|weitere|altri|meer|mais|więcej|show|load|afficher|voir|cargar|"
                   r"mostrar|laden|anzeigen|older|previous|précédents|anteriores|ältere)(?!\w)", re.I)
_TAIL = re.compile(r"<(?:iframe\b|script\b[^>]*\bsrc\s*=)", re.I)
_MORE_WORD = re.compile(r"more|plus|m[aá]s|mehr|weitere|older|ältere", re.I)
_CONTROLS = "//button | //*[@role='button'] | //a[not(@href) or starts-with(@href, '#') or starts-with(@href, 'javascript')]"


def shown_count(root) -> int:
    """The largest comment count the page prints in a heading or a short line, else 0."""
    best = 0
    for el in root.iter("h1", "h2", "h3", "h4", "a", "span", "div", "p"):
        t = (el.text or "").strip()
        if t and len(t) <= 40:
            m = _COUNT.match(t)
            if m:
                best = max(best, int(m.group(1)))
    return best


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


def _count_signal(root, content, found) -> str | None:
    n = shown_count(root)
    if not n:
        return None
    if found is None:
        rule = learn_comment_blocks([(root, content)])
        found = rule["matched"] if rule else 0
    return f"{n} comments shown, {found} in the page" if n > found else None


def _empty_container(after: list) -> str | None:
    for el in after:
        names = f"{el.get('id') or ''} {el.get('class') or ''}"
        if el.tag not in ("a", "script", "style", "link", "meta") and _NAMED.search(names) and not node_text(el) \
                and el.find(".//textarea") is None:
            return f"empty comment container <{el.tag} {names.strip()}>"
    return None


def _says_more(t: str) -> bool:
    return bool(t) and len(t) <= 40 and bool(_MORE.search(t)) and bool(_MORE_WORD.search(t))


def _control(root) -> str | None:
    for el in root.xpath(_CONTROLS):
        t = node_text(el)
        if _says_more(t) or (t and len(t) <= 40 and _MORE.search(t) and (_NAMED.search(t) or _NAMED.search(_marks(el)))):
            return f"control {t!r}"
    return None


def script_signals(html, content=None, found: int | None = None, raw: str | None = None) -> list[str]:
    """Why a browser may see more comments on this page than its markup holds (empty: no reason).
    `html` is the page's markup, or its parsed root: then `raw` is the markup it was parsed
    from (a page parsed once, tasks.fetch.page.Page), else the scripts are not looked for.
    `content` is the post's content element of a parsed root; `found` the comments read from
    the page as served (else the page's repeated blocks)."""
    if isinstance(html, (str, bytes)):
        raw = html.decode("utf-8", "replace") if isinstance(html, bytes) else html
        root = parse_html(raw)
    else:
        root = html
    if root is None:
        return []
    after = [el for el in _after_content(root, content) if isinstance(el.tag, str)]
    out = [_count_signal(root, content, found), _empty_container(after), _control(root)]
    if raw is not None:  # the parse drops scripts: they are looked for in the markup
        out.append(_scripts_in_body(raw))
    return [x for x in out if x]


def _scripts_in_body(raw: str) -> str | None:
    tail = _TAIL.findall(raw[max(0, raw.lower().find("<body")):])
    return f"{len(tail)} frames or scripts in the page's body" if tail else None


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
