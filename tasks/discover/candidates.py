"""Candidate post pages of a blog without a usable feed, from its own links.

A blog's home page and listings (pagination, archives) link its posts by title: many
links of one URL shape (/2014/03/slug/, /posts/slug/, /?p=123) whose anchors read like
titles (several words), beside a few dozen navigation, tag and page links. Candidates
are ranked by their shape group's size and anchor length; which of them are really
posts is decided later by their pages (tasks.learn.pseudo_feed groups them by template).

Other sources (sitemaps) give bare URLs: `rank_candidates(..., extra=urls)` ranks them
with the links, by their shape only.
"""
from __future__ import annotations

import re
import urllib.parse
from collections import Counter, defaultdict

from tasks.discover.traversal import in_scope
from tasks.discover.urls import _RESERVED_RE, canonical
from tasks.fetch.html import node_text

_NEXT_TEXT = re.compile(r"^\W*(?:older|next|previous|prev|more|earlier|ältere|weiter|suivant|anciens|"
                        r"siguiente|anteriores|page\s*\d+|\d+)\W*(?:posts?|entries|articles|page)?\W*$|^[»›>→]+$|"
                        r"^[«‹<←]+$|archives?|blog archive", re.I)
_LISTING_URL = re.compile(r"(?:^|/)(?:page|archives?|blog)(?:\.(?:html?|php|aspx?))?(?:/|$)|[?&](?:paged|page|start|offset|p)=\d+$|"
                          r"/\d{4}/(?:\d{2}/?)?$", re.I)


def _segment_shape(seg: str) -> str:
    if seg.isdigit():
        return f"<{len(seg)}d>"
    if "-" in seg or "_" in seg or len(seg) > 24 or re.search(r"\d", seg):
        return "<slug>"
    if _RESERVED_RE.match(seg):
        return seg.lower()
    return "<word>"


def url_shape(url: str) -> str:
    """The URL with its variable parts named: /2014/03/a-post/ -> /<4d>/<2d>/<slug>/."""
    p = urllib.parse.urlsplit(url)
    segs = [s for s in (p.path or "/").split("/")]
    shape = "/".join(_segment_shape(s) if s else "" for s in segs)
    if p.query:
        keys = sorted(k + ("=<n>" if v.isdigit() else "=<v>")
                      for k, v in urllib.parse.parse_qsl(p.query, keep_blank_values=True))
        shape += "?" + "&".join(keys)
    return shape


def url_scheme(url: str) -> str:
    """The folders a URL's page sits in, numbers named, with its file's extension and query keys:
    /a/148-some-post.html -> /a/*.html, /2014/03/a-post/ -> /<d>/<d>/*; two spellings of one
    post under different folders (/a/ and /permalink/) are two schemes, where url_shape sees one."""
    p = urllib.parse.urlsplit(url)
    folders, _, last = (p.path or "/").rpartition("/")
    if not last and folders:  # /2014/03/a-post/: the post is the last folder
        folders, _, last = folders.rpartition("/")
    ext = re.search(r"\.[A-Za-z0-9]{1,5}$", last)
    keys = "&".join(sorted(k for k, _ in urllib.parse.parse_qsl(p.query, keep_blank_values=True)))
    return re.sub(r"\d+", "<d>", folders) + "/*" + (ext.group(0).lower() if ext else "") + ("?" + keys if keys else "")


def page_links(root, base_url: str, home: str) -> list[tuple[str, str, bool]]:
    """[(url, anchor text, rel=next)] of a page's in-scope links, canonical, first occurrence."""
    out, seen = [], set()
    for a in root.iter("a"):
        href = (a.get("href") or "").strip()
        if not href or href.startswith(("#", "mailto:", "javascript:")):
            continue
        try:
            url = canonical(urllib.parse.urljoin(base_url, href))
        except ValueError:
            continue
        if url in seen or not in_scope(url, home) or url.rstrip("/") == home.rstrip("/"):
            continue
        seen.add(url)
        out.append((url, node_text(a)[:200], "next" in (a.get("rel") or "").lower().split()))
    return out


def listing_links(links: list[tuple[str, str, bool]]) -> list[str]:
    """The links of a page that lead to more listings: rel=next, "Older posts", /page/2/, archives."""
    return [u for u, text, nxt in links
            if nxt or _NEXT_TEXT.search(text or "") or _LISTING_URL.search(urllib.parse.urlsplit(u).path
                                                                            + ("?" + urllib.parse.urlsplit(u).query
                                                                               if urllib.parse.urlsplit(u).query
                                                                               else ""))]


def sitewide(pages_links: list[list[tuple[str, str, bool]]]) -> set[str]:
    """Links found on most of the listing pages read (at least two): the site's navigation
    (about, contact, a sidebar), where a listing's posts appear on one listing page each."""
    if len(pages_links) < 2:
        return set()
    seen = Counter(u for links in pages_links for u in {u for u, _, _ in links})
    return {u for u, n in seen.items() if n >= 2 and n * 2 >= len(pages_links)}


def feed_section(declared_feeds: list[str], home: str) -> str | None:
    """The section of the site a blog's declared feed sits in (".../blog/rss.xml" -> ".../blog/"),
    when that is not the whole site: where the posts are, even if the feed itself is broken."""
    for feed in declared_feeds[:1]:
        p = urllib.parse.urlsplit(feed)
        segs = p.path.split("/")
        cut = next((i for i, x in enumerate(segs) if x.lower() in ("feed", "feeds", "rss", "atom")), None)
        path = "/".join(segs[:cut]) + "/" if cut is not None else p.path.rsplit("/", 1)[0] + "/"
        path = "/" if p.query else path
        section = urllib.parse.urlunsplit((p.scheme, p.netloc, path, "", ""))
        if path.strip("/") and section.rstrip("/") != home.rstrip("/") and in_scope(section, home):
            return canonical(section)
    return None


def rank_candidates(links: list[tuple[str, str, bool]], known: list[str] = (), extra: list[str] = (),
                    exclude: set | None = None, demote: set | None = None,
                    section: str | None = None) -> list[str]:
    """Link URLs (and `extra` URLs) most likely to be posts first.

    A shape group scores by how many distinct URLs it holds and how title-like their
    anchors are (words per anchor); the shapes of `known` posts (a short feed's entries)
    come first, then those inside `section` (feed_section). Within a group, document order,
    `demote` (site-wide links) last."""
    groups, words = _shape_groups(links, extra, exclude or set())
    demote = demote or set()
    known_shapes = {url_shape(u) for u in known}
    out = []
    for s in sorted(groups, key=lambda s: _shape_score(s, groups[s], words.get(s), s in known_shapes, section),
                    reverse=True):
        out.extend(groups[s])
    return [u for u in out if u not in demote] + [u for u in out if u in demote]


def _shape_groups(links: list[tuple[str, str, bool]], extra: list[str],
                  exclude: set) -> tuple[dict[str, list[str]], dict[str, list[int]]]:
    """The URLs by shape in document order (links, then `extra`), and the words of each
    link's anchor text; `exclude`d URLs left out."""
    groups: dict[str, list[str]] = defaultdict(list)
    words: dict[str, list[int]] = defaultdict(list)
    for url, text, _ in links:
        if url in exclude:
            continue
        s = url_shape(url)
        if url not in groups[s]:
            groups[s].append(url)
            words[s].append(len(re.findall(r"\w+", text or "")))
    for url in extra:
        s = url_shape(url)
        if url not in exclude and url not in groups[s]:
            groups[s].append(url)
    return groups, words


def _shape_score(shape: str, urls: list[str], words: list[int] | None, known: bool,
                 section: str | None) -> tuple:
    """How likely a shape group is the posts: a known post shape, inside the feed's section,
    no listing (page/N, ?x=N), then many URLs with title-like anchors (words per anchor)."""
    w = words or [0]
    title_like = sum(min(n, 8) for n in w) / len(w)
    listing = "page" in shape.split("/") or shape.endswith("=<n>") and "p=<n>" not in shape
    inside = bool(section) and all(u.startswith(section) for u in urls)
    return (known, inside, not listing, len(urls) * (1 + title_like), len(urls))


_COMMENT_FEED_TITLE = re.compile(r"comment|kommentar|commentaire|comentario", re.I)
_FEED_TAIL = re.compile(r"/feed(?:/(?:index\.(?:html?|xml))?)?$", re.I)


def comment_feeds(root, base_url: str) -> list[str]:
    """The comment feeds a page declares (`<link rel="alternate" title="... Comments Feed">`), in
    page order, as absolute URLs."""
    out = []
    for el in root.iter("link"):
        rels = (el.get("rel") or "").lower().split()
        href = (el.get("href") or "").strip()
        if "alternate" not in rels or not href or not _COMMENT_FEED_TITLE.search(el.get("title") or ""):
            continue
        try:
            out.append(urllib.parse.urljoin(base_url, href))
        except ValueError:
            continue
    return out


def declared_permalink(root, base_url: str, home: str, site_feeds=frozenset()) -> str | None:
    """The post's permalink as the page itself declares it through its comment feed
    (`<link rel="alternate" title="... Comments Feed" href="PERMALINK/feed/">`), when that
    is another URL than the one the page was reached by (a ?p=123 shortlink, a static
    mirror's copy). None if the page declares no such feed. `site_feeds`: the comment feeds
    the blog's home page declares (the whole blog's, `/comments/feed/`), which every page
    may declare before its own and which name no post."""
    for href in comment_feeds(root, base_url):
        if href in site_feeds:
            continue
        try:
            feed = urllib.parse.urlsplit(href)
        except ValueError:
            continue
        if feed.query or not _FEED_TAIL.search(feed.path):
            continue
        url = canonical(urllib.parse.urlunsplit((feed.scheme, feed.netloc, _FEED_TAIL.sub("/", feed.path), "", "")))
        if in_scope(url, home) and url.rstrip("/") != home.rstrip("/") and url != canonical(base_url):
            return url
        return None
    return None


MAX_NAV_LINKS = 12  # a menu of the site's pages is short: a longer block lists posts (an archive, a day-by-day menu)
_NAV_NAME = re.compile(r"(?:^|[\s_-])[a-z]*nav(?:bar|igation|i)?(?:$|[\s_-])", re.I)  # div#nav, .site-navigation, .navbar
_NOT_MENU = re.compile(r"pag|prev|next|post-nav|entry|related|breadcrumb|share|social|tag|categor|archive", re.I)


def navigation_links(root, base_url: str) -> set[str]:
    """The URLs the page's menus (nav, role=navigation, menu-named blocks) link to: the site's own
    pages (about, projects, contact), which a blog's menu names and its posts are not. A block of
    many links lists posts (an archive widget, a day-by-day menu), and pagination, prev/next,
    tag and share blocks are no menus: left out, as is anything inside an article."""
    out: set[str] = set()
    for block in _menus(root, base_url):
        for a in block.xpath(".//a[@href]"):
            try:
                out.add(canonical(urllib.parse.urljoin(base_url, a.get("href"))))
            except ValueError:
                continue
    return out


def _menus(root, base_url: str | None = None) -> list:
    """The page's menu blocks (navigation_links): named so (nav, role=navigation, menu- and
    nav-named blocks), or a short list of links one of which is the site's home page (a
    sidebar's "Home · About · Contact" widget, named by nothing)."""
    out = _named_menus(root)
    if base_url:
        out += [ul for ul in _home_lists(root, base_url) if not any(m is ul or ul in m.iterdescendants() for m in out)]
    return out


def _home_lists(root, base_url: str) -> list:
    """Lists (ul, ol) of at most MAX_NAV_LINKS links, outside any article, that link to the
    site's home page."""
    try:
        homes = {canonical(urllib.parse.urljoin(base_url, "/"))}
    except ValueError:
        return []
    out = []
    for ul in root.iter("ul", "ol"):
        links = ul.xpath(".//a[@href]")
        if not links or len(links) > MAX_NAV_LINKS or ul.xpath("ancestor::article") \
                or _NOT_MENU.search(f"{ul.get('class') or ''} {ul.get('id') or ''}"):
            continue
        for a in links:
            try:
                if canonical(urllib.parse.urljoin(base_url, a.get("href"))) in homes:
                    out.append(ul)
                    break
            except ValueError:
                continue
    return out


def _named_menus(root) -> list:
    out = []
    blocks = root.xpath("//nav | //*[@role='navigation'] | //*[contains(@class, 'menu')] | //*[contains(@id, 'menu')]"
                        " | //*[contains(@class, 'nav')] | //*[contains(@id, 'nav')]")
    for block in blocks:
        names = f"{block.get('class') or ''} {block.get('id') or ''}"
        if block.tag != "nav" and block.get("role") != "navigation" and "menu" not in names and not _NAV_NAME.search(names):
            continue  # 'nav' inside another word (canvas, unavailable)
        if _NOT_MENU.search(f"{block.get('class') or ''} {block.get('id') or ''}") or block.xpath("ancestor::article"):
            continue
        if len(block.xpath(".//a[@href]")) > MAX_NAV_LINKS:
            continue
        out.append(block)
    return out


MIN_LISTED = 3  # links in one slot of a page's template before the slot is a listing


def listed_links(root, base_url: str, is_post) -> set[str]:
    """The URLs a page lists in its post listing: the links that sit in one slot of its template
    (the same chain of tags and classes, as a listing repeats its item), outside its menus,
    beside links that are posts (`is_post`: by the blog's pattern; a few of them, or most of
    the slot). A page the menu names and the listing lists too (a post the menu points at) is
    a listed post, not only a page of the menu."""
    out: set[str] = set()
    for urls in listing_slots(root, base_url):
        if lists_posts(urls, is_post):
            out |= set(urls)
    return out


def lists_posts(urls, is_post) -> bool:
    """Is a slot of links a post listing: a few posts, or mostly posts?"""
    posts = sum(bool(is_post(u)) for u in urls)
    return len(urls) >= MIN_LISTED and (posts >= MIN_LISTED or posts * 2 > len(urls))


def listing_slots(root, base_url: str, least: int = MIN_LISTED) -> list[list[str]]:
    """The page's slots of links outside its menus, by the chain of tags and classes above each
    link and by its tags alone (items whose classes name each one: post-12 category-x), with
    `least` links at least, each in document order: what may be a listing, before anyone
    knows which links are posts."""
    out, seen = [], set()
    for urls in keyed_slots(root, base_url, least).values():
        key = tuple(urls)
        if key not in seen:
            seen.add(key)
            out.append(urls)
    return out


def keyed_slots(root, base_url: str, least: int = MIN_LISTED) -> dict[str, list[str]]:
    """listing_slots by their place in the template (`_slot`; "tags:" before a chain of tags alone)."""
    menus = {a for block in _menus(root, base_url) for a in block.xpath(".//a[@href]")}  # (held: lxml keeps their proxies)
    slots: dict[str, dict[str, None]] = defaultdict(dict)
    for a in root.xpath("//a[@href]"):
        if a in menus:
            continue
        try:
            url = canonical(urllib.parse.urljoin(base_url, a.get("href")))
        except ValueError:
            continue
        slots[_slot(a)][url] = None
        slots["tags:" + _slot(a, classes=False)][url] = None
    return {key: list(urls) for key, urls in slots.items() if len(urls) >= least}


def _slot(el, classes: bool = True) -> str:
    """An element's place in the template: its ancestors' tags and classes, no positions, an
    ancestor repeated in a row counted once (a listing whose unclosed item nests the next in
    it, as Blogger's `div.date-outer`, puts each of its links one level deeper); `classes` false:
    the tags alone (a listing whose items' classes name each item: WordPress's post-12 category-x)."""
    parts: list[str] = []
    while el is not None and isinstance(el.tag, str):
        part = f"{el.tag}.{'.'.join(sorted((el.get('class') or '').split()))}" if classes else el.tag
        if not parts or parts[-1] != part:
            parts.append(part)
        el = el.getparent()
    return "/".join(reversed(parts))
