"""Which links of a page a blog crawl follows, and in what order (BlogForever's traversal).

Posts (URLs matching the blog's post pattern) come first; other pages are ordered by the
estimated number of post links on them (tasks.discover.priority). Links outside the blog, to
feeds, media or other non-page resources are not followed.
"""
from __future__ import annotations

import functools
import re
from urllib.parse import urljoin, urlsplit

POST_PRIORITY = 1_000_000.0
SEED_PRIORITY = 2_000_000.0
# pages queued at this priority or above keep their place when the priority model rescores the
# frontier: posts, seeds, and a listing read in page order (an update crawl's, issue 35)
ORDERED_PRIORITY = 100_000.0

_SKIP_EXT = re.compile(
    r"\.(?:jpe?g|png|gif|webp|svg|ico|bmp|tiff?|mp3|ogg|wav|m4a|mp4|webm|mov|avi|pdf|zip|gz|tgz|"
    r"bz2|xz|rar|7z|exe|dmg|iso|css|js|json|xml|rss|atom|txt|woff2?|ttf|eot|epub|mobi|docx?|xlsx?|pptx?)$",
    re.I)
_SKIP_PATH = re.compile(r"(?:^|/)(?:feed|rss|atom|comments/feed|wp-json|xmlrpc\.php|wp-login\.php|"
                        r"wp-admin|trackback|cdn-cgi|share|print)(?:/|$)", re.I)
_SKIP_QUERY = re.compile(r"(?:^|&)(?:feed|replytocom|share|action|like|format|print|preview)=", re.I)
# a parameter carrying an address ("login?redirect_to=http%3A%2F%2F...", an email form's
# "&redirect_to=<this page>", "share?url=..."): an action on a page or a redirect, no page to read
# (one such link on every page and under every comment: a third of one blog's requests)
_ADDRESS_VALUE = re.compile(r"(?:^|&)[^=&]*=(?:https?|ftp)(?::|%3a)(?://|%2f%2f)", re.I)


def _host(u: str) -> str:
    h = (urlsplit(u).hostname or "").lower()
    return h[4:] if h.startswith("www.") else h


@functools.lru_cache(maxsize=8192)
def in_scope(url: str, home: str) -> bool:
    """Same host as the blog's home page (www. folded), http(s), and a page, not a resource."""
    try:
        p = urlsplit(url)
        if p.scheme not in ("http", "https"):
            return False
        if _host(url) != _host(home) or p.port != urlsplit(home).port:
            return False
    except ValueError:  # a malformed link ("http://host:80words/"): no page of the blog
        return False
    path = p.path or "/"
    if _SKIP_EXT.search(path) or _SKIP_PATH.search(path):
        return False
    if p.query and (_SKIP_QUERY.search(p.query) or _ADDRESS_VALUE.search(p.query)):
        return False
    return True


_FEED_TYPES = {"application/rss+xml", "application/atom+xml", "application/rdf+xml", "application/xml",
               "text/xml", "application/feed+json"}
_COMMENTS = re.compile(r"comment|kommentar|commentaire|comentario", re.I)


def feed_links(root, base_url: str, home: str) -> list[str]:
    """Feeds a page declares (link rel=alternate) on the blog's host, comment feeds left out.

    Category, tag and author feeds list posts that no page may link any more (old
    posts of a static mirror, for one), so the traversal reads them as link sources."""
    out = []
    for el in root.iter("link"):
        rels = (el.get("rel") or "").lower().split()
        ftype = (el.get("type") or "").split(";")[0].strip().lower()
        href = (el.get("href") or "").strip()
        if "alternate" not in rels or ftype not in _FEED_TYPES or not href:
            continue
        if _COMMENTS.search(el.get("title") or "") or _COMMENTS.search(href):
            continue
        if (url := _on_host(href, base_url, home)) is not None:
            out.append(url)
    return list(dict.fromkeys(out))


def _on_host(href: str, base_url: str, home: str) -> str | None:
    """A `<link>`'s address, absolute, where it is on the blog's host and port (None for a
    malformed one or one elsewhere)."""
    try:
        url = urljoin(base_url, href)
        if urlsplit(url).scheme in ("http", "https") and _host(url) == _host(home) \
                and urlsplit(url).port == urlsplit(home).port:
            return url
    except ValueError:
        pass
    return None


def paging_links(root, base_url: str, home: str) -> list[str]:
    """The next and previous pages a page declares in its head (`<link rel="next">`: Jekyll's
    and many themes' only sign of a listing's second page, with no anchor to it), on the
    blog's host."""
    out = []
    for el in root.iter("link"):
        rels = (el.get("rel") or "").lower().split()
        href = (el.get("href") or "").strip()
        if href and {"next", "prev", "previous"} & set(rels) and (url := _on_host(href, base_url, home)) is not None:
            out.append(url)
    return list(dict.fromkeys(out))


def looks_like_feed(content: bytes, content_type: str | None) -> bool:
    """An RSS/Atom/RDF document rather than a page (by its first element)."""
    head = content[:1000].lstrip().lower()
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:].lstrip()
    while head.startswith((b"<?", b"<!--")):
        end = head.find(b">")
        if end < 0:
            return False
        head = head[end + 1:].lstrip()
    return head.startswith((b"<rss", b"<feed", b"<rdf:rdf", b"<rdf"))


def split_links(links: list[str], home: str, is_post) -> tuple[list[str], list[str]]:
    """In-scope links, split into post pages and other pages, in document order."""
    posts, others = [], []
    for u in links:
        if in_scope(u, home):
            (posts if is_post(u) else others).append(u)
    return posts, others
