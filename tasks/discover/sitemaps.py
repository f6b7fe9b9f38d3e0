"""Sitemaps as a discovery source: where a blog's sitemaps are, and what one lists.

A blog's feed lists its newest posts; its sitemap usually lists every page, old posts
included. This module only reads bytes the crawler already fetched (through the one
downloader, its private-address guard and size caps): no network here.

    candidates(home, robots_text)   sitemap URLs: robots.txt `Sitemap:` lines, else the usual paths
    parse_sitemap(data, url)        {"kind": "urlset"|"index"|"text", "urls": [...], "sitemaps": [...]}
    older_than(lastmod, since)      update crawls skip pages whose lastmod is before `since`

XML is read by lxml with a hardened parser: no entity expansion, no DTD loading, no
network, no huge trees; gzip (`.xml.gz`) is inflated with a cap so a small bomb cannot
become gigabytes. News and image sitemaps are urlsets too: their `news:publication_date`
stands in for a missing lastmod, and image locations (media, not pages) are left out.
"""
from __future__ import annotations

import re
import zlib
from urllib.parse import urljoin, urlsplit

from lxml import etree

from tasks.text.dates import parse_date

__all__ = ["SitemapError", "candidates", "robots_sitemaps", "parse_sitemap", "looks_like_sitemap",
           "older_than", "USUAL_PATHS", "MAX_URLS", "MAX_BYTES"]

MAX_DECLARED = 5  # <link rel=sitemap> of the home page taken at most
USUAL_PATHS = ("/sitemap.xml", "/sitemap_index.xml", "/wp-sitemap.xml")
MAX_URLS = 50_000  # sitemaps.org: at most 50,000 URLs per file
MAX_BYTES = 50 * 1024 * 1024  # sitemaps.org: at most 50 MiB uncompressed


class SitemapError(ValueError):
    """The bytes are no sitemap (an HTML 404 page served with 200, a broken gzip...)."""


def robots_sitemaps(robots_text: str | None, base: str) -> list[str]:
    """The `Sitemap:` lines of a robots.txt (any group; the field is group-independent)."""
    out = []
    for line in (robots_text or "").splitlines():
        m = re.match(r"\s*sitemap\s*:\s*(\S+)", line, re.I)
        if m:
            u = urljoin(base, m.group(1).strip())
            if urlsplit(u).scheme in ("http", "https"):
                out.append(u)
    return list(dict.fromkeys(out))


def declared_sitemaps(root, base: str) -> list[str]:
    """The sitemaps a page declares (`<link rel="sitemap" href>`, as Gatsby and others write)."""
    out = []
    for el in root.iter("link"):
        if "sitemap" in (el.get("rel") or "").lower().split() and (href := (el.get("href") or "").strip()):
            u = urljoin(base, href)
            if urlsplit(u).scheme in ("http", "https"):
                out.append(u)
    return list(dict.fromkeys(out))[:MAX_DECLARED]


def candidates(home: str, robots_text: str | None = None, declared: list[str] = ()) -> list[tuple[str, bool]]:
    """[(sitemap url, guessed)]: those robots.txt names and the home page declares, else the usual
    paths (guessed: a 404 there is no error of the blog's). Sitemaps on another host are the
    caller's to drop."""
    named = list(dict.fromkeys(robots_sitemaps(robots_text, home) + list(declared)))
    if named:
        return [(u, False) for u in named]
    p = urlsplit(home)
    root = f"{p.scheme}://{p.netloc}"
    paths = list(USUAL_PATHS)
    prefix = p.path.rstrip("/")
    if prefix:  # a blog under a path prefix may keep its sitemap there too
        paths = [prefix + q for q in USUAL_PATHS[:1]] + paths
    return [(root + q, True) for q in paths]


def _inflate(data: bytes, max_bytes: int) -> bytes:
    if not data.startswith(b"\x1f\x8b"):
        return data
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = d.decompress(data, max_bytes + 1)
    except zlib.error as e:
        raise SitemapError(f"broken gzip: {e}") from e
    if len(out) > max_bytes:
        raise SitemapError(f"sitemap larger than {max_bytes} bytes once inflated")
    return out


def looks_like_sitemap(content: bytes) -> bool:
    """A sitemap or sitemap index by its first element (gzip inflated, a little of it)."""
    head = content[:4096]
    if head.startswith(b"\x1f\x8b"):
        try:
            head = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(content[:65536], 4096)
        except zlib.error:
            return False
    head = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return bool(re.match(rb"(?:<\?[^>]*>\s*|<!--.*?-->\s*|<!doctype[^\[>]*(?:\[.*?\])?\s*>\s*)*"
                         rb"<(?:\w+:)?(?:urlset|sitemapindex)\b", head, re.S))


_PARSER_ARGS = dict(resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False,
                    huge_tree=False, remove_comments=True, remove_pis=True, recover=True)


def _local(tag) -> str:
    return tag.rsplit("}", 1)[-1].lower() if isinstance(tag, str) else ""


def _entries(parent, url: str) -> dict | None:
    loc = lastmod = pubdate = None
    for child in parent:
        name = _local(child.tag)
        if name == "loc" and loc is None:
            loc = (child.text or "").strip()
        elif name == "lastmod":
            lastmod = (child.text or "").strip()
        elif name == "news":
            for sub in child.iter():
                if _local(sub.tag) == "publication_date":
                    pubdate = (sub.text or "").strip()
    if not loc:
        return None
    loc = urljoin(url, loc)
    if urlsplit(loc).scheme not in ("http", "https"):
        return None
    when = lastmod or pubdate
    return {"url": loc, "lastmod": (parse_date(when) if when else None)}


def parse_sitemap(data: bytes, url: str, max_bytes: int = MAX_BYTES, max_urls: int = MAX_URLS) -> dict:
    """What a sitemap lists: `urls` (pages, with `lastmod` as ISO or None) of a urlset, or
    `sitemaps` (nested sitemaps) of an index; a plain-text sitemap lists one URL per line.
    Raises SitemapError for anything else."""
    data = _inflate(data or b"", max_bytes)
    if len(data) > max_bytes:
        raise SitemapError(f"sitemap larger than {max_bytes} bytes")
    if not looks_like_sitemap(data):
        return _text_sitemap(data, max_bytes, max_urls)
    root = _sitemap_root(data)
    kind = _local(root.tag)
    found = _listed(root, "url" if kind == "urlset" else "sitemap", url, max_urls)
    if kind == "urlset":
        return {"kind": "urlset", "urls": found, "sitemaps": []}
    return {"kind": "index", "urls": [], "sitemaps": found}


_URL_LINE = re.compile(r"https?://\S+$")


def _text_sitemap(data: bytes, max_bytes: int, max_urls: int) -> dict:
    """A plain-text sitemap (one URL a line: its first 50 lines all URLs), else SitemapError."""
    text = data[:max_bytes].decode("utf-8", "replace").strip()
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not lines or not all(_URL_LINE.match(ln) for ln in lines[:50]):
        raise SitemapError("not a sitemap (no <urlset> or <sitemapindex>)")
    urls = [{"url": ln, "lastmod": None} for ln in lines if _URL_LINE.match(ln)]
    return {"kind": "text", "urls": urls[:max_urls], "sitemaps": []}


def _sitemap_root(data: bytes):
    """The <urlset> or <sitemapindex> element, read by the hardened parser; else SitemapError."""
    try:
        root = etree.fromstring(data, etree.XMLParser(**_PARSER_ARGS))
    except etree.XMLSyntaxError as e:
        raise SitemapError(f"unreadable sitemap XML: {e}") from e
    if root is None:
        raise SitemapError("empty sitemap")
    kind = _local(root.tag)
    if kind not in ("urlset", "sitemapindex"):
        raise SitemapError(f"not a sitemap (<{kind}>)")
    return root


def _listed(root, child_tag: str, url: str, max_urls: int) -> list[dict]:
    """The first `max_urls` readable <url>/<sitemap> entries, one per location (the last wins)."""
    found = []
    for el in root:
        if _local(el.tag) != child_tag:
            continue
        e = _entries(el, url)
        if e:
            found.append(e)
            if len(found) >= max_urls:
                break
    return list({e["url"]: e for e in found}.values())


STAMP_MIN = 5  # a urlset's lastmods read as one build's stamp only with this many pages at least
STAMP_SHARE = 0.9  # ... and this share of them giving the same moment


def stamped(urls: list[dict]) -> bool:
    """Do a urlset's lastmods give one moment for (nearly) every page, as a site generator
    writes its build time (a 2008 post "modified" with everything else on the day of the last
    build)? Then a lastmod after `since` says nothing of the page itself."""
    marks = [e.get("lastmod") for e in urls if e.get("lastmod")]
    if len(marks) < STAMP_MIN:
        return False
    top = max(marks.count(m) for m in set(marks))
    return top >= STAMP_SHARE * len(urls)


def older_than(lastmod: str | None, since: str | None) -> bool:
    """Whether a sitemap's lastmod says the page has not changed since `since` (day precision;
    no lastmod or no since: it may have)."""
    return bool(lastmod and since and lastmod[:10] < since[:10])
