"""Which pages are posts, and under which URL, between tasks/discover and the Redis state (issue 15).

    settle(...)          after a page is read: its canonical URL (the record's `url`); a page outside
                         the post patterns that the learned rules read as a post of the blog's template
                         becomes one, and its URL shape gains support as a further post pattern
    takes_over(...)      two URLs serving the same post (title and text) give one record
    link_pattern(...)    the main pattern and the supported further ones: which links to fetch first
    listed_on(...)       the slots of links a page may list posts in, kept for the crawl's end
                         (tasks/discover/unlisted.py: a page no listing lists is no post)

What the fetched URL is (a post by its URL, a listing, below a post) comes decided, a
tasks.discover.kinds.UrlKind; the page's canonical URL, where it differs, is asked here once.
"""
from __future__ import annotations

import re
from collections import Counter

from tasks.discover.announced import archive_key
from tasks.discover.candidates import (MIN_LISTED, comment_feeds, keyed_slots, listed_links, listing_slots, lists_posts,
                                       navigation_links, url_scheme)
from tasks.discover.canonical import body_key, page_canonical, post_parents
from tasks.discover.kinds import UrlKind, url_kind
from tasks.discover.recognise import built_at, generic_post, template_post
from tasks.extract.fallback import fallback_extract
from tasks.discover.urls import is_post, learn_post_pattern
from tasks.extract.post import extract_root
from tasks.fetch.http import FetchError
from workers.fetch.pages import GONE, cached, page_at

MIN_SUPPORT = 2  # template-recognised posts of one URL shape before the shape counts as a pattern
MAX_PATTERNS = 20  # further patterns used per blog (most supported first)


def link_pattern(pattern: str | None, supported: dict | None) -> str | None:
    """One regex: the learned pattern or any further pattern with enough support."""
    extra = sorted(((int(n), p) for p, n in (supported or {}).items() if int(n) >= MIN_SUPPORT), reverse=True)
    parts = [p for p in [pattern] if p] + [p for _, p in extra[:MAX_PATTERNS]]
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    try:
        combined = "|".join(f"(?:{p})" for p in parts)
        re.compile(combined)
        return combined
    except re.error:
        return pattern


MAX_NOTED = 1000  # links of one page's slots kept for the crawl's end
MAX_SLOTS = 40  # and slots


def listed_on(page) -> list[list[str]]:
    """The slots of links `page` (a page that is no post) may list posts in
    (tasks.discover.candidates.listing_slots), capped: the page's end keeps them, and the crawl's
    end judges them by the posts it found (tasks/discover/unlisted.py)."""
    least = 1 if archive_key(page.final_url) else MIN_LISTED  # a month's archive may list one post
    out, n = [], 0
    for urls in listing_slots(page.root, page.final_url, least)[:MAX_SLOTS]:
        out.append(urls[:MAX_NOTED - n])
        n += len(out[-1])
        if n >= MAX_NOTED:
            break
    return out


def settle(rt, crawl_id: str, url: str, kind: UrlKind, page, rules: dict, pattern: str | None,
           home: str, post: bool, extracted: dict | None, result: dict, generic: bool = False, built=(),
           meta: dict | None = None):
    """(post, extracted, record url) of a page (a tasks.fetch.page.Page: its tree parsed once)
    at `url` of `kind`; `post` is whether it is one so far (by its URL, as the rules read it).
    `meta`: the blog's feed metadata (its author, for the posts whose pages name none, as the
    pattern's posts are read: workers/pipeline._rules_reading).
    `generic`: the blog has no rules, and its posts are recognised by the page-level extractor;
    `built`: the site's build times (a page dated so has no date of its own)."""
    record_url, record = _record_url(rt, crawl_id, url, kind, page.final_url, page.root, pattern, home)
    if post and not kind.entry and record.listing:
        return False, extracted, url  # its canonical is a listing (a paged view of the blog)
    if post or kind.entry or (not rules and not generic):
        return post, extracted, record_url
    if record.listing or (kind.below_post and _parent_known(rt, crawl_id, url, pattern, home)) \
            or in_navigation(rt, crawl_id, home, record_url, pattern):
        return False, extracted, url
    if not rules:  # issue 31: a blog with no rules (yet): the page-level extractor reads it
        got = fallback_extract(page.html, page.final_url, root=page.root)
        if not generic_post(page.root, got, page.final_url):
            return False, None, url
        result["post"] = result["generic"] = True
        _support(rt, crawl_id, record_url, home)
        return True, dict(got, extraction="fallback"), record_url
    extracted = extract_root(page.root, page.html, rules, blog=meta, url=page.final_url)
    if built_at(extracted.get("published"), built):
        extracted = dict(extracted, published=None)  # the site's build time: the page has no date of its own
    if not template_post(page.root, extracted, rules, record_url):
        return False, None, url
    result["post"] = result["template"] = True
    _support(rt, crawl_id, record_url, home)
    return True, extracted, record_url


def _record_url(rt, crawl_id: str, url: str, kind: UrlKind, final_url: str, root, pattern: str | None,
                home: str) -> tuple[str, UrlKind]:
    """The URL the page's record goes under, and its kind: the page's canonical, unless the
    fetched URL is in the blog's permalink scheme (from its feed) and the canonical is not. A
    record URL other than the fetched one is marked seen: the post is read here, not fetched again."""
    named = page_canonical(root, final_url, home)
    named_kind = kind if named == url else url_kind(named, home, pattern)
    record_url, record = (url, kind) if kind.by_pattern and not named_kind.by_pattern else (named, named_kind)
    if record_url != url and not _canonicals_served(rt, crawl_id, record_url):
        return url, kind
    if record_url != url:
        rt.state.r.sadd(rt.keys(crawl_id).seen, record_url)
    return record_url, record


def _canonicals_served(rt, crawl_id: str, named: str) -> bool:
    """Does the blog serve the pages its posts name as their own? Asked once a crawl, of the first
    canonical that is not the page read (then cached: its reading costs nothing more). A copy
    moved to other paths keeps canonicals naming the old ones (a mirror's posts at
    `/posts/...html` all naming `/assets/2006/10/15/slug/`, none served): records go under the
    URLs read there, not under addresses that answer 404. A network error decides nothing."""
    key = rt.keys(crawl_id).crawl
    verdict = rt.state.r.hget(key, "canonicals")
    if verdict in ("served", "gone"):
        return verdict == "served"
    try:
        page_at(rt, crawl_id, named)
    except FetchError as e:
        if e.kind == "http_status" and e.status in GONE:
            if rt.state.r.hsetnx(key, "canonicals", "gone"):  # (said once: workers ask at once)
                rt.state.add_error(crawl_id, named, "canonical", f"the posts name addresses the blog does not serve "
                                   f"({e.message}): records go under the URLs read")
            return rt.state.r.hget(key, "canonicals") == "served"
        return True
    rt.state.r.hsetnx(key, "canonicals", "served")
    return rt.state.r.hget(key, "canonicals") == "served"


_HOME: dict[str, tuple] = {}  # crawl id -> its home page's (menu-only links, comment feeds, listing slots)
MAX_REMEMBERED = 64  # crawls whose home page a process remembers


def _home_links(rt, crawl_id: str, home: str, pattern: str | None = None) -> tuple[frozenset, frozenset, dict]:
    """(the URLs the home page's menus link to and its post listing does not, the comment feeds
    it declares, its slots that list posts: place in the template -> their URLs), per process.
    `pattern`: the blog's post pattern, which tells the listing."""
    got = _HOME.get(crawl_id)
    if got is None:
        page = cached(rt, crawl_id, home)
        if page is not None and not page.garbled:
            def by_pattern(u: str) -> bool:
                return bool(pattern and is_post(u, pattern))

            listed = listed_links(page.root, page.final_url, by_pattern)
            slots = {key: frozenset(urls) for key, urls in keyed_slots(page.root, page.final_url).items()
                     if not key.startswith("tags:") and lists_posts(urls, by_pattern)}
            got = (frozenset(navigation_links(page.root, page.final_url) - listed),
                   frozenset(comment_feeds(page.root, page.final_url)), slots)
        else:
            got = (frozenset(), frozenset(), {})
        if len(_HOME) >= MAX_REMEMBERED:
            _HOME.clear()
        _HOME[crawl_id] = got
    return got


def listed_beside(rt, crawl_id: str, home: str, page, pattern: str | None) -> list[list[str]] | None:
    """The slots of a post's page that sit where the home page lists posts (its sidebar's recent
    entries, placed by the same chain of tags and classes), where they name posts the home
    page's do not: a blog's copy saved over months shows on each post the entries that were
    newest that day, and an entry only those name is still listed by the blog. None where they
    name what the home page names (a live blog: nothing to note)."""
    slots = _home_links(rt, crawl_id, home, pattern)[2]
    if not slots:
        return None
    out, n = [], 0
    for key, urls in keyed_slots(page.root, page.final_url).items():
        if key in slots and not slots[key].issuperset(urls):
            out.append(urls[:MAX_NOTED - n])
            n += len(out[-1])
            if n >= MAX_NOTED or len(out) >= MAX_SLOTS:
                break
    return out or None


def in_navigation(rt, crawl_id: str, home: str, url: str, pattern: str | None = None) -> bool:
    """Does the blog's menu (the home page's nav, header, menus) link to `url`, and its post listing
    not? Such a page is one of the site's own pages (about, projects, a CV), not a post, whatever
    its template; a post the menu points at is listed with the others."""
    nav = _home_links(rt, crawl_id, home, pattern)[0]
    return url in nav or url.rstrip("/") in nav or url.rstrip("/") + "/" in nav


def site_comment_feeds(rt, crawl_id: str, home: str, pattern: str | None = None) -> frozenset:
    """The comment feeds the home page declares: the whole blog's, which name no post's permalink
    (tasks.discover.candidates.declared_permalink)."""
    return _home_links(rt, crawl_id, home, pattern)[1]


def _parent_known(rt, crawl_id: str, url: str, pattern: str | None, home: str) -> bool:
    """Is a URL that `url` extends a post the crawl knows (its feed lists it, or it has a record)?
    An attachment or comment page extends a real post, which links to it (so is read first); a
    post of another section or a deeper scheme (/newsletter/<slug>/ beside /<slug>/ posts) only
    extends what the pattern would take (a section's index, a category)."""
    parents = post_parents(url, lambda u: bool(pattern and is_post(u, pattern)), home)
    if not parents:
        return False
    k, listed = rt.keys(crawl_id), rt.state.listed(crawl_id)  # (issue 33: the process's copy)
    if listed is not None and any(u in listed for u in parents):
        return True
    with rt.state.r.pipeline(transaction=False) as p:
        for u in parents:
            if listed is None:
                p.hexists(k.entries, u)
            p.hexists(k.records, u)
        return any(p.execute())


def _support(rt, crawl_id: str, url: str, home: str) -> None:
    """The URL's shape, generalised as a post pattern, gains one post of support."""
    shape = learn_post_pattern([url], [home])
    if shape and shape != "(?!)":
        rt.state.r.hincrby(rt.keys(crawl_id).patterns, shape, 1)


def body_of(record: dict) -> str | None:
    """The key of a record's body (title + text): two URLs serving one post give one record."""
    return body_key(record.get("title"), record.get("content_text"))


def takes_over(rt, crawl_id: str, record: dict, owner: str, result: dict, pattern: str | None = None,
               entry: dict | None = None) -> bool:
    """Another URL, `owner`, holds this record's body (State.end_page claims it with the save,
    in one step). This URL takes it over (and `owner` leaves the output) when it is the blog's
    permalink (a feed entry or the learned pattern) and `owner` is not (a legacy `?p=N` copy
    recognised by its template), or when both are and this URL is in the scheme most of the
    blog's posts are under (`_in_main_scheme`: /a/12-slug.html beside a /permalink/slug.html
    copy); else it is a duplicate. The save that follows checks the claim again, in the same
    step, so a taker after it removes this URL in its turn."""
    url = record["url"]
    mine = entry is not None or bool(pattern and is_post(url, pattern))
    owners = rt.state.entry(crawl_id, owner)
    theirs = owners is not None or bool(pattern and is_post(owner, pattern))
    # (a feed's own URL for the post is never taken over by a URL the feed does not give; a pseudo
    # entry, read off the blog's pages without a feed, gives the URL a listing named it by)
    fed = owners is not None and not owners.get("pseudo")
    if mine and (not theirs or ((entry is not None or not fed) and _in_main_scheme(rt, crawl_id, url, owner))):
        rt.state.take_body(crawl_id, body_of(record), owner, url)
        result["replaced"] = owner
        return True
    result["duplicate_of"] = owner
    rt.state.note_alias(crawl_id, url, owner)
    return False


SCHEME_SAMPLE = 200  # the crawl's posts looked at to tell which URL scheme is the blog's


def _in_main_scheme(rt, crawl_id: str, url: str, owner: str) -> bool:
    """Is `url` in a URL scheme (tasks.discover.candidates.url_scheme) that holds at least twice
    as many of the crawl's posts (three at least) as `owner`'s?"""
    mine, theirs = url_scheme(url), url_scheme(owner)
    if mine == theirs:
        return False
    counts = Counter(url_scheme(u) for u in rt.state.r.srandmember(rt.keys(crawl_id).posts, SCHEME_SAMPLE) or [])
    return counts[mine] >= max(3, 2 * counts[theirs])
