"""A start page that only forwards to the blog: where the crawl's home really is.

A blog that lives under a path (/blog/, a GitHub project page /name/) is often reached through
the host's root, which forwards there: by HTTP redirect (the fetch follows it), by a meta
refresh, or by a stand-in page whose one link is the blog. Taken as the blog's home, such a
page has no feed, no post links and no listing: the crawl would find nothing, or take the
real home for a post. `forward_target` names the page it forwards to, or None.

Pure: no Celery, no Redis.
"""
from __future__ import annotations

import re
import urllib.parse

from tasks.fetch.html import node_text

__all__ = ["forward_target", "frames", "frame_probes", "landing_links", "declares_feed", "MAX_FORWARDS",
           "MAX_STAND_IN_TEXT", "MAX_FRAMES", "MAX_PROBES", "MAX_LANDING_LINKS"]

MAX_FORWARDS = 3  # forwarding pages followed in a row at most (a loop ends there)
MAX_REFRESH_DELAY = 30  # seconds: a page that refreshes later is read for itself first (a slideshow, a news ticker)
MAX_FRAMES = 8  # a frameset's frames read at most
MAX_PROBES = 12  # pages its frames link to, read at most, looking for the blog's home
MAX_LANDING_LINKS = 4  # pages of its own site a landing page links at most (a blog's home lists many)
MAX_STAND_IN_TEXT = 300  # characters of text: a stand-in says "moved to ...", a home page says much more

_REFRESH = re.compile(r"^\s*(\d+(?:\.\d*)?)?\s*[;,]?\s*(?:url\s*=\s*)?(['\"]?)(.*?)\2\s*$", re.I | re.S)


def forward_target(root, base_url: str) -> str | None:
    """The URL the page at `base_url` forwards to (a meta refresh, or a stand-in page whose only
    link leads to a page of its own host under another path), or None where it is a page of its
    own. A page that declares a feed is a blog's home whatever it links."""
    target = _refresh_target(root, base_url) or _only_link(root, base_url)
    if not target or _same_page(target, base_url):
        return None
    return target


def _refresh_target(root, base_url: str) -> str | None:
    for meta in root.xpath("//meta[@http-equiv]"):
        if (meta.get("http-equiv") or "").strip().lower() != "refresh":
            continue
        m = _REFRESH.match(meta.get("content") or "")
        if not m or not m.group(3).strip():
            continue  # a bare "30": the page reloads itself
        if m.group(1) and float(m.group(1)) > MAX_REFRESH_DELAY:
            continue
        return _http(urllib.parse.urljoin(base_url, m.group(3).strip()))
    return None


def _only_link(root, base_url: str) -> str | None:
    """The one page a short page without a feed links to, on its own host under another path."""
    if _declares_feed(root):
        return None
    body = root.find(".//body")
    if body is None or len(node_text(body)) > MAX_STAND_IN_TEXT:
        return None
    targets = {url.split("#")[0] for url in _links(root, base_url) if not _same_page(url, base_url)}
    if len(targets) != 1:
        return None
    target = targets.pop()
    here, there = urllib.parse.urlsplit(base_url), urllib.parse.urlsplit(target)
    if there.netloc.lower() != here.netloc.lower() or not there.path.strip("/"):
        return None  # another site, or the host's root: a link, not where the blog lives
    return target


def frames(root, base_url: str) -> list[str]:
    """A frameset page's frames (its whole content: a personal site's home of the 2000s, whose
    blog is one of its frames or a page they link to), same host, in document order; [] for a
    page with a body of its own or one that declares a feed."""
    if root.find(".//frameset") is None or _declares_feed(root):
        return []
    out: dict[str, None] = {}
    for el in root.iter("frame"):
        url = _http(urllib.parse.urljoin(base_url, (el.get("src") or "").strip()))
        if url and _same_host(url, base_url) and not _same_page(url, base_url):
            out.setdefault(url.split("#")[0], None)
    return list(out)[:MAX_FRAMES]


def frame_probes(roots: list, base_urls: list[str], home: str) -> list[str]:
    """The same-host pages a frameset's frames link to (not the frameset nor a frame), in
    document order, at most MAX_PROBES: where the blog's home, a page that declares a feed, is
    looked for."""
    out: dict[str, None] = {}
    skip = {home.split("#")[0], *base_urls}
    for root, base in zip(roots, base_urls):
        for url in _links(root, base):
            if _same_host(url, home) and not any(_same_page(url, s) for s in skip):
                out.setdefault(url.split("#")[0], None)
    return list(out)[:MAX_PROBES]


def landing_links(root, base_url: str) -> list[str]:
    """The pages of its own host a landing page links to, in document order: a start page that
    declares no feed and links to a few pages of its site only (a firm's or a person's front page
    whose "Blog" link leads to the blog's home, which declares the feed); [] for any other page
    (a blog's home lists its posts: many links). The crawl's home is the first of them that
    declares a feed (workers/discover/feed.py), where one does."""
    if _declares_feed(root) or root.find(".//frameset") is not None:
        return []
    out: dict[str, None] = {}
    for url in _links(root, base_url):
        if _same_host(url, base_url) and not _same_page(url, base_url):
            out.setdefault(url.split("#")[0], None)
    return list(out) if len(out) <= MAX_LANDING_LINKS else []


def declares_feed(root) -> bool:
    """Does the page name a feed of its own in its head (a blog's home does)?"""
    return _declares_feed(root)


def _links(root, base_url: str):
    """The http(s) URLs the page's a[href] name (no fragment-only, mail or script links)."""
    for a in root.xpath("//a[@href]"):
        href = (a.get("href") or "").strip()
        if href and not href.startswith(("#", "mailto:", "javascript:")):
            url = _http(urllib.parse.urljoin(base_url, href))
            if url:
                yield url


def _same_host(a: str, b: str) -> bool:
    return urllib.parse.urlsplit(a).netloc.lower() == urllib.parse.urlsplit(b).netloc.lower()


def _declares_feed(root) -> bool:
    return any("alternate" in (el.get("rel") or "").lower().split() and "xml" in (el.get("type") or "")
               for el in root.iter("link"))


def _http(url: str) -> str | None:
    try:
        return url if urllib.parse.urlsplit(url).scheme in ("http", "https") else None
    except ValueError:
        return None


def _same_page(a: str, b: str) -> bool:
    pa, pb = urllib.parse.urlsplit(a), urllib.parse.urlsplit(b)
    return (pa.netloc.lower(), pa.path.rstrip("/") or "/", pa.query) == (pb.netloc.lower(), pb.path.rstrip("/") or "/",
                                                                        pb.query)
