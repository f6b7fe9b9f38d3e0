"""Pages of the site in the post template, told from posts by the blog's listings (issue 30).

A blog lists its posts: the home page and its pages, archives, categories, tags. A site's own
pages (books, a privacy policy, a gallery's albums, a project page) may share the posts'
template, date and byline, and a feed that carries every page of the site (Hugo's) or a
sitemap may name them, yet no listing of the blog lists them. Where the listings the crawl
read list nearly every post it found, a record that none of them lists is such a page: it is
kept, marked as a page, not a post. Where they list too few (a blog whose older posts are
reached only through each post's previous/next links), nothing is concluded.

Which of two URLs of one post is the blog's own is also judged there (`rehomed`): while the
crawl reads, a copy under a stray folder may be read before the post's URL, when too few posts
are known to tell the blog's scheme.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from urllib.parse import urlsplit

from tasks.discover.candidates import lists_posts, url_scheme
from tasks.text.similarity import normalize_text

MIN_POSTS = 10  # records before the listings' cover means anything
MIN_COVER = 0.9  # share of the records the listings list, before the rest count as pages
MAX_SHARE = 0.1  # at most this share of the records is ever turned into pages
MIN_COPY_CHARS = 40  # text two records share before one is a copy of the other
MIN_SCHEME = 3  # posts a URL scheme holds before it is the blog's (and twice the other's)


def url_form(url: str) -> str:
    """A URL as a listing and a record may both write it: no scheme, no `www.`, no fragment,
    no trailing slash or index file."""
    p = urlsplit(url)
    host = (p.hostname or "").lower().removeprefix("www.")
    path = p.path
    for index in ("index.html", "index.htm", "index.php"):
        if path.endswith("/" + index):
            path = path[: -len(index)]
    path = path.rstrip("/")
    return f"{host}{':' + str(p.port) if p.port else ''}{path}" + (f"?{p.query}" if p.query else "")


def unlisted(records: list[str], slots: list[list[str]], aliases: dict[str, str] | None = None,
             min_posts: int = MIN_POSTS, min_cover: float = MIN_COVER) -> list[str]:
    """The record URLs that no listing lists, where the listings list at least `min_cover` of
    the records (and at most MAX_SHARE of them would be left); else none. `slots`: the pages'
    slots of links (tasks.discover.candidates.listing_slots), judged now that the crawl knows its
    posts: a slot lists posts where a few of its links, or most, are records. `aliases`: other
    URLs of a record's post (url -> the record's: a copy whose body the record took, a duplicate),
    which a listing may name instead (a mirror's listing naming a post's /permalink/ copy): they
    keep a record a post where the listings' own names prove the cover, and never make a cover
    (a mirror whose every link names a `?p=N` copy proves nothing of its listings)."""
    if len(records) < min_posts:
        return []
    known = {url_form(u) for u in records}
    listed = _listed(slots, known, {})
    if len(listed & known) < min_cover * len(records):
        return []
    owner = _owners(aliases, known)
    listed |= _listed(slots, known | set(owner), owner)
    out = [u for u in records if url_form(u) not in listed]
    if not out or len(out) > MAX_SHARE * len(records):
        return []
    return sorted(out)


def menu_pages(menu: list[str], records: list[str], slots: list[list[str]],
               aliases: dict[str, str] | None = None) -> list[str]:
    """The records among `menu` (pages the blog's menu links, read as posts) that no listing
    lists: the site's own pages in the post template. A post the menu points at (a series'
    first part) is listed with the others, by a category or an archive, whatever the cover."""
    known = {url_form(u) for u in records}
    mine = [u for u in menu if url_form(u) in known]
    if not mine:
        return []
    owner = _owners(aliases, known)
    listed = _listed(slots, known | set(owner), owner)
    return sorted(u for u in mine if url_form(u) not in listed)


def _owners(aliases: dict[str, str] | None, known: set[str]) -> dict[str, str]:
    """URL form of an alias -> its record's (a copy of a copy followed), for the aliases that
    are no record themselves and whose post is one (`known`)."""
    owner = {url_form(a): url_form(o) for a, o in (aliases or {}).items()}
    for _ in range(3):  # (a copy of a copy)
        owner = {a: owner.get(o, o) for a, o in owner.items()}
    return {a: o for a, o in owner.items() if o in known and a not in known}


def _listed(slots: list[list[str]], known: set[str], owner: dict[str, str]) -> set[str]:
    """The URL forms the slots that list posts name (an alias's as its record's)."""
    listed: set[str] = set()
    for urls in slots:
        forms = [url_form(u) for u in urls]
        if lists_posts(forms, known.__contains__) or (forms and all(f in known for f in forms)):
            # (a short slot whose every link is a post: a date archive of a month with one or two)
            listed.update(owner.get(f, f) for f in forms)
    return listed


def copies(texts: dict[str, str | None], is_post) -> dict[str, str]:
    """Records that show another record's text, under a URL the blog's post pattern does not
    take while the other's does (a category archive holding its one entry under its own
    heading, "Recently in Kyoto photos"): url -> the post's URL. Where both URLs, or
    neither, are the pattern's, nothing is concluded (the body key merges same-titled copies
    as they are read, workers/discover/posts.py)."""
    groups: dict[str, list[str]] = defaultdict(list)
    for url, text in texts.items():
        body = normalize_text(text or "")
        if len(body) >= MIN_COPY_CHARS:
            groups[body].append(url)
    out: dict[str, str] = {}
    for urls in groups.values():
        owners = sorted(u for u in urls if is_post(u))
        if len(urls) > 1 and owners:
            out.update({u: owners[0] for u in urls if u not in owners})
    return out


def rehomed(records: list[str], aliases: dict[str, str], mine, held,
            slots: list[list[list[str]]] | None = None) -> dict[str, str]:
    """owner -> url: records whose post another URL showed too (`aliases`: url -> the record's
    URL), where that URL is the blog's (`mine`: its post pattern or its feed gives it) and the
    record's is no feed's own (`held`), and either its URL scheme holds at least twice as many
    of the crawl's posts (MIN_SCHEME at least) as the record's, or, in the same scheme, more of
    the blog's listing pages name it (`slots`: each page's slots of links). A mirror's
    `/permalink/slug.html` copy read before the post's `/a/170-slug.html`, when the crawl knew
    too few posts to tell which scheme is the blog's (workers.discover.posts.takes_over), gives
    its record back; so does a post's old name (`p66.html`, renamed from its number to its
    title) read before the name most listings give it."""
    counts = Counter(url_scheme(u) for u in records)
    known, out = set(records), {}
    named = _named(slots or [], {url_form(u) for u in records} | {url_form(u) for u in aliases})
    for url, owner in sorted(aliases.items()):
        if owner not in known or url in known or owner in out or url in out.values():
            continue
        if not mine(url) or held(owner):
            continue
        a, b = url_scheme(url), url_scheme(owner)
        if a != b and counts[a] >= max(MIN_SCHEME, 2 * counts[b]) \
                or a == b and named[url_form(url)] > named[url_form(owner)]:
            out[owner] = url
    return out


def _named(pages: list[list[list[str]]], known: set[str]) -> Counter:
    """URL form -> how many pages name it in a slot that lists posts (a few or most of its links known)."""
    named: Counter = Counter()
    for slots in pages:
        on_page: set[str] = set()
        for urls in slots:
            forms = [url_form(u) for u in urls]
            if lists_posts(forms, known.__contains__):
                on_page.update(forms)
        named.update(on_page)
    return named
