"""URLs of a blog: one spelling per page, the links of a page, and which links are posts.

`canonical` keeps the crawler from fetching a page twice under two spellings;
`learn_post_pattern` is the paper's post identification: a regular expression
generalised from the post URLs the feed lists, that also holds for the posts
the feed no longer lists, and rejects the home, feed, archive and pagination
pages; `url_features` feeds the download-priority estimator.
"""
from __future__ import annotations

import math
import re
import urllib.parse
from collections import Counter
from functools import lru_cache

import lxml.html
from lxml import etree

__all__ = ["canonical", "same_site", "extract_links", "anchors_to", "learn_post_pattern", "is_post",
           "url_features", "FEATURE_NAMES", "TRACKING_PARAMS"]

# Query parameters that make a second URL for the same page (analytics, sharing,
# comment-reply forms, sessions, mobile switches): dropped by `canonical`.
TRACKING_PARAMS = {
    "fbclid", "gclid", "dclid", "gbraid", "wbraid", "msclkid", "yclid", "twclid", "igshid",
    "mc_cid", "mc_eid", "_ga", "_gl", "_hsenc", "_hsmi", "mkt_tok", "ncid", "cmpid", "wt_mc",
    "replytocom", "share", "shared", "spref", "ref", "ref_src", "ref_url", "showcomment",
    "like_comment", "nb", "amp", "phpsessid", "jsessionid", "sessionid", "sid", "s_cid",
    "fb_action_ids", "fb_action_types", "fb_source", "action_object_map", "action_type_map",
    "action_ref_map", "hootpostid", "__s", "vero_id", "oly_enc_id", "oly_anon_id", "rb_clickid",
}
_DEFAULT_PORTS = {"http": 80, "https": 443}
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_PCT = re.compile(r"%([0-9A-Fa-f]{2})")
# A directory's index file is the directory (static mirrors link both spellings).
_DIR_INDEX = re.compile(r"/index\.html?$", re.I)


# ---------------------------------------------------------------- canonical form

def _fix_escapes(s: str, safe: str) -> str:
    """Upper-case %xx, decode escaped unreserved characters, encode what must be."""
    def one(m):
        ch = chr(int(m.group(1), 16))
        return ch if ch in _UNRESERVED else "%" + m.group(1).upper()
    s = _PCT.sub(one, s)
    return urllib.parse.quote(s, safe=safe + "%")


def _remove_dot_segments(path: str) -> str:
    """RFC 3986, 5.2.4."""
    if "." not in path:
        return path
    out: list[str] = []
    segments = path.split("/")
    for i, seg in enumerate(segments):
        if seg == ".":
            if i == len(segments) - 1:
                out.append("")
        elif seg == "..":
            if len(out) > 1:
                out.pop()
            if i == len(segments) - 1:
                out.append("")
        else:
            out.append(seg)
    result = "/".join(out)
    if path.startswith("/") and not result.startswith("/"):
        result = "/" + result
    return result


def _netloc(parts: urllib.parse.SplitResult, scheme: str) -> str:
    host = (parts.hostname or "").rstrip(".")
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        return parts.netloc.lower()
    userinfo = parts.netloc.rpartition("@")[0] if "@" in parts.netloc else ""
    netloc = (userinfo + "@" if userinfo else "") + host
    if port is not None and port != _DEFAULT_PORTS.get(scheme):
        netloc += f":{port}"
    return netloc


def _keep_param(pair: str) -> bool:
    key, _, value = pair.partition("=")
    key = urllib.parse.unquote_plus(key).strip().lower()
    if not key and not value:
        return False
    if key.startswith("utm_") or key in TRACKING_PARAMS:
        return False
    if key == "m" and value in ("0", "1"):  # Blogger's mobile switch (WordPress ?m=201403 is an archive)
        return False
    return True


_SAVED_QUERY = re.compile(r"%3F", re.I)


def _without_saved_tracking(path: str) -> str:
    """A static mirror's copy of a page under a query it drops (wget and HTTrack save
    `post.html?showComment=1` as a file linked `post.html%3FshowComment=1.html`): the page
    itself, where every parameter of the saved query is one `canonical` drops. Other saved
    queries (`search%3Fupdated-max=...`, `index.html%3Fp=12.html`) name pages of their own."""
    base, saved = _SAVED_QUERY.split(path, 1)
    saved = urllib.parse.unquote(saved)
    saved = re.sub(r"\.html?$", "", saved, flags=re.I)  # the extension the mirror added
    if not base or not saved or any(_keep_param(p) for p in saved.split("&")):
        return path
    return base


# URL caches hold 8,192 entries (a blog's pages repeat the same few hundred links): at 65,536
# they grew a long-lived worker by about 80 MB across its caches (issue 22)
@lru_cache(maxsize=8192)
def canonical(url: str) -> str:
    """One spelling per page: lower-case scheme and host, no fragment, no default
    port, dot segments resolved, escapes normalised, `dir/index.html` as `dir/`, tracking and duplicate-making
    query parameters dropped (utm_*, fbclid, replytocom, share, ...), the rest kept
    in order. Never raises; what cannot be parsed comes back stripped."""
    url = (url or "").strip()
    try:
        parts = urllib.parse.urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https", "") or (not parts.netloc and scheme):
            return urllib.parse.urlunsplit(parts._replace(scheme=scheme, fragment=""))
        netloc = _netloc(parts, scheme) if parts.netloc else ""
        path = re.sub(r";(?:jsessionid|phpsessid|sid)=[^/]*", "", parts.path, flags=re.I)
        path = _fix_escapes(_remove_dot_segments(path), safe="/:@!$&'()*+,;=")
        if not path and netloc:
            path = "/"
        if "%3f" in path.lower():
            path = _without_saved_tracking(path)
        query = "&".join(_fix_escapes(p, safe="=:@!$'()*+,;/?")
                         for p in parts.query.split("&") if _keep_param(p))
        if not query:
            path = _DIR_INDEX.sub("/", path)
        return urllib.parse.urlunsplit((scheme, netloc, path, query, ""))
    except (ValueError, TypeError):
        return url


def _site(url: str) -> str:
    try:
        parts = urllib.parse.urlsplit(url.strip())
        host = (parts.hostname or "").rstrip(".")
        port = parts.port
    except (ValueError, AttributeError):
        return ""
    if host.startswith("www."):
        host = host[4:]
    if port is not None and port != _DEFAULT_PORTS.get(parts.scheme.lower()):
        host += f":{port}"
    return host


def same_site(url: str, home: str) -> bool:
    """Same host and port, `www.` folded and scheme ignored (blogs move to https).
    A blog under a path prefix is the caller's business."""
    a = _site(url)
    return bool(a) and a == _site(home)


# ---------------------------------------------------------------- links

_SKIP_SCHEMES = re.compile(r"^\s*(?:javascript|mailto|tel|data|ftp|file|about|sms|callto|skype):", re.I)


def _root(root_or_html):
    if isinstance(root_or_html, (str, bytes)):
        data = root_or_html
        if isinstance(data, str):
            data = re.sub(r"^\s*<\?xml[^>]*>", "", data)
        if not data.strip():
            return None
        try:
            return lxml.html.fromstring(data)
        except (etree.ParserError, ValueError):
            return None
    if hasattr(root_or_html, "getroot"):
        return root_or_html.getroot()
    return root_or_html


_LINKING = {"a": "href", "frame": "src"}  # (not iframes: embeds, comment widgets, a post's own /embed/ copy)


def anchors_to(root, base_url: str, wanted):
    """(a, canonical URL) of the page's links to one of `wanted`, in document order."""
    for a in root.iter("a"):
        href = a.get("href")
        if not href:
            continue
        try:
            u = canonical(urllib.parse.urljoin(base_url, href))
        except ValueError:
            continue
        if u in wanted:
            yield a, u


def extract_links(root_or_html, base_url: str) -> list[str]:
    """The page's a[href] links and its frames' pages (frame[src]: a frameset home's whole content,
    the blog often in one of them): absolute (against <base href> when present),
    http(s) only, canonical, de-duplicated in document order. Feeds, archives,
    off-site links all included: the caller filters."""
    root = _root(root_or_html)
    if root is None:
        return []
    base = base_url
    for el in root.iter("base", "{http://www.w3.org/1999/xhtml}base"):
        href = el.get("href")
        if href and href.strip():
            base = urllib.parse.urljoin(base_url, href.strip())
            break
    out: dict[str, None] = {}
    for el in root.iter(*_LINKING, *(f"{{http://www.w3.org/1999/xhtml}}{t}" for t in _LINKING)):
        href = el.get(_LINKING[el.tag.rpartition("}")[2]])
        if not href or _SKIP_SCHEMES.match(href):
            continue
        href = href.strip()
        if not href or href.startswith("#"):
            continue
        # an absolute href means the same on every page: resolved once per process
        url = _resolve("" if _ABSOLUTE.match(href) else base, href)
        if url:
            out.setdefault(url, None)
    return list(out)


_ABSOLUTE = re.compile(r"https?://", re.I)


@lru_cache(maxsize=8192)
def _resolve(base: str, href: str) -> str | None:
    """The canonical http(s) address an href names on a page at `base`, or None."""
    try:
        url = urllib.parse.urljoin(base, href)
        if urllib.parse.urlsplit(url).scheme.lower() not in ("http", "https"):
            return None
        url = canonical(url)
        return url if urllib.parse.urlsplit(url).netloc else None
    except ValueError:  # "http://[bad/"
        return None


# ---------------------------------------------------------------- post pattern

_INDEX = re.compile(r"^index\.(?:html?|php)$", re.I)
_INDEX_TAIL = r"(?:index\.(?:html?|php))?"
_RESERVED = ("page", "tag", "tags", "category", "categories", "author", "authors", "feed", "feeds",
             "rss", "atom", "search", "archive", "archives", "comments", "comment-page-\\d+", "label",
             "wp-content", "wp-admin", "wp-includes", "wp-json", "trackback", "attachment")
_RESERVED_RE = re.compile(r"^(?:" + "|".join(_RESERVED) + r")$", re.I)
_NOT_RESERVED = r"(?!(?:" + "|".join(_RESERVED) + r")(?:/|$))"
_DIGITS = re.compile(r"^\d+$")
_NO_MATCH = r"(?!)"


@lru_cache(maxsize=8192)
def _target(url: str) -> str:
    """What the post pattern is matched against: the canonical path and query."""
    try:
        parts = urllib.parse.urlsplit(canonical(url))
    except ValueError:  # "http://[bad/": not a URL of any blog
        return ""
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def _split(target: str) -> tuple[tuple, list[str], list[tuple[str, str]]]:
    path, _, query = target.partition("?")
    segs = path.split("/")[1:]
    slash = not segs or segs[-1] == "" or bool(_INDEX.match(segs[-1]))
    if segs and (segs[-1] == "" or _INDEX.match(segs[-1])):
        segs = segs[:-1]
    pairs = [tuple(p.partition("=")[::2]) for p in query.split("&")] if query else []
    shape = (len(segs), slash, tuple(k for k, _ in pairs))
    return shape, segs, pairs


def _literal_edge(values: list[str]) -> str:
    """The longest common non-digit prefix that ends on punctuation, or before digits in all values."""
    common = []
    for chars in zip(*values):
        if len(set(chars)) != 1 or chars[0].isdigit():
            break
        common.append(chars[0])
    c = "".join(common).partition("%")[0]  # (an edge ends before an escaped character)
    if not c:
        return ""
    if all(len(v) > len(c) and v[len(c)].isdigit() for v in values):
        return c
    for i in range(len(c), 0, -1):
        if not c[i - 1].isalnum():
            return c[:i]
    return ""


def _peel(values: list[str], wild: str) -> tuple[list[str], list[str]]:
    """Regex pieces for the typed prefix shared by all values (digit runs of one length,
    punctuation-bounded literals), and the remainders."""
    pieces: list[str] = []
    rem = list(values)
    while True:
        if any("%" in v[:3] for v in rem):  # a percent-escaped character (or one read backwards) is text,
            break  # not an edge: slugs in another script all start with "%E" and a digit
        if all(v[:1].isdigit() for v in rem):
            runs = [re.match(r"\d+", v).group() for v in rem]
            pieces.append(r"\d+")
            rem = [v[len(r):] for v, r in zip(rem, runs)]
            continue
        if any(not v for v in rem):
            break
        lit = _literal_edge(rem)
        if not lit:
            break
        pieces.append(re.escape(lit))
        rem = [v[len(lit):] for v in rem]
    return pieces, rem


def _slug_like(value: str) -> bool:
    return bool(re.search(r"[-_+]|%[0-9A-F]{2}", value)) or len(value) >= 25 or "." in value


_EXT = re.compile(r"\.[A-Za-z0-9]{1,5}$")


def _column(values: list[str], wild: str, few: bool) -> str:
    """Generalise the values one URL part takes across the post URLs.

    `few`: under three post URLs a lone value may still be a slug (words joined by
    dashes, an .html name): generalised rather than kept literal.
    """
    if all(_DIGITS.match(v) for v in values):
        return _number_column(values)
    if len(set(values)) == 1 and not (few and _slug_like(values[0])):
        return re.escape(values[0])
    ext = _common_extension(values)
    if ext:
        values = [v[: -len(ext)] for v in values]
    left, mid, right = _typed_edges(values, wild)
    middle = _middle_class(mid, wild)
    if middle and not left and not any(_RESERVED_RE.match(v) for v in values):
        middle = _NOT_RESERVED + middle  # a slug column must not take /feed/, /page/...
    return "".join(left) + middle + "".join(right) + (re.escape(ext) if ext else "")


def _number_column(values: list[str]) -> str:
    """Numbers are never literal: a feed window within one year or month still stands for
    posts of every year (\\d{4}) and month (\\d{2}); ids grow (\\d+)."""
    lengths = {len(v) for v in values}
    if lengths == {4} and all(v[:2] in ("19", "20") for v in values):
        return r"\d{4}"
    if lengths == {2} and all(1 <= int(v) <= 31 for v in values):
        return r"\d{2}"
    return r"\d+"


def _common_extension(values: list[str]) -> str | None:
    """The file extension (.html) every value ends with, if they share one."""
    exts = {m.group() if m else None for m in map(_EXT.search, values)}
    return exts.pop() if len(exts) == 1 else None


def _typed_edges(values: list[str], wild: str) -> tuple[list[str], list[str], list[str]]:
    """(left pieces, what the values have between their edges, right pieces): typed edges
    (a date prefix, a fixed suffix) only from enough distinct examples to be a rule."""
    if len(set(values)) < 3:
        return [], values, []
    left, rem = _peel(values, wild)
    right_rev, mid_rev = _peel([v[::-1] for v in rem], wild)
    right = [_reverse_piece(p) for p in reversed(right_rev)]
    return left, [v[::-1] for v in mid_rev], right


def _middle_class(mid: list[str], wild: str) -> str:
    """What stands for the values' middles: nothing, wild* when some are empty, else wild+."""
    if all(not v for v in mid):
        return ""
    return wild + ("*" if any(not v for v in mid) else "+")


def _reverse_piece(piece: str) -> str:
    if piece.startswith(r"\d"):  # a digit class reads the same both ways
        return piece
    return re.escape(re.sub(r"\\(.)", r"\1", piece)[::-1])


def _group_pattern(rows: list[tuple[list[str], list[tuple[str, str]]]], shape: tuple, few: bool) -> str:
    nseg, slash, keys = shape
    parts = []
    for j in range(nseg):
        parts.append("/" + _column([segs[j] for segs, _ in rows], "[^/]", few))
    body = "".join(parts)
    if slash:
        body += "/" + _INDEX_TAIL
    if keys:
        qs = []
        for j, key in enumerate(keys):
            values = [pairs[j][1] for _, pairs in rows]
            qs.append(re.escape(key) + "=" + _column(values, "[^&]", few))
        body += r"\?" + "&".join(qs)
    return body


def _matches(body: str, targets: list[str]) -> list[str]:
    rx = re.compile(f"^(?:{body})$")
    return [t for t in targets if rx.match(t)]


def _specialise(rows, shape, others, few) -> tuple[str, list]:
    """Drop rows that make the group's pattern swallow non-post URLs: where one
    value dominates a column (an outlier page among posts), keep only its rows."""
    body = _group_pattern(rows, shape, few)
    for _ in range(shape[0] + len(shape[2])):
        if not _matches(body, others):
            break
        narrowed = None
        for j in range(shape[0] + len(shape[2])):
            col = [segs[j] if j < shape[0] else pairs[j - shape[0]][1] for segs, pairs in rows]
            value, count = Counter(col).most_common(1)[0]
            if 1 < len(set(col)) and count >= max(2, len(col) * 2 / 3):
                narrowed = [r for r, v in zip(rows, col) if v == value]
                break
        if narrowed is None:
            break
        rows = narrowed
        body = _group_pattern(rows, shape, few)
    return body, rows


def learn_post_pattern(post_urls: list[str], other_urls: list[str] = ()) -> str:
    """A regular expression for the blog's post URLs, matched against the path and
    query of a canonical URL (see `is_post`).

    Generalised per URL structure (same depth, trailing slash, query keys):
    fixed segments stay literal, numbers become \\d{n}, slugs [^/]+ with their
    typed edges (date prefixes, .html suffixes) kept. When one structure holds
    most (2/3) of the feed's URLs, the rest are taken as non-post outliers (a
    FAQ page in the feed); otherwise all structures are alternatives. It must
    match none of `other_urls` (home, feed, archive, pagination pages of the same
    site): outlier values are dropped, and a last resort excludes them by name.
    """
    posts = [u for u in dict.fromkeys(post_urls or []) if u]
    if not posts:
        return _NO_MATCH
    hosts = {_site(u) for u in posts}
    post_targets = {_target(u) for u in posts}
    others = sorted({_target(u) for u in other_urls or [] if u and _site(u) in hosts} - post_targets)
    few = len(post_targets) < 3
    bodies = [_specialise(rows, shape, others, few)[0] for shape, rows in _post_shapes(post_targets)]
    body = bodies[0] if len(bodies) == 1 else "(?:" + "|".join(bodies) + ")"
    return f"^{_excluding(body, others)}$"


def _post_shapes(post_targets: set[str]) -> list[tuple[tuple, list]]:
    """The post URLs grouped by structure (depth, trailing slash, query keys), largest first;
    only the largest when it holds 2/3 of them (the rest are outliers, not post URLs)."""
    groups: dict[tuple, list] = {}
    for t in sorted(post_targets):
        shape, segs, pairs = _split(t)
        groups.setdefault(shape, []).append((segs, pairs))
    ranked = sorted(groups.items(), key=lambda kv: -len(kv[1]))
    if len(ranked) > 1 and len(ranked[0][1]) >= len(post_targets) * 2 / 3:
        return ranked[:1]
    return ranked


def _excluding(body: str, others: list[str]) -> str:
    """The pattern with the non-post URLs it still matches excluded by name (the last resort)."""
    leaked = _matches(body, others)
    if leaked:
        body = "(?!(?:" + "|".join(re.escape(t) for t in leaked) + ")$)" + body
    return body


@lru_cache(maxsize=256)
def _compiled(pattern: str):
    return re.compile(pattern)


def is_post(url: str, pattern: str) -> bool:
    """Whether the URL's canonical path and query match a learned post pattern."""
    if not url or not pattern:
        return False
    try:
        return _compiled(pattern).match(_target(url)) is not None
    except re.error:
        return False


# ---------------------------------------------------------------- features

FEATURE_NAMES = [
    "depth", "digits_path", "digits_query", "query_params", "query_len", "path_len",
    "year", "month", "day", "pagination", "page_number", "trailing_slash", "html_ext",
    "slug_words", "home", "kw_tag", "kw_category", "kw_archive", "kw_page", "kw_author",
    "kw_feed", "kw_forum", "kw_wiki", "kw_search", "kw_comment", "kw_asset", "kw_account",
    "kw_blog", "kw_post",
]
_KEYWORDS = {
    "kw_tag": r"tags?|labels?|topics?|keywords?",
    "kw_category": r"categor(?:y|ies)|cat|section|sections",
    "kw_archive": r"archives?|archivo|archiv|calendar|sitemap",
    "kw_page": r"page|pages|paged|pg|seite|pagina|p\d+",
    "kw_author": r"authors?|users?|members?|profile|people|auteur|autor",
    "kw_feed": r"feeds?|rss|atom|rdf|xml",
    "kw_forum": r"forums?|threads?|topic|viewtopic|showthread|board|boards|discussions?|t|f|phpbb|community",
    "kw_wiki": r"wiki|w|index\.php|special|talk|mediawiki|edit|history|revision",
    "kw_search": r"search|find|query|s|q",
    "kw_comment": r"comments?|replies|reply|respond|comment-page-\d+|replytocom",
    "kw_asset": r"wp-content|uploads?|static|media|images?|img|assets?|files?|download|css|js",
    "kw_account": r"login|logout|register|signup|sign-in|wp-admin|wp-login\.php|admin|account|cart",
    "kw_blog": r"blog|blogs|weblog|news",
    "kw_post": r"posts?|articles?|entry|entries|story|stories|p|item|\d{4}-\d{2}-\d{2}.*",
}
_KEYWORD_RX = {k: re.compile(r"^(?:" + v + r")$", re.I) for k, v in _KEYWORDS.items()}
_PAGINATION = re.compile(r"(?:^|/)(?:page|seite|pagina|pg)[/-]?\d+(?:/|$)|[?&](?:page|paged|pg|start|"
                         r"offset|start-index|updated-max|before|after|from)=[^&]*", re.I)
_PAGE_NUMBER = re.compile(r"(?:page|seite|pagina|pg|paged)[/=-]?(\d+)", re.I)


def _log(n: float) -> float:
    return math.log1p(max(0.0, n))


def url_features(url: str) -> list[float]:
    """Numbers describing a URL for the link-count estimator (FEATURE_NAMES); see _features."""
    return list(_features(url))


@lru_cache(maxsize=8192)
def _features(url: str) -> tuple[float, ...]:
    """Numbers describing a URL for the link-count estimator (FEATURE_NAMES).

    Counts are log-scaled and flags 0/1 so that the Euclidean distance of the
    k-nearest-neighbour regression weighs them alike, with no fitted scaler.
    """
    path, query = _path_and_query(url)
    segs = [s for s in path.split("/") if s]
    feats = {**_size_features(path, query, segs), **_date_features(path, segs),
             **_paging_features(path, query), **_form_features(path, query, segs),
             **_keyword_features(query, segs)}
    return tuple(float(feats[name]) for name in FEATURE_NAMES)


def _path_and_query(url: str) -> tuple[str, str]:
    """The canonical URL's unquoted path ("/" at least) and query."""
    try:
        parts = urllib.parse.urlsplit(canonical(url or ""))
    except ValueError:  # "http://[bad/": the features of an empty URL
        parts = urllib.parse.urlsplit("")
    return urllib.parse.unquote(parts.path or "/"), parts.query


def _size_features(path: str, query: str, segs: list[str]) -> dict[str, float]:
    return {
        "depth": _log(len(segs)),
        "digits_path": _log(sum(c.isdigit() for c in path)),
        "digits_query": _log(sum(c.isdigit() for c in query)),
        "query_params": _log(len([p for p in query.split("&") if p])),
        "query_len": _log(len(query)) / 2,
        "path_len": _log(len(path)) / 2,
    }


_YEAR = re.compile(r"(?:19[89]\d|20\d\d)")
_DATE_PATH = re.compile(r"/(?:19[89]\d|20\d\d)(/(?:0?[1-9]|1[0-2]))?(/(?:0?[1-9]|[12]\d|3[01]))?(?:/|$)")


def _date_features(path: str, segs: list[str]) -> dict[str, float]:
    """A year segment, and a /year/month(/day) path."""
    date = _DATE_PATH.search(path)
    return {
        "year": 1.0 if any(_YEAR.fullmatch(s) for s in segs) else 0.0,
        "month": 1.0 if date and date.group(1) else 0.0,
        "day": 1.0 if date and date.group(2) else 0.0,
    }


def _paging_features(path: str, query: str) -> dict[str, float]:
    """A listing page of a series (/page/3, ?paged=3), and its number."""
    page = _PAGE_NUMBER.search(path + "?" + query)
    return {
        "pagination": 1.0 if _PAGINATION.search(path + ("?" + query if query else "")) else 0.0,
        "page_number": _log(int(page.group(1))) if page and len(page.group(1)) < 7 else 0.0,
    }


def _form_features(path: str, query: str, segs: list[str]) -> dict[str, float]:
    """How the URL ends: a slash, a file extension, a slug of words; or the bare home page."""
    last = segs[-1] if segs else ""
    last_stem = re.sub(r"\.[A-Za-z0-9]{1,5}$", "", last)
    return {
        "trailing_slash": 1.0 if path.endswith("/") else 0.0,
        "html_ext": 1.0 if re.search(r"\.(?:s?html?|php|aspx?|jsp)$", last, re.I) else 0.0,
        "slug_words": _log(len(re.split(r"[-_]+", last_stem))) if re.search(r"[-_]", last_stem) else 0.0,
        "home": 1.0 if not segs and not query else 0.0,
    }


def _keyword_features(query: str, segs: list[str]) -> dict[str, float]:
    """Which kinds of page the URL's words name (tag, archive, forum, account ...): path
    segments (with and without extension) and query keys."""
    tokens = {t.lower() for s in segs for t in (s, _EXT.sub("", s))}
    tokens |= {k.lower() for k, _, _ in (p.partition("=") for p in query.split("&")) if k}
    return {name: 1.0 if any(rx.match(t) for t in tokens) else 0.0 for name, rx in _KEYWORD_RX.items()}
