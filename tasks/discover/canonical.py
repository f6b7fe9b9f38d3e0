"""One record per post: the URL a post calls its own, and pages that are never posts.

`urls.canonical` folds spellings of one URL (tracking and comment parameters, `m=1`,
`index.html`); this module adds what the page and the blog say:

    page_canonical(root, url, home)  rel=canonical, else og:url, on the blog's own site, in the
                                     home page's scheme and host spelling (http/https, www.)
    fold_to_home(url, home)          the same URL in the home page's scheme and host
    amp_origin(url)                  /amp/ and ?amp forms of a post: the post's own URL
    is_listing(url, home)            home, page/N, tag, category, author, date archives, search:
                                     pages that list posts and are never posts themselves
    under_post(url, is_post)         a page below a post's URL (attachment, comment page)
    image_pages(root, base, post)    pages below a post that it links only through its images
    body_key(title, text)            what two URLs serving the same post share
    titled_links(root, base, title, urls)
                                     links naming the page's own title: where the page is a
                                     copy of a post, the post's own URL
"""
from __future__ import annotations

import functools
import hashlib
import re
from urllib.parse import unquote, urljoin, urlsplit, urlunsplit

from tasks.discover.urls import _resolve, anchors_to, canonical, same_site
from tasks.text.similarity import normalize_text

__all__ = ["page_canonical", "fold_to_home", "amp_origin", "is_listing", "under_post", "image_pages", "body_key",
           "titled_links"]

_TAXONOMY = re.compile(r"^(?:page|tag|tags|category|categories|label|labels|author|authors|search|feed|feeds)$",
                       re.I)
_SECTION_INDEX = re.compile(r"^(?:archives?|blog|posts|articles|sitemap|news|index)$", re.I)
_PAGED = re.compile(r"(?:^|/)(?:(?:page|seite|pagina|pg)/\d+/?|(?:index|page)-?\d+\.html?|page-?\d+/?)$", re.I)  # page2.html: Pelican, Jekyll; /page2/: Jekyll
_LISTING_QUERY = re.compile(r"(?:^|&)(?:s|q|search|paged|page|updated-max|updated-min|start-index|"
                            r"max-results|by-date|cat|tag|m|author)=", re.I)
# a year, month or day with nothing after it, below the site or up to three segments of a blog's
# own (/2014/03/, /blog/2014/, /index.php/all/2005/02/09/: b2evolution's day archives)
# (not below a date: /2013/01/01/2013/ is a post named 2013)
_DATE_ARCHIVE = re.compile(r"^/(?:[^/]+/)?(?:[^/\d][^/]*/){0,2}(?:19|20)\d\d(?:/(?:0?[1-9]|1[0-2])(?:/(?:0?[1-9]|[12]\d|3[01]))?)?/?$")
_AMP = re.compile(r"/amp/?$", re.I)
# a month's archive named by a file or folder of its own, a year and a month alone: Movable Type's
# /archives/2004_05.html, /2003_06.html beside its /000433.html posts, /blog/2004-05/
MONTH_FILE = re.compile(r"^/(?:[^/]+/)*(?P<y>(?:19|20)\d\d)[_-](?P<m>0[1-9]|1[0-2])(?:\.html?)?/?$", re.I)


def fold_to_home(url: str, home: str) -> str:
    """`url` with the home page's scheme and host spelling when it is on the same site
    (a blog that moved to https, or links with and without www.)."""
    if not url or not same_site(url, home):
        return url
    u, h = urlsplit(url), urlsplit(home)
    return canonical(urlunsplit((h.scheme, h.netloc, u.path, u.query, "")))


def amp_origin(url: str) -> str:
    """The post an AMP URL stands for: `/post/amp/` -> `/post/`; `?amp` is dropped by canonical."""
    p = urlsplit(url)
    if _AMP.search(p.path) and p.path.strip("/") != "amp":
        return canonical(urlunsplit((p.scheme, p.netloc, _AMP.sub("/", p.path), p.query, "")))
    return url


def page_canonical(root, url: str, home: str) -> str:
    """The URL the page names as its own (`<link rel=canonical>`, else `og:url`), when it is
    on the blog's site and not a listing (a paged comment view pointing at page 1 of the
    blog would lose the post); else the page's own URL. Folded to the home's spelling."""
    own = amp_origin(fold_to_home(canonical(url), home))
    named = _named_canonical(root) if root is not None else None
    target = _on_site(named, url, home) if named else None
    if target is None:
        return own
    if is_listing(target, home) and not is_listing(own, home):
        return own  # a theme that names the home page as every page's canonical
    return target


def _named_canonical(root) -> str | None:
    """The page's `<link rel=canonical href>`, else its first non-empty `og:url`. Canonicals
    that disagree (a theme's hard-coded one beside the page's own) name nothing, as search
    engines read them, unless og:url settles which is the page's."""
    links = []
    for el in root.iter("link"):
        href = (el.get("href") or "").strip()
        if "canonical" in (el.get("rel") or "").lower().split() and href and href not in links:
            links.append(href)
    og = None
    for el in root.iter("meta"):
        content = (el.get("content") or "").strip()
        if (el.get("property") or el.get("name") or "").lower() == "og:url" and content:
            og = content
            break
    if len(links) == 1:
        return links[0]
    if len(links) > 1:
        base = root.getroottree().docinfo.URL or ""
        return og if og and urljoin(base, og) in {urljoin(base, x) for x in links} else None
    return og


def _on_site(named: str, url: str, home: str) -> str | None:
    """The named URL, canonical and in the home's spelling, when it is a web URL on the
    blog's site (None otherwise)."""
    try:
        target = canonical(urljoin(url, named))
    except ValueError:
        return None
    if urlsplit(target).scheme not in ("http", "https") or not same_site(target, home):
        return None
    return amp_origin(fold_to_home(target, home))


def is_listing(url: str, home: str, dates: bool = True) -> bool:
    """Pages that list posts (home, `page/N`, tag/category/author/label pages, date archives,
    search, Blogger's `?updated-max=`): never a post, whatever the rules extract from them.
    `dates`: a URL ending in a date is a date archive (False where the blog's post pattern ends
    in one: `dated_tail`)."""
    p = urlsplit(canonical(url))
    path, query = p.path or "/", p.query
    if "%3f" in path.lower():  # a mirror's saved listing ("search%3Fupdated-max=...html"): its query is in its name
        path, _, saved = unquote(path).partition("?")
        query = "&".join(x for x in (query, saved) if x)
    hp = urlsplit(canonical(home)).path or "/"
    if query and _LISTING_QUERY.search(query):
        return True
    if path.rstrip("/") == hp.rstrip("/"):
        return not query  # the home page, not /?p=123
    if _PAGED.search(path) or (dates and _DATE_ARCHIVE.match(path) and not _slug_before_date(path, hp)) \
            or MONTH_FILE.match(path):
        return True
    return _listing_segments(path, query)


_DATE_PROBES = ("/2014/", "/2014/03/", "/2014/03/09/", "/blog/2014/03/")  # date archives any blog may have
_TAIL_PROBES = ("/a-post/2014/", "/a-post/2014/03/", "/a-post/2014/03/09/", "/a/2014/")


@functools.lru_cache(maxsize=256)
def dated_tail(pattern: str | None) -> bool:
    """Does the blog's post pattern (learned on its posts' URLs) end in a date after the post's
    name (`/<slug>/<year>/`: WordPress's `%postname%/%year%`), and take in no plain date archive?
    Then a URL it takes in that ends in a date is a post, not that date's archive."""
    if not pattern:
        return False
    try:
        rx = re.compile(pattern)
    except re.error:
        return False
    return any(rx.match(p) for p in _TAIL_PROBES) and not any(rx.match(p) for p in _DATE_PROBES)


SLUG_WORDS = 3  # words a segment joins with hyphens before it is a post's slug, not a section's name


def _slug_before_date(path: str, home_path: str) -> bool:
    """Does a post's slug stand before the date (`/napoli-patrimonio-a-rischio/2010/`: a WordPress
    permalink of the post's name, then its year), not the name of one of the blog's sections
    (`/blog/2014/`, `/index.php/all/2005/02/09/`)? The home page's own folders are sections."""
    own = {s for s in home_path.split("/") if s}
    return any(len([w for w in re.split(r"[-_]", s) if w]) >= SLUG_WORDS
               for s in path.split("/") if s and s not in own and not s.isdigit())


def _listing_segments(path: str, query: str) -> bool:
    """Whether the path's last segments name a listing: a taxonomy (/tag/x/,
    /blog/category/a/b/, /search/label/x, /tags/), a section index (/blog/, /archives/),
    or the site root (/index.html) without a query."""
    segs = [s for s in path.split("/") if s]
    if segs and re.match(r"^index\.\w+$", segs[-1], re.I):
        segs = segs[:-1]
    if not segs:
        return not query
    if any(_TAXONOMY.match(s) for s in segs[-3:-1]) or _TAXONOMY.match(segs[-1]):
        return True
    # a section's index sits near the top (/blog/, /en/archives/); below a date (/2004/09/04/blog/)
    # the word is a post's slug
    return bool(_SECTION_INDEX.match(segs[-1])) and not any(_YEAR.fullmatch(s) for s in segs[:-1])


_YEAR = re.compile(r"(?:19|20)\d\d")


def under_post(url: str, is_post, home: str | None = None) -> bool:
    """A page whose URL extends a post's URL (an attachment, a comment page, a per-post
    feed): part of that post, never a post of its own. Ancestors that are listings (a date
    archive that a root-slug pattern takes in) are no posts."""
    return bool(post_parents(url, is_post, home))


def post_parents(url: str, is_post, home: str | None = None) -> list[str]:
    """The URLs `url` extends that the pattern `is_post` takes for posts (both spellings, with
    and without the final slash), nearest first."""
    p = urlsplit(url)
    segs = [s for s in (p.path or "/").split("/") if s]
    out = []
    for k in range(len(segs) - 1, 0, -1):
        parent = urlunsplit((p.scheme, p.netloc, "/" + "/".join(segs[:k]) + "/", "", ""))
        if home and is_listing(parent, home):
            continue
        if is_post(parent) or is_post(parent.rstrip("/")):
            out += [parent, parent.rstrip("/")]
    return out


def image_pages(root, base_url: str, posts) -> list[str]:
    """The pages below a post (one of `posts`, URLs the page links as posts or the page's own)
    that the page links only through an image (an anchor holding an image and no text, every
    time it links them): an image's own page (WordPress's attachment pages: the image again, a
    link back to the post). They hold no post and link no post the post does not; read, they
    cost a request each (0.8 a post on a blog whose posts link every image so). A page linked
    by text too (a series' next part, a section's index taken for a post) is not one of them;
    a post under a query (?p=N) or at the site's root has nothing below it."""
    parents = set()
    for post in posts:
        parts = urlsplit(post)
        if not parts.query and parts.path.strip("/"):
            parents.add(urlunsplit(parts._replace(path=parts.path.rstrip("/"), fragment="")))
    if root is None or not parents:
        return []
    image_only: dict[str, bool] = {}
    for a in root.iter("a"):
        href = (a.get("href") or "").strip()
        if not href or href.startswith("#"):
            continue
        url = _resolve(base_url, href)
        if not url or not _below(url, parents):
            continue
        only = next(a.iter("img", "picture", "svg"), None) is not None and not "".join(a.itertext()).strip()
        image_only[url] = image_only.get(url, True) and only
    return [u for u, only in image_only.items() if only]


def _below(url: str, parents: set[str]) -> bool:
    """Does `url` extend one of `parents` (URLs without their final slash) by a path segment?"""
    parts = urlsplit(url)
    if parts.query:
        return False
    segs = [s for s in parts.path.split("/") if s]
    for k in range(len(segs) - 1, 0, -1):
        if urlunsplit(parts._replace(path="/" + "/".join(segs[:k]), fragment="")) in parents:
            return True
    return False


def body_key(title: str | None, text: str | None, min_chars: int = 40) -> str | None:
    """A key two URLs of the same post share (title and text, normalised); None where the
    text is too short to tell two posts apart (then no two records are merged)."""
    body = normalize_text(text or "")
    if len(body) < min_chars or not (title or "").strip():
        return None
    return hashlib.sha1((normalize_text(title).casefold() + "\n" + body).encode()).hexdigest()[:20]


def titled_links(root, base_url: str, title: str | None, urls) -> list[str]:
    """The links to one of `urls` whose whole text is `title`, the page's own (a sidebar's
    "recent entries" naming the post at its permalink), in document order. On a copy of a post
    under another URL (a mirror's `/permalink/slug.html` of `/a/150-slug.html`), the post's own
    URL; nothing where the title is empty."""
    want = normalize_text(title or "").casefold()
    if root is None or not want:
        return []
    named = (u for a, u in anchors_to(root, base_url, set(urls)) if normalize_text("".join(a.itertext())).casefold() == want)
    return list(dict.fromkeys(named))
