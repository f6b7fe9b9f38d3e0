"""An update crawl reads what may be new, not the whole blog again (issue 35, docs/update.md).

Between tasks.discover.recency (what the blog's dates say) and the crawl's Redis state:

    seeds(rt, crawl_id, urls)             the feed's posts to queue: not those dated before `since`
    before_read(rt, crawl_id, url, ctx, kind)   why a popped page is not read, or None
    followed.links(...)                   a read page's links an update crawl follows
                                          (workers/discover/followed.py)
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

from tasks.discover.recency import archive_end, day_of, entry_day, older, series
from tasks.text.dates import url_day
from workers.discover import chain, home_series, lastmods, listed, proof, waits
from workers.discover.followed import dated_new_key, learned, held_day
from workers.discover.since import exact_of, since_of
from workers.discover.skipped import SKIP, skip
from workers.state import Keys
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


def _dated_new(rt, crawl_id: str, url: str, ctx: dict) -> bool:
    """Does a listing's printed day or the post's feed entry say the post at `url` is new? Then
    the cut of another listing (a "recent entries" widget, read top first in its own order,
    saved when other posts were new) does not leave it."""
    entry = ctx.get("entry")
    if entry and day_of(entry.get("published") or entry.get("updated")) and not older_entry(entry, since_of(ctx), exact_of(ctx)):
        return True
    return bool(rt.state.r.sismember(dated_new_key(crawl_id), url))


def _post_left(rt, crawl_id: str, url: str, ctx: dict, since: str) -> str | None:
    """Why a post by its URL is left: its feed entry dates it before since (a link to it from a
    page read: a neighbour, a widget), `_listed_left` (a day in its URL says it may be new), or
    held from an earlier crawl (`_held`)."""
    entry, exact = ctx.get("entry"), exact_of(ctx)
    if entry and older_entry(entry, since, exact):  # (queued by a link: the feed dates it before since)
        learned(rt, crawl_id, url, entry_day(entry, exact), ctx["blog"]["home"])  # its listing judged as if read
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
    day = held_day(old, ctx)
    learned(rt, crawl_id, url, day, ctx["blog"]["home"])  # its listing judged as if read
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
