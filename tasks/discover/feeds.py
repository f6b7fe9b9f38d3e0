"""Feeds: find a blog's feed, read it into training targets, and page through it.

The feed is the method's teacher: each entry pairs a post URL with its title,
content, authors and date, from which the extraction rules are learned. So
this module keeps what the targets need (full content when the feed has it,
dates in the offset the feed wrote them, absolute post URLs), and finds more
entries where the platform pages its feed. Parsing is feedparser's (RSS
0.9x/1.0/2.0, Atom, JSON Feed); it recovers truncated feeds partially.
"""
from __future__ import annotations

import re
import time
import urllib.parse

import feedparser
import lxml.html
from lxml import etree

from tasks.text.dates import parse_date

__all__ = ["FeedError", "discover_feeds", "parse_feed", "next_page_urls", "parse_comment_feed",
           "FEED_TYPES", "USUAL_PATHS", "twin"]


class FeedError(ValueError):
    """The bytes are not a usable feed (HTML, binary, empty, or a feed without entries)."""


FEED_TYPES = {"application/rss+xml", "application/atom+xml", "application/rdf+xml", "application/x.atom+xml",
              "application/x-atom+xml", "application/x-rss+xml", "text/xml", "application/xml",
              "text/rss+xml", "text/atom+xml"}

# Where blog platforms put their feed when the home page does not say: WordPress,
# Blogger, Hugo, Jekyll/Octopress, Ghost, Tumblr, Movable Type, Squarespace...
USUAL_PATHS = ["feed/", "feed", "rss.xml", "atom.xml", "index.xml", "feed.xml",
               "feeds/posts/default", "?feed=rss2", "rss", "rss/", "index.rss", "atom",
               "blog/feed/", "blog/rss.xml", "blog/atom.xml", "blog/index.xml", "blog?format=rss"]

_COMMENT_WORDS = re.compile(r"comment|commentaire|comentario|kommentar|réponses|replies", re.I)
_MINOR_FEED = re.compile(r"/(?:category|categories|tag|tags|label|labels|author|search)/|"
                         r"gallery|media-rss|podcast|/wp-json/|[?&](?:cat|tag)=", re.I)
_FEEDISH_HREF = re.compile(r"(?:^|/)(?:feed|rss|atom)(?:\.xml)?/?$|/feeds/posts/default|"
                           r"[?&]feed=(?:rss2?|atom)|\.(?:rss|atom)$|/(?:index|rss|atom|feed)\.xml$|"
                           r"\.(?:rss|atom)\.xml$",
                           re.I)


# ---------------------------------------------------------------- discovery

def _host(url: str) -> str:
    host = (urllib.parse.urlsplit(url).hostname or "").lower()
    return host[4:] if host.startswith("www.") else host


def discover_feeds(html: str | bytes, base_url: str, guesses: bool = True) -> list[str]:
    """Candidate feed URLs of a blog, best first, to be tried in order.

    Declared feeds (`<link rel="alternate">`) come first, ranked so that the
    blog's main posts feed leads: comment feeds dropped unless nothing else is
    declared, category/tag/gallery feeds and feeds on other hosts after the
    site's own. Then feed links found in the page body, then (with `guesses`) the
    usual paths of the common platforms under the blog's directory and the site root.
    """
    root = _page_root(html)
    out: list[str] = []
    linked, kind = None, None
    if root is not None:
        base = _document_base(root, base_url)
        declared = _declared_feeds(root, base, base_url)
        out += _ranked_declared_feeds(declared)
        out += _body_feed_links(root, base, base_url)
        linked = _linked_sections(root, base, base_url)
        kind = _declared_kind(declared)
    if guesses:
        out += _usual_feed_urls(base_url, linked, kind)
    return list(dict.fromkeys(out))


def _declared_kind(declared: list[tuple[tuple, str, str]]) -> str | None:
    """"atom" or "rss": the format of the blog's main declared feed (by its type), which a
    copy of it under a usual path most likely keeps (FeedBurner's Atom feed beside `/atom.xml`)."""
    for _rank, _url, ftype in sorted(declared, key=lambda r: r[0]):
        return "atom" if "atom" in ftype else "rss" if ("rss" in ftype or "rdf" in ftype) else None
    return None


def _kind_of(path: str) -> str | None:
    """The format a usual feed path names (`atom.xml`, `?feed=rss2`), or None (`feed/`)."""
    low = path.lower()
    return "atom" if "atom" in low else "rss" if "rss" in low else None


def _linked_sections(root, base: str, base_url: str) -> set[str]:
    """The sections of its own site the page links into: every directory of its links' paths
    (`/blog/`, `/blog/2014/`; a link to `/blog` counts as `/blog/`), lower case."""
    out = set()
    for el in root.iter("a", "link"):
        href = (el.get("href") or "").strip()
        if not href:
            continue
        try:
            url = urllib.parse.urljoin(base, href)
            path = urllib.parse.urlsplit(url).path.lower()
        except ValueError:
            continue
        if _host(url) != _host(base_url):
            continue
        segments = [seg for seg in path.split("/") if seg]
        for i in range(1, len(segments) + 1):
            out.add("/" + "/".join(segments[:i]) + "/")
    return out


def twin(url: str) -> str:
    """The same path with its trailing slash added or taken away (`/feed/` and `/feed`): a
    server that has neither answers both alike."""
    parts = urllib.parse.urlsplit(url)
    if parts.path in ("", "/"):
        return url  # the root has no twin
    path = parts.path[:-1] if parts.path.endswith("/") else parts.path + "/"
    return urllib.parse.urlunsplit(parts._replace(path=path))


def _page_root(html: str | bytes):
    """The page's parsed tree, or None when there is no page to read."""
    if isinstance(html, str):
        html = re.sub(r"^\s*<\?xml[^>]*>", "", html)  # lxml refuses str with an encoding declaration
    if not html or not html.strip():
        return None
    try:
        return lxml.html.fromstring(html)
    except (etree.ParserError, ValueError):
        return None


def _document_base(root, base_url: str) -> str:
    """The URL the page's relative links resolve against: its first <base href>, else its own."""
    for el in root.iter("base"):
        if el.get("href"):
            return urllib.parse.urljoin(base_url, el.get("href").strip())
    return base_url


def _is_comment_feed(title: str, href: str) -> bool:
    return bool(_COMMENT_WORDS.search(title) or re.search(r"comments?/feed|/comments?(?:/|$)", href, re.I))


def _declared_feeds(root, base: str, base_url: str) -> list[tuple[tuple, str, str]]:
    """The page's `<link rel="alternate">` feeds with their rank: (is a comment feed, is a
    minor feed (category, tag, gallery ...), is on another host, order in the page), URL and type."""
    declared = []
    for i, el in enumerate(root.iter("link")):
        rels = (el.get("rel") or "").lower().split()
        ftype = (el.get("type") or "").split(";")[0].strip().lower()
        href = (el.get("href") or "").strip()
        if "alternate" not in rels or ftype not in FEED_TYPES or not href:
            continue
        url = urllib.parse.urljoin(base, href)
        if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
            continue
        title = el.get("title") or ""
        rank = (_is_comment_feed(title, href), bool(_MINOR_FEED.search(url) or _MINOR_FEED.search(title)),
                _host(url) != _host(base_url), i)
        declared.append((rank, url, ftype))
    return declared


def _ranked_declared_feeds(declared: list[tuple[tuple, str, str]]) -> list[str]:
    """Declared feeds best first; comment feeds only when nothing else is declared."""
    if any(not rank[0] for rank, _, _ in declared):
        declared = [d for d in declared if not d[0][0]]
    return [url for _, url, _ in sorted(declared, key=lambda r: r[0])]


def _body_feed_links(root, base: str, base_url: str) -> list[str]:
    """Links in the page body that look like the site's own main feed (not comments, tags ...)."""
    out = []
    for el in root.iter("a"):
        href = (el.get("href") or "").strip()
        typed = (el.get("type") or "").split(";")[0].strip().lower() in FEED_TYPES  # <a type="application/atom+xml">
        if not href or not (typed or _FEEDISH_HREF.search(href.split("#")[0])) or _COMMENT_WORDS.search(href):
            continue
        url = urllib.parse.urljoin(base, href)
        if _host(url) == _host(base_url) and not _MINOR_FEED.search(url):
            out.append(url)
    return out


def _usual_feed_urls(base_url: str, linked: set[str] | None = None, kind: str | None = None) -> list[str]:
    """The platforms' usual feed paths under the blog's directory, then under the site root.
    A path under a section (`blog/feed/`, `feeds/posts/default`) is guessed only where the
    page links into that section (`linked`: tasks.discover.feeds._linked_sections; None: not
    known), and a blog section's only at the site root: the page leads into any section its
    site has, and a platform that keeps its feed in one of its own declares it. Where the page
    declares a feed of one format (`kind`, "atom" or "rss") that could not be read, the paths
    naming that format come first, those naming the other last (each a request on every crawl)."""
    parts = urllib.parse.urlsplit(base_url)
    origin = f"{parts.scheme or 'http'}://{parts.netloc}"
    directory = parts.path if parts.path.endswith("/") else parts.path.rsplit("/", 1)[0] + "/"
    directories = [directory] if directory not in ("", "/") else []
    directories.append("/")

    def guessed(d: str, p: str) -> bool:
        section = _section(p)
        if section is None:
            return True
        if section == "blog" and d != "/":
            return False
        return linked is None or (d + section + "/").lower() in linked

    rank = {None: 1, kind: 0} if kind else {}
    paths = sorted(USUAL_PATHS, key=lambda p: rank.get(_kind_of(p), 2)) if kind else USUAL_PATHS
    return [origin + d + p for d in directories for p in paths if guessed(d, p)]


def _section(path: str) -> str | None:
    """The section a usual feed path lies in (`blog` of `blog/feed/` and `blog?format=rss`,
    `feeds` of `feeds/posts/default`), or None for one at the top of its directory (`feed/`)."""
    name, _, query = path.partition("?")
    head, sep, _ = name.rstrip("/").partition("/")
    return head.lower() if head and (sep or query) else None


# ---------------------------------------------------------------- parsing

def _looks_binary(data: bytes) -> bool:
    head = data[:2048]
    if head.startswith((b"\xff\xfe", b"\xfe\xff", b"\xef\xbb\xbf")):
        return False  # a byte-order mark: text in UTF-16/UTF-8
    if b"\x00" in head:
        return True
    controls = sum(1 for b in head if b < 9 or 13 < b < 32)
    return controls > len(head) * 0.05


MAX_FEED_BYTES = 20_000_000  # a feed larger than this is refused before parsing
MAX_ENTRIES = 10_000  # entries kept from one feed document
_ENTITY_DECL = re.compile(r"<!\s*ENTITY", re.I)


def refuse_entities(data: bytes, url: str, content_type: str | None = None) -> None:
    """Raise FeedError when the document declares DTD entities: an internal entity referenced
    thousands of times expands to gigabytes in the parser (billion laughs, quadratic blowup),
    an external one reads files or URLs. Checked on the bytes and on the decoded text (UTF-16
    hides the ASCII), before any parser sees them. Blogs' feeds never need their own entities."""
    head = data[:1_000_000]
    if _ENTITY_DECL.search(head.decode("latin-1")):
        raise FeedError(f"{url}: the document declares DTD entities (refused: entity expansion)")
    from tasks.fetch.charset import decode

    if _ENTITY_DECL.search(decode(head, _charset(content_type))):
        raise FeedError(f"{url}: the document declares DTD entities (refused: entity expansion)")
    if b"\x00" in head[:4096]:  # UTF-16/32 without a BOM or declared charset
        for codec in ("utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"):
            if _ENTITY_DECL.search(head.decode(codec, errors="ignore")):
                raise FeedError(f"{url}: the document declares DTD entities (refused: entity expansion)")


_XML_ENCODING = re.compile(rb"""^(\s*<\?xml\b[^>]*?)\s+encoding\s*=\s*["']([A-Za-z0-9._:-]+)["']""")


def _refused_charsets(data: bytes, content_type: str | None) -> tuple[bytes, str | None]:
    """A feed declaring a codec no page may be in (UTF-7, rot13, base64: tasks/fetch/charset.py)
    is handed to feedparser as UTF-8 text, read the way the fetcher reads pages; else unchanged."""
    import codecs

    from tasks.fetch.charset import decode, text_codec

    m = _XML_ENCODING.match(data[:1024])
    labels = [_charset(content_type), m.group(2).decode("ascii") if m else None]

    def refused(label):
        if not label or text_codec(label):
            return False
        try:
            codecs.lookup(label)
        except LookupError:
            return False  # unknown: feedparser falls back by itself
        return True

    if not any(refused(label) for label in labels):
        return data, content_type
    if m:
        data = data[:m.start(2) - 1].rsplit(b"encoding", 1)[0].rstrip() + data[m.end():]
    text = decode(data, None)
    return text.encode("utf-8"), "application/xml; charset=utf-8"


def _charset(content_type: str | None) -> str | None:
    m = re.search(r"charset=([\w.:-]+)", content_type or "", re.I)
    return m.group(1) if m else None


def _parse(data: bytes | str, url: str, content_type: str | None = None):
    if isinstance(data, str):
        data = data.encode("utf-8")
    if not data or not data.strip():
        raise FeedError(f"{url}: empty document, not a feed")
    if len(data) > MAX_FEED_BYTES:
        raise FeedError(f"{url}: feed of {len(data)} bytes exceeds {MAX_FEED_BYTES}")
    refuse_entities(data, url, content_type)
    data, content_type = _refused_charsets(data, content_type)
    if _looks_binary(data):
        raise FeedError(f"{url}: binary data, not a feed")
    # Say "XML" so that feedparser trusts the XML declaration and defaults to UTF-8
    # (with no Content-Type it would default to Latin-1 and flag every feed bozo).
    charset = re.search(r"charset=([\w.:-]+)", content_type or "", re.I)
    ctype = "application/xml" + (f"; charset={charset.group(1)}" if charset else "")
    d = feedparser.parse(data, response_headers={"content-location": url, "content-type": ctype},
                         sanitize_html=False, resolve_relative_uris=True)
    if not d.get("version") and not d.entries:
        head = data[:1024].lower()
        if b"<html" in head or b"<!doctype html" in head:
            raise FeedError(f"{url}: an HTML page, not a feed")
        why = d.get("bozo_exception")
        raise FeedError(f"{url}: not a feed" + (f" ({why})" if why else ""))
    del d.entries[MAX_ENTRIES:]
    return d


def _plain(text: str | None) -> str | None:
    """Text of a title that may carry markup or entities."""
    if text is None:
        return None
    if "<" in text or "&" in text:
        try:
            text = lxml.html.fromstring(f"<div>{text}</div>").text_content()
        except (etree.ParserError, ValueError):
            pass
    return re.sub(r"\s+", " ", text).strip()


def _html_text(html: str | None) -> str:
    if not html:
        return ""
    try:
        root = lxml.html.fromstring(f"<div>{html}</div>")
        for bad in root.xpath("//script|//style"):
            bad.drop_tree()
        text = root.text_content()
    except (etree.ParserError, ValueError):
        text = re.sub(r"<[^>]+>", " ", html)
    return re.sub(r"\s+", " ", text).strip()


def _iso(raw: str | None, parsed) -> str | None:
    """The date as the feed wrote it (its own offset kept), else feedparser's UTC reading."""
    if raw:
        iso = parse_date(raw)
        if iso:
            return iso
    if parsed:
        try:
            return time.strftime("%Y-%m-%dT%H:%M:%S+00:00", parsed)
        except (TypeError, ValueError):
            return None
    return None


def _absolute(href: str | None, base: str) -> str | None:
    if not href or not isinstance(href, str):
        return None
    return urllib.parse.urljoin(base, href.strip())


def _entry_url(e, base: str) -> str | None:
    if e.get("feedburner_origlink"):
        return _absolute(e["feedburner_origlink"], base)
    for link in e.get("links", []):
        if link.get("rel", "alternate") == "alternate" and "html" in (link.get("type") or "text/html"):
            return _absolute(link.get("href"), base)
    if e.get("link"):
        return _absolute(e["link"], base)
    if e.get("guidislink") and str(e.get("id", "")).startswith(("http://", "https://")):
        return e["id"]
    return None


def _content(e) -> str | None:
    best = None
    for c in e.get("content") or []:
        value = c.get("value") or ""
        if value.strip() and (best is None or len(value) > len(best)):
            best = value
    return best


def _authors(e, feed) -> tuple[list[str], bool]:
    """The entry's authors, else the feed's (Atom inheritance); and whether they are the feed's."""
    names = []
    inherited = False
    for inherited, src in ((False, e), (True, feed)):
        for a in src.get("authors") or []:
            name = (a.get("name") or "").strip()
            if not name and a.get("email") and "noreply" not in a["email"]:
                name = a["email"].strip()
            if name:
                names.append(name)
        if not names and src.get("author"):
            names.append(re.sub(r"\s*\([^)]*@[^)]*\)\s*$", "", src["author"]).strip())
        if names:
            break
    return list(dict.fromkeys(n for n in names if n)), inherited and bool(names)


def _int(value) -> int | None:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return None


def _comments_feed(e, base: str) -> str | None:
    if e.get("wfw_commentrss"):
        return _absolute(e["wfw_commentrss"], base)
    for link in e.get("links", []):
        if link.get("rel") == "replies" and re.search(r"atom|rss|xml", link.get("type") or ""):
            return _absolute(link.get("href"), base)
    return None


def _comment_count(e) -> int | None:
    for key in ("slash_comments", "thr_total"):
        n = _int(e.get(key))
        if n is not None:
            return n
    for link in e.get("links", []):  # Blogger: <link rel="replies" type="text/html" title="3 Comments">
        if link.get("rel") == "replies":
            m = re.match(r"\s*(\d+)\s", link.get("title") or "")
            if m:
                return int(m.group(1))
    return None


def _raw(e, key: str):
    """A feedparser field without its deprecated `updated` -> `published` fallback
    (the fallback warns, and we read `published` ourselves anyway)."""
    return dict.get(e, key)


def _entry(e, feed, base: str) -> dict:
    content = _content(e)
    summary = e.get("summary") or None
    if summary is not None and not summary.strip():
        summary = None
    if content is not None and summary == content:
        summary = None  # feedparser copies content into summary when there is no summary
    published = _iso(e.get("published"), e.get("published_parsed"))
    updated = _iso(_raw(e, "updated"), _raw(e, "updated_parsed"))
    authors, inherited = _authors(e, feed)
    return {
        "url": _entry_url(e, base),
        "id": e.get("id") or None,
        "title": _plain(e.get("title")),
        "content_html": content,
        "summary_html": summary,
        "content_is_summary": content is None,
        "authors": authors,
        "authors_from_feed": inherited,  # the feed-level author: often a site name, a weak target
        "published": published or updated,
        "updated": updated,
        "comments_feed": _comments_feed(e, base),
        "comment_count": _comment_count(e),
        "enclosures": [{"url": _absolute(x.get("href"), base), "type": x.get("type") or None,
                        "length": _int(x.get("length"))}
                       for x in e.get("enclosures") or [] if x.get("href")],
    }


def _next_links(feed, base: str) -> list[str]:
    return [_absolute(link["href"], base) for link in feed.get("links", [])
            if link.get("rel") == "next" and link.get("href")]


def parse_feed(data: bytes, url: str, content_type: str | None = None) -> dict:
    """A feed as plain data: {"url", "title", "link", "generator", "language", "updated", "bozo",
    "next", "entries"} (`updated`: the feed's own, as written: a static site's build time).

    `bozo` is None for a well-formed feed, else feedparser's complaint: a
    truncated or malformed feed still gives the entries it could recover.
    Raises FeedError for anything that is not a feed, and for a feed without
    entries (nothing to learn from). `content_type` is the HTTP header, for its charset.
    """
    d = _parse(data, url, content_type)
    if not d.entries:
        raise FeedError(f"{url}: the feed has no entries")
    feed = d.feed
    base = url
    generator = feed.get("generator") or (feed.get("generator_detail") or {}).get("name") or None
    if not generator and (feed.get("generator_detail") or {}).get("href"):
        generator = feed["generator_detail"]["href"]
    return {
        "url": url,
        "title": _plain(feed.get("title")),
        "link": _absolute(feed.get("link"), base),
        "generator": generator,
        "language": feed.get("language") or None,
        "updated": feed.get("updated") or None,
        "bozo": str(d.get("bozo_exception") or "malformed feed") if d.get("bozo") else None,
        "next": _next_links(feed, base),
        "entries": [_entry(e, feed, base) for e in d.entries],
    }


# ---------------------------------------------------------------- paging

def _with_query(url: str, **params) -> str:
    parts = urllib.parse.urlsplit(url)
    names = {k.replace("_", "-") for k in params}  # start_index=... sets start-index
    query = [(k, v) for k, v in urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
             if k not in names]
    query += [(k.replace("_", "-"), str(v)) for k, v in params.items()]
    return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query)))


def _is_blogger(feed: dict, url: str) -> bool:
    gen = (feed.get("generator") or "").lower()
    return "blogger" in gen or bool(re.search(r"/feeds/(?:posts|[0-9]+)/", urllib.parse.urlsplit(url).path))


def _is_wordpress(feed: dict, url: str) -> bool:
    gen = (feed.get("generator") or "").lower()
    parts = urllib.parse.urlsplit(url)
    return ("wordpress" in gen or re.search(r"/feed(?:/(?:atom|rss2?|rdf))?/?$", parts.path) is not None
            or "feed=" in parts.query)


def next_page_urls(feed: dict, url: str, page: int) -> list[str]:
    """Where the entries after this feed page are, best first.

    `feed` is parse_feed's result for `url`, the `page`-th page (1-based).
    The feed's own Atom rel="next" comes first (on the feed's host first), then
    the platform's paging: Blogger's start-index/max-results, WordPress's
    ?paged=N. Empty when the page had no entries or the platform does not page.
    """
    entries = feed.get("entries") or []
    if not entries:
        return []
    out = list(feed.get("next") or [])
    if _is_blogger(feed, url):
        q = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))
        start = _int(q.get("start-index")) or 1
        size = _int(q.get("max-results")) or len(entries)
        out.append(_with_query(url, start_index=start + len(entries), max_results=size))
    elif _is_wordpress(feed, url):
        out.append(_with_query(url, paged=max(1, int(page)) + 1))
    here = _host(url)
    out = sorted(dict.fromkeys(u for u in out if u and u != url), key=lambda u: _host(u) != here)
    return out


# ---------------------------------------------------------------- comments

def parse_comment_feed(data: bytes, url: str, content_type: str | None = None) -> list[dict]:
    """A post's comment feed as [{"id", "author", "published", "content_text", "content_html", "url", "parent"}].

    `parent` is the id of the comment this one answers (Atom threading
    thr:in-reply-to, Blogger's rel="related"), None for a reply to the post.
    An empty comment feed is an empty list; a non-feed raises FeedError.
    """
    d = _parse(data, url, content_type)
    post_urls = {_absolute(d.feed.get("link"), url)}
    alias, comments = _comment_ids(d.entries, url)
    return [_comment(e, cid, _comment_parent(e, cid, alias, post_urls, url), url) for cid, e in comments]


def _comment_ids(entries, url: str) -> tuple[dict[str, str], list[tuple[str, object]]]:
    """Each comment with its id, and every name a reply may use for a comment (its id, link,
    self/edit/alternate links) mapped to that id."""
    alias: dict[str, str] = {}
    comments = []
    for e in entries:
        cid = e.get("id") or _entry_url(e, url)
        links = [_absolute(link.get("href"), url) for link in e.get("links", [])
                 if link.get("rel") in ("self", "edit", "alternate")]
        for key in [cid, e.get("link")] + links:
            if key:
                alias[key] = cid
        comments.append((cid, e))
    return alias, comments


def _related_links(e, url: str) -> list[str | None]:
    return [_absolute(link.get("href"), url) for link in e.get("links", []) if link.get("rel") == "related"]


def _comment_parent(e, cid: str, alias: dict[str, str], post_urls: set, url: str) -> str | None:
    """The id of the comment `e` answers: a reply target naming another comment of this feed,
    else one that names a comment elsewhere; None for a reply to the post."""
    reply = e.get("thr_in-reply-to")
    reply = reply if isinstance(reply, dict) else None
    targets = [reply.get("ref"), _absolute(reply.get("href"), url)] if reply is not None else []
    parent = next((alias[t] for t in targets + _related_links(e, url) if t and t in alias and alias[t] != cid),
                  None)
    if parent is None and reply is not None:
        parent = _parent_off_feed(e, reply, post_urls, url)
    return parent


def _parent_off_feed(e, reply: dict, post_urls: set, url: str) -> str | None:
    """A threaded reply whose parent is not in this feed: Blogger's rel="related" link as it is
    written, else the in-reply-to target when it names a comment (a #fragment) and not the post."""
    related = [link.get("href") for link in e.get("links", []) if link.get("rel") == "related"]
    if related:
        return related[0]
    href = _absolute(reply.get("href"), url)
    if href and href not in post_urls and "#" in href:
        return reply.get("ref") or href  # answers a comment on another page of the feed
    return None


def _comment(e, cid: str, parent: str | None, url: str) -> dict:
    html = _content(e) or e.get("summary") or None
    authors, _ = _authors(e, {})
    return {
        "id": cid,
        "author": authors[0] if authors else None,
        "published": _iso(e.get("published"), e.get("published_parsed"))
        or _iso(_raw(e, "updated"), _raw(e, "updated_parsed")),
        "content_text": _html_text(html),
        "content_html": html,
        "url": _entry_url(e, url),
        "parent": parent,
    }
