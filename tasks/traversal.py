"""Which links of a page a blog crawl follows, and in what order (BlogForever's traversal).

Posts (URLs matching the blog's post pattern) come first; other pages are ordered by the
estimated number of post links on them (tasks.priority). Links outside the blog, to
feeds, media or other non-page resources are not followed.
"""
from __future__ import annotations

import re
from urllib.parse import urlsplit

POST_PRIORITY = 1_000_000.0
SEED_PRIORITY = 2_000_000.0

_SKIP_EXT = re.compile(
    r"\.(?:jpe?g|png|gif|webp|svg|ico|bmp|tiff?|mp3|ogg|wav|m4a|mp4|webm|mov|avi|pdf|zip|gz|tgz|"
    r"bz2|xz|rar|7z|exe|dmg|iso|css|js|json|xml|rss|atom|txt|woff2?|ttf|eot|epub|mobi|docx?|xlsx?|pptx?)$",
    re.I)
_SKIP_PATH = re.compile(r"(?:^|/)(?:feed|rss|atom|comments/feed|wp-json|xmlrpc\.php|wp-login\.php|"
                        r"wp-admin|trackback|cdn-cgi|share|print)(?:/|$)", re.I)
_SKIP_QUERY = re.compile(r"(?:^|&)(?:feed|replytocom|share|action|like|format|print|preview)=", re.I)


def _host(u: str) -> str:
    h = (urlsplit(u).hostname or "").lower()
    return h[4:] if h.startswith("www.") else h


def in_scope(url: str, home: str) -> bool:
    """Same host as the blog's home page (www. folded), http(s), and a page, not a resource."""
    p = urlsplit(url)
    if p.scheme not in ("http", "https"):
        return False
    if _host(url) != _host(home) or urlsplit(url).port != urlsplit(home).port:
        return False
    path = p.path or "/"
    if _SKIP_EXT.search(path) or _SKIP_PATH.search(path):
        return False
    if p.query and _SKIP_QUERY.search(p.query):
        return False
    return True


def split_links(links: list[str], home: str, is_post) -> tuple[list[str], list[str]]:
    """In-scope links, split into post pages and other pages, in document order."""
    posts, others = [], []
    for u in links:
        if in_scope(u, home):
            (posts if is_post(u) else others).append(u)
    return posts, others
