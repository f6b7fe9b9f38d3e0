"""An update crawl reads what may be new, not the whole blog again (issue 35, docs/update.md).

Between tasks.discover.recency (what the blog's dates say) and the crawl's Redis state:

    seeds(rt, crawl_id, urls)             the feed's posts to queue: not those dated before `since`
    before_read(rt, crawl_id, url, ctx, kind)   why a popped page is not read, or None
    links(rt, crawl_id, url, ctx, posts, others, ...)  a read page's links an update crawl follows
    skip(rt, crawl_id, reason, urls)      count pages left unread, by reason (workers/discover/skipped.py)
    cover(rt, crawl_id, why)              the new posts are known to be reachable otherwise

The home page's numbered listing is read in page order by workers/discover/home_series.py.

Skipped pages are counted in the crawl's hash (`skip:<reason>`, distinct URLs; the report
shows them). `covered` in the crawl's hash says that something already proves where the
new posts are (the feed reaches past `since`, a sitemap with lastmod, the home page's
listing read down past `since`): other listings (tags, categories, authors) are then left.
A full crawl (no `since`, or a scheduled update) passes through every function unchanged.
"""
from __future__ import annotations

import json

from tasks.discover.recency import (archive_end, at_items_place, day_of, entry_day, items_reach, listing_cut, older,
                                    printed_day, printed_days, reaches_past, record_day, series, since_cut,
                                    twin_days)
from tasks.discover.candidates import navigation_links
from tasks.discover.canonical import is_listing, titled_links
from tasks.discover.traversal import POST_PRIORITY
from tasks.discover.urls import extract_links, is_post
from tasks.text.dates import url_day, url_latest_day
from workers.discover import chain, home_series, lastmods, listed, proof, waits
from workers.discover.skipped import SKIP, revive, skip
from workers.state import Keys, unpack

REASONS = {
    "feed_date": "feed entries dated before since",
    "sitemap_lastmod": "sitemap entries whose lastmod is before since",
    "url_date": "post URLs dated before since",
    "listing_order": "undated posts listed after older ones (listings run newest first)",
    "past_since": "links of listings that show only posts older than since",
    "old_post": "links of posts older than since",
    "archive": "date archives that end before since",
    "pagination": "listing pages past the first one showing only posts older than since",
    "covered": "other listings (tags, categories...): the new posts were reached otherwise",
    "sitemap_guess": "usual sitemap paths not asked: the new posts were reached otherwise",
    "sitemap_nested": "sitemaps a sitemap index names, not read: the new posts were reached otherwise",
    "printed_date": "pages a listing dates before since, outside the post pattern (older posts of another URL scheme)",
    "held_old": "posts held from an earlier crawl, published before since",
    "held": "posts held from an earlier crawl that nothing says changed",
    "unchanged": "pages unchanged since an earlier crawl (HTTP 304)",
    "image_page": "pages below a post that it links only through an image (an image's own page)",
}
MAX_HOME_POSTS = 200  # the home page's post links kept (a listing's verdict leaves them out)
LATER = "later"  # before_read: not now; parked until the page before it in its listing is read
WAIT = "wait"  # before_read: a listing deferred until the home page's listing is read down past since
WAIT_SECONDS = 2.0  # ... this long at a time,
SOON = "soon"  # before_read: a post deferred until fewer posts above it in its listing are unread,
SOON_SECONDS = 0.5  # ... this long at a time
DEFER = {WAIT: WAIT_SECONDS, SOON: SOON_SECONDS}  # before_read's answers that defer the page: seconds
MAX_HOLDS = 20  # a page of the home's listing waits this many times at most for the page before it
# to be judged by the days of its posts, read (workers/discover/listed.py)
# what proves every new post known: a page that may be a post and that nothing names is left
HOME_COVER, PROVEN = proof.HOME_COVER, proof.PROVEN


def since_of(ctx: dict) -> str | None:
    """The crawl's `since` where it is an update crawl that reads by date, else None; as older()
    is to be given it: without the time zones' margin where the blog's days are exact (the
    blog's `days_exact`, learned with its rules: recency.since_cut)."""
    options = ctx.get("options") or {}
    if not options.get("update") or options.get("scheduled"):
        return None  # a scheduled update's since is the last crawl's time, no publication date
    return since_cut(ctx.get("since"), exact_of(ctx))


def exact_of(ctx: dict) -> bool:
    """Is since_of(ctx) the cut of a blog whose days are exact? Then a feed entry's date with no
    zone of its own keeps its margin by itself (recency.entry_day(e, exact=True))."""
    return bool((ctx.get("blog") or {}).get("days_exact"))


def cover(rt, crawl_id: str, why: str) -> None:
    """The new posts are reachable without the other listings (`why` goes to the report). A
    proof that every new post is known (PROVEN) replaces a cover that is no such proof."""
    proof.cover(rt.state.r, Keys(crawl_id).crawl, why)


# ------------------------------------------------------------------ discovery

def feed_reaches_past(entries: list[dict], since: str) -> bool:
    """Does the feed, newest first, list a post older than `since`? Then every newer post is in
    it. A feed in another order (a blog that orders its posts by hand: its feed and listings
    alike) proves nothing by its oldest entry."""
    days = [day_of(e.get("published") or e.get("updated")) for e in entries if not e.get("pseudo")]
    dated = [d for d in days if d]
    return all(a >= b for a, b in zip(dated, dated[1:])) and any(older(d, since) for d in dated)


def training_order(entries: list[dict], since: str, keep_old: int) -> list[dict]:
    """Training entries for an update crawl: the new ones (read anyway as posts), then at most
    `keep_old` older ones (each a request the output does not need)."""
    new = [e for e in entries if not older(entry_day(e), since)]
    old = [e for e in entries if older(entry_day(e), since)]
    return new + old[:max(0, keep_old - len(new))]


def older_entry(e: dict, since: str, exact: bool = False) -> bool:
    """A feed entry dated before `since` (its published, else updated, else its URL's day;
    `exact`: `since` is the cut of a blog whose days are exact, recency.entry_day)."""
    return older(entry_day(e, exact), since)


def seeds(rt, crawl_id: str, urls: list[str], since: str | None, exact: bool = False) -> list[str]:
    """The feed's post URLs to queue: an update crawl leaves those dated before `since`."""
    if not since or not urls:
        return urls
    raw = rt.state.r.hmget(Keys(crawl_id).entries, urls)
    keep, old = [], []
    for u, e in zip(urls, raw):
        day = entry_day(json.loads(e) if e else {"url": u}, exact)
        (old if older(day, since) else keep).append(u)
    skip(rt, crawl_id, "feed_date", old)
    if keep:  # posts to be read: their previous/next links will be judged (`_unresolved`)
        rt.state.r.hset(Keys(crawl_id).crawl, "new_entries", len(keep))
    return keep


# ------------------------------------------------------------------ a popped page

def before_read(rt, crawl_id: str, url: str, ctx: dict, post: bool, listing: bool) -> str | None:
    """Why an update crawl does not read `url` (a reason of REASONS), or None: read it.
    `post`: a post by its URL; `listing`: a listing or a page below a post, never a post of
    its own (tasks.discover.kinds). A page told to wait (WAIT, SOON) is counted as waiting
    (`waiting`: it takes no hand-out slot) until it is told anything else."""
    if not since_of(ctx):
        return None
    why = _before_read(rt, crawl_id, url, ctx, post, listing)
    if why not in DEFER:
        waits.unwait(rt, crawl_id, url)
    return why


def _before_read(rt, crawl_id: str, url: str, ctx: dict, post: bool, listing: bool) -> str | None:
    since = since_of(ctx)
    home = ctx["blog"]["home"]
    if post:
        return _post_left(rt, crawl_id, url, ctx, since)
    if url == home or ctx.get("sitemap"):
        return None
    end = archive_end(url, home)
    if end and older(end, since):
        return "archive"
    crawl = rt.state.r.hgetall(Keys(crawl_id).crawl)
    s = series(url)
    if s:
        bound = crawl.get("past:" + s[0])
        if bound and s[1] > int(bound):
            return "pagination"
        if s[0] in json.loads(crawl.get("main_series") or "[]"):
            # read in page order: a page ahead of the last one read is parked until that one is
            # read (LATER: in flight no more, not done; `_read_in_series` puts it back)
            if home_series.park(rt, crawl_id, url, s):
                return LATER
            # the posts' own chain read down past since, or a sitemap dating every post made after
            # the feed's newest, proves every new post known: the listing's next pages can add none;
            # while the chain is being read, they wait for it (the posts are read anyway, one after
            # the other, and a host takes them one at a time all the same)
            if crawl.get("covered") in (proof.CHAIN_COVER, proof.SITEMAP_COVER):
                return "covered"
            if _chain_ahead(crawl) and waits.one_more(rt, crawl_id, url, progress=True):
                return WAIT
            # the page before it still judged by the days of its posts, being read: in a moment
            before = crawl.get(f"judging:{s[0]} {s[1] - 1}")
            if before and listed.judging(rt, crawl_id, before) and waits.one_more(rt, crawl_id, url, MAX_HOLDS):
                return WAIT
            return None
    if crawl.get("covered") and listing:  # (a page of another kind may be a post: read)
        return "covered"
    if not listing:  # a page of another kind, which may be a post (listed.py judges it with the posts)
        if ctx.get("entry") is None and rt.state.r.sismember(listed.dated_old_key(crawl_id), url):
            return "printed_date"  # a listing dated it before since (it was queued before: a sitemap's)
        # (a sitemap's lastmod says the page changed, not that it is a post: a new post is proven
        # known by the home's listing or the chain; an attachment or menu page changed is left;
        # where the sitemap itself is the proof, the pages it dates after since are what it names)
        named = crawl.get("covered") == proof.SITEMAP_COVER
        why = _listed_left(rt, crawl_id, url, ctx, crawl.get("covered"), changed=named)
        if why is None and _unresolved(crawl) and _unvouched(rt, crawl_id, url, ctx, changed=named) \
                and not chain.named(rt, crawl_id, url, since) and waits.one_more(rt, crawl_id, url, progress=True):
            return WAIT  # a menu page (about, contact): left once the home's listing reads down past since
        return why
    if listing and (_unresolved(crawl) or _sitemap_ahead(rt, crawl_id)) and waits.one_more(rt, crawl_id, url, progress=True):
        return WAIT  # the home's listing, read in page order, or a sitemap's lastmods may soon say it is not needed
    return None


def _sitemap_ahead(rt, crawl_id: str) -> bool:
    """Is a sitemap queued and not read (nor left) yet: one the blog names, or a usual path asked
    for want of one? Its lastmods may cover the new posts (a blog read thirty category pages, or
    three, by which came first: its sitemap at the usual path is asked once the home page is
    read, and one that is not there makes them wait one request's time)."""
    k = Keys(crawl_id)
    queued = list(rt.state.r.hkeys(k.sitemaps) or ())
    return bool(queued) and not all(rt.state.r.smismember(k.done, queued))


def before_sitemap(rt, crawl_id: str, url: str, ctx: dict) -> str | None:
    """Why an update crawl does not ask a usual sitemap path (a guess, `ctx["sitemap"]`) or a
    sitemap an index names (one a month, a taxonomy's: thirty on a WordPress plugin's index), or
    None: ask. They are asked for posts nothing else leads to: once something covers the new posts
    (the feed reaching past since, the home's listing, the chain) they are left. Where the home
    page has a numbered listing, or the posts' chain is being read, they wait for it as other
    listings do: it says sooner than three guessed paths, and so until the home page is read
    (it says whether it has one); else they never wait (a sitemap that is there may be what
    covers the new posts, by its lastmods)."""
    meta = ctx.get("sitemap") or {}
    if not since_of(ctx) or not (meta.get("guessed") or meta.get("nested")):
        return None
    crawl = rt.state.r.hgetall(Keys(crawl_id).crawl)
    if crawl.get("covered"):
        why = "sitemap_guess" if meta.get("guessed") else "sitemap_nested"
    elif ("home_posts" not in crawl or crawl.get("main_series") or _chain_ahead(crawl)) and _unresolved(crawl) \
            and waits.one_more(rt, crawl_id, url, progress=True):
        why = WAIT  # the home's numbered listing or the posts' chain will soon say (blinkfox-zh: 3 guesses)
    else:
        why = None
    if why not in DEFER:
        waits.unwait(rt, crawl_id, url)
    return why


def _unresolved(crawl: dict) -> bool:
    """Is the home page's listing still to be read (its links not yet followed: a post read
    first may queue a listing), or its numbered pages still being read, not yet past since?
    Or the posts' chain of previous/next links (chain.py) still being read, or not yet judged
    while the feed's new posts are to be read?"""
    if crawl.get("covered") in PROVEN:
        return False
    if "home_posts" not in crawl or crawl.get("held_cover"):
        return True  # (the home's listing past since, its cover waiting for an earlier page of it)
    if _chain_ahead(crawl):
        return True  # (the feed's new posts, about to be read, may link a chain: no listing says more)
    main = json.loads(crawl.get("main_series") or "[]")
    return bool(main) and not any(crawl.get("past:" + m) or crawl.get("ended:" + m) for m in main)


def _chain_ahead(crawl: dict) -> bool:
    """Is the posts' chain of previous/next links being read (chain.py), or not yet judged while
    the feed's new posts are to be read (their pages may link one)?"""
    state = crawl.get(chain.FIELD)
    return state == chain.PENDING or (state is None and bool(crawl.get("new_entries")))


def _listed_left(rt, crawl_id: str, url: str, ctx: dict, covered: str | None, changed: bool = True) -> str | None:
    """Why a page that may be a post is left (or SOON: read once fewer posts above it in its
    listing are unread): listed below its listing's cut (the posts read from the top ran newest
    first down past since), or, once the home page's listing was read down past since
    (`covered`), none of its pages lists it and neither the feed nor (`changed`) a sitemap's
    lastmod after since names it."""
    left, ahead = listed.place(rt, crawl_id, url)
    if left and not _dated_new(rt, crawl_id, url, ctx):
        return "listing_order"
    if ahead >= listed.WINDOW and waits.one_more(rt, crawl_id, url, MAX_HOLDS * 4):
        return SOON  # the posts above it may prove it old: read a few at a time
    if covered in PROVEN and _unvouched(rt, crawl_id, url, ctx, changed):
        return "covered"
    return None


def _unvouched(rt, crawl_id: str, url: str, ctx: dict, changed: bool = True) -> bool:
    """Does nothing say the page may be a new post: no feed entry, no page of the home's listing
    links it, and (`changed`: a post by its URL, which may have been edited) no sitemap lastmod
    after since?"""
    return ctx.get("entry") is None and not (changed and lastmods.named(rt, crawl_id, url, ctx)) \
        and not listed.vouched(rt, crawl_id, url)


def _post_left(rt, crawl_id: str, url: str, ctx: dict, since: str) -> str | None:
    """Why a post by its URL is left: its feed entry dates it before since (a link to it from a
    page read: a neighbour, a widget), `_listed_left` (a day in its URL says it may be new), or
    held from an earlier crawl (`_held`)."""
    entry, exact = ctx.get("entry"), exact_of(ctx)
    if entry and older_entry(entry, since, exact):  # (queued by a link: the feed dates it before since)
        _learned(rt, crawl_id, url, entry_day(entry, exact), ctx["blog"]["home"])  # its listing judged as if read
        return "feed_date"
    if entry is None and url_day(url) and rt.state.r.sismember(listed.dated_old_key(crawl_id), url):
        return "printed_date"  # a listing prints its URL's day, before since
    crawl = rt.state.r.hgetall(Keys(crawl_id).crawl)
    day = url_day(url)
    covered = None if day else crawl.get("covered")
    why = _listed_left(rt, crawl_id, url, ctx, covered) or _held(rt, crawl_id, url, ctx, since)
    # (a URL's day before since's but within the time zones' margin: a listing may show that day)
    unsure = not day or (older(day, since, margin=0) and not older(day, since))
    if why is None and unsure and _unresolved(crawl) and _unvouched(rt, crawl_id, url, ctx) \
            and not chain.named(rt, crawl_id, url, since) and waits.one_more(rt, crawl_id, url, progress=True):
        # a post only other posts link ("read next", related posts), undated: it waits for the
        # home's listing or the chain to say whether it can be new (then it is left or read)
        return WAIT
    return why


def _held(rt, crawl_id: str, url: str, ctx: dict, since: str) -> str | None:
    """A post this blog's records hold from an earlier crawl: left when published before
    `since`, or when nothing says it changed since (its feed entry no newer than the record,
    no sitemap lastmod after `since` named it)."""
    old = rt.state.record(crawl_id, url)
    if old is None:
        return None
    day = _record_day(old, ctx)
    _learned(rt, crawl_id, url, day, ctx["blog"]["home"])  # its listing judged as if read
    if older(day, since):
        return "held_old"
    entry = ctx.get("entry")
    stamp = (entry or {}).get("updated") or (entry or {}).get("published")
    crawled = old.get("crawled_at") or ""
    if entry and stamp and day_of(stamp) and day_of(stamp) > crawled[:10]:
        return None  # the feed says it changed after the record was made
    if lastmods.named(rt, crawl_id, url, ctx):
        return None  # a lastmod after `since` named it: a conditional request tells
    return "held"


# ------------------------------------------------------------------ a read page's links

def links(rt, crawl_id: str, url: str, ctx: dict, posts: list[str], others: list[str], *,
          post: bool, published: str | None, page=None, source: str | None = None,
          title: str | None = None) -> tuple[list[str], list[str], dict]:
    """(posts, others, priorities) an update crawl follows from the page at `url`: a post
    older than `since` or a listing showing only older posts leads nowhere new; post links
    dated before `since` (or listed after older ones) and date archives ending before it are
    left; the home page's listing is read in page order (`priorities`: url -> score). A post's
    `published` is judged as its record carries it (`source`: where the record's day came from;
    recency.record_day: the day its page prints needs no time zones' margin); its `title`
    tells a copy of a post its post's own URL (`_own_url`)."""
    since = since_of(ctx)
    if not since:
        return posts, others, {}
    home = ctx["blog"]["home"]
    if post:
        published = record_day(published, source, exact_of(ctx))
        _learned(rt, crawl_id, url, published, home)
        if page is not None and not page.garbled:  # its previous/next links: a chain down past since?
            # (a neighbour outside the post pattern is a post all the same: a blog with two URL schemes)
            try:
                chain.noted(rt, crawl_id, url, page.root, posts + _maybe(others, home), since, base=page.final_url)
            except Exception as e:  # the chain only saves requests: a page it cannot read is still read
                if isinstance(e, (ConnectionError, TimeoutError)) or type(e).__module__.startswith("redis"):
                    raise  # (Redis down: the page's task is retried as any)
                rt.state.add_error(crawl_id, url, "chain", f"previous/next links unreadable: {type(e).__name__}: {e}")
        if older(published, since):
            skip(rt, crawl_id, "old_post", posts + others)
            return [], [], {}
        _own_url(rt, crawl_id, url, ctx, page, title, posts)
        return _dated_posts(rt, crawl_id, ctx, posts, since, listing=False), _others(rt, crawl_id, url, others, since, home), {}
    _learned(rt, crawl_id, url, None, home)  # read, and no post: no day of its own for the listing it is in
    # pages the post pattern does not take in that may be posts all the same (a blog with two URL
    # schemes: its older posts at /slug/); judged with the posts, in document order
    maybe = _maybe(others, home)
    # a listing's own dates beside its links (a card's <time>), where the URLs carry none
    readable = page is not None and not page.garbled
    # the site's pages its menus name (about, talks, friends) are no posts it lists: no maybe-post,
    # and not among the listing's items (a page of the home's listing vouches for its items)
    menu = navigation_links(page.root, page.final_url) if readable else set()
    if maybe and menu:
        maybe = [u for u in maybe if u not in menu and u.rstrip("/") not in menu]
    printed = printed_days(page.root, page.final_url, posts + maybe, exact_of(ctx)) if readable else {}
    fresh = [u for u, d in printed.items() if not older(d, since)]
    if fresh:  # dated new here: no other listing's cut leaves them (widgets run in their own order)
        rt.state.r.sadd(_dated_new_key(crawl_id), *fresh)
    days = [d or printed.get(u) for u, d in zip(posts, _days(rt, crawl_id, ctx, posts, printed))]
    # the verdict leaves out the post links the home page shows too (a "recent posts" widget on
    # every page would make every listing look new)
    shared = set() if url == home else _home_posts(rt, crawl_id)
    maybe_days = [d or printed.get(u) for u, d in zip(maybe, _days(rt, crawl_id, ctx, maybe, printed))]
    # (a listing all of whose posts the home page shows too, as on a blog whose home lists every
    # post, is judged by them all: nothing on it tells a widget from its own listing); the pages
    # it dates outside the post pattern count as its posts where it dates every post link too (a
    # page of a blog's older posts at /slug/ beside the pattern's newer scheme: no post link at all)
    shown = list(zip(posts, days))
    # (the maybe-posts at the place its post links sit, those it prints a day beside first: not
    # a link in an excerpt, a post citing another, nor a "recent posts" widget's with no day)
    placed = at_items_place(page.root, page.final_url, posts, maybe, printed) if maybe and readable else set(maybe)
    if readable and all(day_of(d) for d in days):
        shown += [(u, d) for u, d in zip(maybe, maybe_days) if day_of(d) and u in placed]
    # the page's links in document order, read once (the verdict's and the scope's sorting)
    order = {u: i for i, u in enumerate(extract_links(page.root, page.final_url))} if maybe and readable else {}
    if len(shown) > len(posts) and readable:
        shown.sort(key=lambda p: order.get(p[0], len(order)))
    own = [(u, d) for u, d in shown if u not in shared] or shown
    past, _ = listing_cut([d for _, d in own], since) if own else (False, [])
    # a listing running newest first down past `since`: its later pages show older posts only
    # (not judged on the home page, whose own links may hold a widget of older posts)
    reach = url != home and not past and reaches_past([d for _, d in own], since)
    _, old = listing_cut(days, since)
    if readable and any(o and not day_of(d) for o, d in zip(old, days)):
        # undated links old by the listing's order: only those where its dated ones sit (its
        # items), not a "recent entries" widget below them (saved when those were new)
        aside = _off_items(page, list(zip(posts, days)))
        old = [o and u not in aside for u, o in zip(posts, old)]
    if url == home:
        rt.state.r.hset(Keys(crawl_id).crawl, "home_posts", json.dumps(list(dict.fromkeys(posts + maybe))[:MAX_HOME_POSTS]))
    # a post whose URL's day is the day the listing prints beside it: the day its page prints
    # (two sources agree: no other item's day), compared without the time zones' margin
    confirmed = {u for u in posts + maybe if (d := url_day(u)) and day_of(printed.get(u)) == d
                 and older(printed_day(d, exact_of(ctx)), since)}
    if confirmed:  # (a day the reader sees: not a time in UTC the listing gives alone)
        seen = printed_days(page.root, page.final_url, posts + maybe, exact_of(ctx), shown_only=True)
        confirmed = {u for u in confirmed if seen.get(u) == printed.get(u)}
    # pages outside the post pattern the listing dates before since: older posts, left when
    # popped (another source may have queued them: a sitemap)
    gone = {u for u, d in zip(maybe, maybe_days) if day_of(d) and older(d, since)} | (confirmed - set(posts))
    # (and a link to one of its dated items but for the trailing slash: an excerpt's "/slug")
    gone |= {u for u, d in twin_days(printed, maybe).items() if older(d, since)}
    if gone or confirmed:
        _dated_old(rt, crawl_id, gone | confirmed)
    if past:
        skip(rt, crawl_id, "past_since", posts + others)
        home_series.past(rt, crawl_id, url, home, others + posts)
        home_series.release(rt, crawl_id, url)
        return [], [], {}
    old = [o or u in confirmed for u, o in zip(posts, old)]
    keep = [u for u, o in zip(posts, old) if not o]
    _count_old(rt, crawl_id, [u for u, o in zip(posts, old) if o], days, posts)
    others = _others(rt, crawl_id, url, others, since, home)
    main = url == home or home_series.in_main_series(rt, crawl_id, url)
    # where the days of its undated posts are learned by reading them, top first (listed.py)
    # those the listing dates before since are old posts as its post links would be (a series'
    # older parts at /slug/ beside the pattern's /2021/05/18/slug/)
    if gone:
        skip(rt, crawl_id, "printed_date", sorted(gone))
        others = [u for u in others if u not in gone]
    # its items: the post links and the maybe-posts among them (a link in an excerpt, an old
    # permalink that redirects, is no item: nothing vouches for it, and a proof leaves it)
    scope = [(u, d) for u, d in list(zip(posts, days)) + [(u, d) for u, d in zip(maybe, maybe_days) if u in placed]
             if (url == home or u not in shared) and u not in menu]
    if maybe and readable:
        scope.sort(key=lambda p: order.get(p[0], len(order)))
    priorities = {} if reach else listed.register(rt, crawl_id, url, [u for u, _ in scope], [d for _, d in scope],
                                                   main=main)
    if url == home and readable and not past and not any(series(u) for u in others + posts) \
            and items_reach(page.root, page.final_url, own, since):
        # the home page's own list (every post, dated, no numbered page: where it has some, they
        # are read in order and prove it, each vouching for its posts) runs newest first down past
        # since: its new posts are every new post (its links above the first old one read)
        listed.vouch(rt, crawl_id, _above_old(scope, since))
        home_series.past(rt, crawl_id, url, home)
    if reach and main:  # its new posts, above the old ones, are the home listing's: read (not `covered`)
        listed.vouch(rt, crawl_id, _above_old(scope, since))
    if reach:  # before the next page of the home's listing is put back (_read_in_series)
        home_series.past(rt, crawl_id, url, home, others + posts)
        others = home_series.before_bound(rt, crawl_id, url, others)
    if main:
        if priorities and (s := series(url)) and url != home:
            rt.state.r.hset(Keys(crawl_id).crawl, f"judging:{s[0]} {s[1]}", url)
        # (a numbered page the post pattern takes in too, /a/P2.html beside /a/12-slug.html, is one)
        paging = others + [u for u in posts if series(u)]
        priorities.update(home_series.series_order(rt, crawl_id, url, home, paging))
        s = series(url)
        if s:  # this page of the home's listing is read: the next one may be
            home_series.read_in_series(rt, crawl_id, s)
            home_series.release(rt, crawl_id, url)
        home_series.last_page(rt, crawl_id, url, paging)
    return keep, others, priorities


def _own_url(rt, crawl_id: str, url: str, ctx: dict, page, title: str | None, posts: list[str]) -> None:
    """A new post read at a URL outside the post pattern (a copy: a mirror's `/permalink/slug.html`)
    that links its own title to one URL the pattern takes in: that URL is the post's own, and
    is read as if the home's listing linked it (the copy's record gives way to it, as in a full
    crawl: workers.discover.posts.takes_over), put back if it was left already; listed nowhere
    but on such copies, it would be left, and the post kept under the copy's URL only."""
    pattern = ctx["blog"].get("pattern")
    if page is None or page.garbled or not title or not pattern or is_post(url, pattern):
        return
    own = [u for u in titled_links(page.root, page.final_url, title, posts) if u != url]
    if len(own) == 1:
        listed.vouch(rt, crawl_id, own)
        revive(rt, crawl_id, own[0], POST_PRIORITY)  # (left already: the home's listing was read past since)


def _maybe(others: list[str], home: str) -> list[str]:
    """Links the post pattern does not take in that may be posts all the same: no listing, no
    numbered page, no date archive."""
    return [u for u in others if not is_listing(u, home) and not series(u) and not archive_end(u, home)]


def _learned(rt, crawl_id: str, url: str, published: str | None, home: str) -> None:
    """A post's day is known (read, or held from an earlier crawl): the listing that lists it is
    judged again; a page of the home's listing cut now bounds that listing (`_past`)."""
    for listing, _ in listed.learned(rt, crawl_id, url, published, home=home):
        if listing != home and home_series.in_main_series(rt, crawl_id, listing):
            home_series.past(rt, crawl_id, listing, home)


def _home_posts(rt, crawl_id: str) -> set[str]:
    return set(json.loads(rt.state.r.hget(Keys(crawl_id).crawl, "home_posts") or "[]"))


def _days(rt, crawl_id: str, ctx: dict, posts: list[str], printed: dict | None = None) -> list[str | None]:
    """The day each post link is known to be of: its URL's, its feed entry's, or the record an
    earlier crawl holds; where the listing being read prints a day for it (`printed`), that day
    before a pseudo entry's (a generic reading of the page, which may take 11. 10. for
    November 10th)."""
    days = [url_latest_day(u) for u in posts]  # (a month in the URL: its last day, enough to tell old)
    unknown = [u for u, d in zip(posts, days) if not d]
    if unknown:
        k = Keys(crawl_id)
        entries = rt.state.r.hmget(k.entries, unknown)
        records = rt.state.raw.hmget(k.records, unknown)  # compressed JSON (State.record)
        known = {}
        for u, e, r in zip(unknown, entries, records):
            entry = json.loads(e) if e else None
            d = entry_day(entry, exact_of(ctx)) if entry and not (entry.get("pseudo") and (printed or {}).get(u)) else None
            if not d and r:
                d = _record_day(unpack(r) or {}, ctx)
            known[u] = d
        days = [d or known.get(u) for u, d in zip(posts, days)]
    return days


def _record_day(record: dict, ctx: dict) -> str | None:
    """The day a record held from an earlier crawl is judged by (recency.record_day)."""
    return record_day(record.get("published"), (record.get("sources") or {}).get("published"), exact_of(ctx))


def _dated_posts(rt, crawl_id: str, ctx: dict, posts: list[str], since: str, listing: bool) -> list[str]:
    days = _days(rt, crawl_id, ctx, posts)
    old = [u for u, d in zip(posts, days) if older(d, since)]
    _count_old(rt, crawl_id, old, days, posts)
    return [u for u, d in zip(posts, days) if not older(d, since)]


def _count_old(rt, crawl_id: str, old: list[str], days: list, posts: list[str]) -> None:
    day = dict(zip(posts, days))
    by_url = [u for u in old if url_latest_day(u)]
    skip(rt, crawl_id, "url_date", by_url)
    dated = [u for u in old if not url_latest_day(u) and day.get(u)]
    skip(rt, crawl_id, "feed_date", dated)
    skip(rt, crawl_id, "listing_order", [u for u in old if not day.get(u)])


def _others(rt, crawl_id: str, url: str, others: list[str], since: str, home: str) -> list[str]:
    """Non-post links: date archives ending before `since` left, and pages whose URL carries a
    day before it (a post the learned pattern does not take in, a page below an older post)."""
    keep, old, dated = [], [], []
    for u in others:
        end = archive_end(u, home)
        if end:
            (old if older(end, since) else keep).append(u)
        else:
            (dated if older(url_latest_day(u), since) else keep).append(u)
    skip(rt, crawl_id, "archive", old)
    skip(rt, crawl_id, "url_date", dated)
    return keep


def _off_items(page, pairs: list[tuple[str, str | None]]) -> set[str]:
    """The undated links of `pairs` (url, day known) that a listing page shows elsewhere than
    where two or more of its dated ones sit (its items): a "recent entries" widget, which runs in
    its own order (a page saved when other posts were new: its widget's links are not below the
    listing's old posts). Nothing where fewer than two dated links share a place."""
    dated = [u for u, d in pairs if day_of(d)]
    undated = [u for u, d in pairs if not day_of(d)]
    if len(dated) < 2 or not undated:
        return set()
    return set(undated) - at_items_place(page.root, page.final_url, dated, undated)


def _dated_new_key(crawl_id: str) -> str:
    return f"{Keys(crawl_id).crawl}:dated_new"  # set: post links a listing dated after since


def _dated_new(rt, crawl_id: str, url: str, ctx: dict) -> bool:
    """Does a listing's printed day or the post's feed entry say the post at `url` is new? Then
    the cut of another listing (a "recent entries" widget, read top first in its own order,
    saved when other posts were new) does not leave it."""
    entry = ctx.get("entry")
    if entry and day_of(entry.get("published") or entry.get("updated")) and not older_entry(entry, since_of(ctx), exact_of(ctx)):
        return True
    return bool(rt.state.r.sismember(_dated_new_key(crawl_id), url))


def _above_old(scope: list[tuple[str, str | None]], since: str) -> list[str]:
    """The links of a listing page, in document order, above its first one dated before since:
    the ones below (an older post's card, a link in its excerpt) are no new posts it lists."""
    out = []
    for u, d in scope:
        if day_of(d) and older(d, since):
            break
        out.append(u)
    return out


def _dated_old(rt, crawl_id: str, urls: set[str]) -> None:
    """Pages a listing dates before since (outside the post pattern, or posts whose URL's day it
    prints): left when popped (another source, a sitemap, a neighbour's link, may have queued
    them before the listing was read)."""
    k = listed.dated_old_key(crawl_id)
    with rt.state.r.pipeline(transaction=False) as p:
        p.sadd(k, *urls)
        p.expire(k, 7 * 86400)
        p.execute()


# ------------------------------------------------------------------ the report

def summary(info: dict) -> dict | None:
    """An update crawl's part of the report: since, what it read, what it left unread and why."""
    raw = info.get("raw") or {}
    skipped = {k[len(SKIP):]: int(v) for k, v in raw.items() if k.startswith(SKIP)}
    if not info.get("since") and not skipped:
        return None
    return {"since": info.get("since"), "read": int(raw.get("pages") or 0),
            "unchanged_304": int(raw.get(SKIP + "unchanged") or 0),
            "skipped": sum(skipped.values()),
            "skipped_by_reason": {REASONS.get(k, k): n for k, n in sorted(skipped.items(), key=lambda x: -x[1])},
            "covered_by": raw.get("covered"), "note": raw.get("since_note")}
