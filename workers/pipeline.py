"""The steps of a crawl as its tasks call them, and the path of one page of the traversal.

    discover(rt, crawl_id, url, since)   home page, feed, training entries (workers/discover/feed.py)
    learn_one(...), reduce(...)          the blog's rules (workers/learn/rules.py)
    start_traversal, dispatch, recover   the frontier (workers/traverse.py)
    process(rt, crawl_id, url)           one page: read, rendered where --js says so, its links
                                         queued; a post extracted, its comments and media, its
                                         record saved and archived; any other page a sample of
                                         the kNN estimator

A page is read once: a tasks.fetch.page.Page made at its fetch (or from the page cache, or
the browser's DOM), decoded once and parsed once, handed to every stage that reads it.
Each step is written so that running it twice gives the same state: urls are queued
once (a seen set), pages are processed once (a done set), records are keyed by url.
That is what lets Celery redeliver a task whose worker died.
"""
from __future__ import annotations

import logging
from urllib.parse import urljoin

from tasks.archive.records import content_hash, post_record
from tasks.discover.candidates import declared_permalink
from tasks.discover.kinds import UrlKind, js_decision, url_kind
from tasks.discover.recognise import dated_blog, listing_like, title_holds
from tasks.discover.controls import item_controls
from tasks.extract.comment_pages import own_comment_page
from tasks.extract.comment_sites import author_links
from tasks.extract.content_comments import content_without_comments
from tasks.extract.footer import without_footer
from tasks.discover.traps import capped
from tasks.discover.traversal import feed_links, looks_like_feed, paging_links, split_links
from tasks.discover.canonical import dated_tail, image_pages, is_listing
from tasks.discover.urls import canonical, extract_links, is_post
from tasks.discover import feeds as feedlib
from tasks.extract.post import extract_root, post_block, rule_of
from tasks.fetch.errors import FetchError
from tasks.fetch.page import Page
from workers import limits, traverse
from workers.archive import post as archive
from workers.discover import posts as discovered
from workers.discover import sources
from workers.discover import followed, update
from workers.discover.feed import CrawlFailed, discover
from workers.extract import comments, listed_days
from workers.extract import fallback as page_fallback
from workers.fetch import patience, rendering
from workers.fetch.pages import gone_error, html_page, not_html_message, remember_gone, usable
from workers.learn.rules import learn_one, reduce
from workers import suspects
from workers.records import as_before
from workers.state import Saving
from workers.traverse import Chain, Send, dispatch, page_failed, recover, start_traversal

# the crawl's steps as its tasks (workers/crawl.py), the follower and the sweep call them
__all__ = ["Chain", "CrawlFailed", "Send", "discover", "dispatch", "learn_one", "page_failed", "process",
           "recover", "reduce", "start_traversal"]

log = logging.getLogger("blogharvest")

MAX_ATTEMPTS = 4  # deliveries of one page before it is reported and dropped
TRAP_LIMITS = traverse.TRAP_LIMITS  # the traversal's trap limits (tasks/discover/traps.py), for every queueing here


def process(rt, crawl_id: str, url: str, count: bool = True, chain: Chain | None = None) -> dict:
    """One page of the traversal; `count` false: the same delivery run again (Redis outage).
    Its state is read in one round trip and written in one (issue 22); in a task's `chain`
    (traverse.Chain) the first also notes the page held, the last hands the next pages out."""
    st = rt.state
    kept = chain is not None and chain.note is not None  # a page a chain kept from a page's end
    ctx = st.page_context(crawl_id, url, count, also=chain.note if kept else None, kept=kept)
    patience.recall(rt, crawl_id, url, ctx["fetched"])
    unread = _not_to_read(rt, crawl_id, url, ctx)
    if unread is not None:
        return unread
    if ctx["attempts"] > MAX_ATTEMPTS:  # a suspect read alone (workers/suspects.py)
        try:
            return _read_page(rt, crawl_id, url, ctx, chain)
        finally:
            suspects.release(rt, crawl_id, url)
    return _read_page(rt, crawl_id, url, ctx, chain)


def _left(rt, crawl_id: str, url: str, why: str) -> dict:
    """A page an update crawl does not read now (update.before_read's or before_sitemap's `why`)."""
    if why == update.LATER:  # parked: put back on the frontier once the listing page before it is read
        return {"url": url, "skipped": why}
    if why in update.DEFER:  # in flight, back in a moment (the pacer sends it): still needed or covered then
        patience.defer_page(rt, crawl_id, url, update.DEFER[why])
        return {"url": url, "deferred": update.DEFER[why]}
    update.skip(rt, crawl_id, why, [url])
    rt.state.mark_done(crawl_id, url)
    return {"url": url, "skipped": why}


def _read_page(rt, crawl_id: str, url: str, ctx: dict, chain: Chain | None) -> dict:
    """The page read: a sitemap's links queued, or a page fetched, recognised, extracted."""
    st = rt.state
    if ctx.get("sitemap"):  # issue 15: a sitemap of the blog, not a page
        why = update.before_sitemap(rt, crawl_id, url, ctx)  # issue 35: a guess an update crawl needs not
        return _left(rt, crawl_id, url, why) if why else _process_sitemap(rt, crawl_id, url, ctx)
    kind = _kind(url, ctx)  # what the URL is, asked once: every stage below is handed it
    if not kind.post and _cut(rt, crawl_id, url, ctx):
        return {"url": url, "skipped": "trap"}
    why = update.before_read(rt, crawl_id, url, ctx, kind.post, kind.never_post)  # issue 35: nothing new there
    if why:
        return _left(rt, crawl_id, url, why)
    page = _read(rt, crawl_id, url, ctx, chain)
    if not isinstance(page, Page):
        return page  # a feed (read as a list of links), or no HTML page (reported)
    page = rendering.as_drawn(rt, crawl_id, url, page, kind.render)
    limits.check()  # the page's deadline (threads pool: Celery's limits do not hold there)
    posts, others, dropped = capped(*_links(rt, crawl_id, page, ctx), TRAP_LIMITS)
    if dropped:
        st.add_error(crawl_id, url, "too_many_links", f"{dropped} of the page's links not followed "
                                                      f"(at most {TRAP_LIMITS.max_links} a page, posts first)")
    result = {"url": url, "post": kind.post}
    # issue 15: recognised by template beyond the patterns; one record per post (canonical, body)
    post, extracted, record_url = _recognise(rt, crawl_id, url, kind, page, ctx, result)
    if not post:  # a listing's days beside its posts, for the posts whose pages print none
        listed_days.note(rt, crawl_id, page, posts, ctx["blog"])
    record = _record_post(rt, crawl_id, url, page, ctx, extracted, record_url) if post else None
    if post and others:  # (the blog's comment rule is settled once a post is read)
        others = _without_commenters(rt, crawl_id, page, ctx["blog"], others)
    sample = None if post else len(set(posts))
    # issue 30: what the blog lists, judged at the crawl's end
    listed = None if update.since_of(ctx) else discovered.listed_on(page) if not post else \
        discovered.listed_beside(rt, crawl_id, ctx["blog"]["home"], page, ctx["blog"].get("pattern"))
    # issue 35: an update crawl follows only the links that may lead to something new
    own = record or extracted or {}
    posts, others, ordered = followed.links(rt, crawl_id, url, ctx, posts, others, post=post, page=page,
                                            published=own.get("published"), title=own.get("title"),
                                            source=(own.get("sources") or {}).get("published"))
    _end(rt, crawl_id, url, page, ctx, (posts, others), sample, record, result, chain, ordered, listed)
    return result


# ------------------------------------------------------------------ before the page is read

def _not_to_read(rt, crawl_id: str, url: str, ctx: dict) -> dict | None:
    """The result of a delivery whose page is not read (done already, the crawl ended, too many
    deliveries), else None."""
    if ctx["done"]:
        return {"url": url, "skipped": "done"}
    if ctx["state"] != "running":
        rt.state.mark_done(crawl_id, url)
        return {"url": url, "skipped": "crawl not running"}
    if ctx["attempts"] > MAX_ATTEMPTS:  # a suspect: read alone once the rest is done (issue 36)
        verdict = suspects.verdict(rt, crawl_id, url)
        if verdict == "wait":
            return {"url": url, "deferred": suspects.WAIT}
        if verdict == "drop":
            page_failed(rt, crawl_id, url, "gave_up", f"dropped after {MAX_ATTEMPTS} deliveries and one more "
                                                      "alone, each ended by its worker's death")
            suspects.release(rt, crawl_id, url)
            return {"url": url, "error": "gave_up"}
    return None


def _process_sitemap(rt, crawl_id: str, url: str, ctx: dict) -> dict:
    """A sitemap of the blog (issue 15): its pages queued, posts (by the patterns) first."""
    blog, options = ctx["blog"], ctx["options"]
    home, rx = blog["home"], discovered.link_pattern(blog.get("pattern"), ctx["patterns"])
    return sources.process(rt, crawl_id, url, ctx["sitemap"], ctx, lambda urls: _queue_links(
        rt, crawl_id, *split_links(urls, home, lambda u: bool(rx and is_post(u, rx))), options))


def _kind(url: str, ctx: dict) -> UrlKind:
    """The URL's kind (tasks.discover.kinds) by what the crawl learned: its home page and post
    pattern, whether its feed lists the URL, the --js decision."""
    blog = ctx["blog"]
    return url_kind(url, blog["home"], blog.get("pattern"), ctx["entry"] is not None,
                    js_decision(blog, ctx["options"]))


def _cut(rt, crawl_id: str, url: str, ctx: dict) -> bool:
    """A page queued before its part of the site was cut as a trap (traverse.Source): done
    unread, counted in the crawl's `trapped`."""
    if not ctx["cut"]:
        return False
    source = traverse.Source(url, ctx["blog"]["home"], ctx["cut"])
    if source.family() not in ctx["cut"]:
        return False
    rt.state.note_traps(crawl_id, [(url, f"{traverse.family_pattern(source.home, source.family())} "
                                         f"is cut as a trap (queued before)")])
    rt.state.mark_done(crawl_id, url)
    return True


def _read(rt, crawl_id: str, url: str, ctx: dict, chain: Chain | None = None) -> Page | dict:
    """The page to read: the cached one, else fetched now. A result instead where it is a feed
    (read as a list of links) or no HTML page (reported)."""
    if ctx["page"] is not None and (gone := gone_error(ctx["page"], url)):
        raise gone  # (the blog answered 404 or 410 to another stage of this crawl)
    if ctx["page"] is not None:
        page = Page.from_cached(ctx["page"], url)
        # cached by an earlier stage before the gate held: binary is never a post
        why = None if usable(page) else f"not an HTML page (binary bytes, {len(page.html)} characters)"
    else:
        update_crawl = bool(ctx["options"].get("update"))
        try:
            resp = rt.downloader.get(url, revisit=update_crawl, conditional=update_crawl)
        except FetchError as e:
            remember_gone(rt, crawl_id, url, e)
            raise
        if resp.status == 304:  # issue 35: unchanged since an earlier crawl: not read, nothing emitted again
            update.skip(rt, crawl_id, "unchanged", [url])
            rt.state.mark_done(crawl_id, url)
            return {"url": url, "skipped": "unchanged"}
        if looks_like_feed(resp.content, resp.content_type):
            return _process_feed(rt, crawl_id, url, resp, ctx, chain)
        page = html_page(resp, url)
        why = None if page is not None else not_html_message(resp)
    if why is None:
        return page
    page_failed(rt, crawl_id, url, "not_html", why)
    return {"url": url, "error": "not_html"}


def _process_feed(rt, crawl_id: str, url: str, resp, ctx: dict, chain: Chain | None = None) -> dict:
    """A category/tag/author feed met in the traversal: a list of post links, nothing to extract;
    its writes in one round trip, as a page's."""
    pattern, home = ctx["blog"].get("pattern"), ctx["blog"]["home"]
    try:
        feed = feedlib.parse_feed(resp.content, resp.url, resp.content_type)
    except feedlib.FeedError as e:
        page_failed(rt, crawl_id, url, "feed", str(e))
        return {"url": url, "error": "feed"}
    since = update.since_of(ctx)
    entries = [e for e in feed.get("entries", []) if e.get("url")]
    exact = update.exact_of(ctx)
    old = [canonical(e["url"]) for e in entries if since and update.older_entry(e, since, exact)]
    update.skip(rt, crawl_id, "feed_date", old)  # issue 35: an update crawl leaves the older entries
    links = [canonical(e["url"]) for e in entries if not (since and update.older_entry(e, since, exact))]
    posts, _ = split_links(links, home, lambda u: bool(pattern and is_post(u, pattern)))
    found = traverse.links(rt, crawl_id, posts, [], ctx["options"], traps=TRAP_LIMITS)
    end = rt.state.end_page(crawl_id, url, posts=found.posts, estimates=found.estimates, tie=found.tie,
                            sample=len(set(posts)), **_handing(rt, crawl_id, ctx["options"], chain))
    _handed(chain, end)
    return {"url": url, "feed": len(links), "sample": end["sampled"]}


def _handing(rt, crawl_id: str, options: dict, chain: Chain | None) -> dict:
    """State.end_page's hand-out arguments in a task's `chain` (none outside one): the next pages
    handed out under a fresh stamp of the chain's (Chain.handed_out finds them by it)."""
    if chain is None:
        return {}
    return {"hand_out": traverse.hand_out(rt, crawl_id, options), "handed_at": chain.stamp()}


def _handed(chain: Chain | None, end: dict) -> None:
    """What the page's last write handed out, for the chain's `dispatch` to send or keep."""
    if chain is not None:
        chain.handed = (end["handed"], end["finished"])


# ------------------------------------------------------------------ the page read

def _links(rt, crawl_id: str, page: Page, ctx: dict) -> tuple[list[str], list[str]]:
    """(post links, other links) of the page: its links by the blog's patterns (issue 15: the
    supported further ones too), the feeds it declares, the permalink a shortlink's page names."""
    blog = ctx["blog"]
    home = blog["home"]
    link_rx = discovered.link_pattern(blog.get("pattern"), ctx.get("patterns"))
    links = extract_links(page.root, page.final_url)  # canonical already
    # a post link is the pattern's and no listing (`UrlKind.post`: /index2.html, a listing's second
    # page, is no post though a /slug.html pattern takes it in)
    dates = not dated_tail(link_rx)  # (a pattern ending in a date after the post's name: those are posts)
    posts, others = split_links(links, home, lambda u: bool(link_rx and is_post(u, link_rx)) and not is_listing(u, home, dates))
    # a control repeated under each comment ("Reply": a form a comment) is no page to read
    controls = item_controls(page.root, page.final_url,
                             lambda u: is_listing(u, home) or bool(link_rx and is_post(u, link_rx))) if others else set()
    others = [u for u in others if u not in controls]
    # the feeds it declares, and the next page of a listing only its head names (<link rel="next">)
    declared = [canonical(u) for u in feed_links(page.root, page.final_url, home) + paging_links(page.root, page.final_url, home)]
    linked = set(links)
    others += [u for u in dict.fromkeys(declared) if u not in linked]
    if blog.get("pseudo") and (permalink := declared_permalink(page.root, page.final_url, home,
                                                               discovered.site_comment_feeds(rt, crawl_id, home, blog.get("pattern")))):
        others.append(permalink)  # issue 18: a shortlink's page names its post's permalink
    return posts, others


def _without_commenters(rt, crawl_id: str, page: Page, blog: dict, others: list[str]) -> list[str]:
    """`others` without the links the post's comments name their authors by: a commenter's own
    site, or the engine's redirect to it (tasks.extract.comment_sites), no page of the blog."""
    rule = comments.settled_rule(rt, crawl_id, blog)
    names = author_links(page.root, rule, page.final_url) if rule else set()
    return [u for u in others if u not in names] if names else others


def _from_feed(entry: dict | None) -> bool:
    """A post the blog's own feed lists (issue 18: pseudo entries, read off pages, prove less)."""
    return entry is not None and not entry.get("pseudo")


def _recognise(rt, crawl_id: str, url: str, kind: UrlKind, page: Page, ctx: dict, result: dict):
    """(post, extracted, record url): the rules' reading of a post by its URL (a page beyond the
    feed must read as one), then settled by its canonical URL and the blog's template."""
    post = kind.post
    blog, entry = ctx["blog"], ctx["entry"]
    rules, pattern, home = blog.get("rules") or {}, blog.get("pattern"), blog["home"]
    extracted = _rules_reading(rt, crawl_id, url, page, rules, entry, blog) if post else None
    if post and not _from_feed(entry) and (not _reads_as_post(extracted, rules, pattern, home, bool(blog.get("pseudo")),
                                                              page.root)
                                           or listing_like(page.root, rules)
                                           or _menu_page(rt, crawl_id, url, pattern, home)):
        post = result["post"] = False  # an /about/ page that a one-slug pattern took in (or the menu links), a listing
    return discovered.settle(rt, crawl_id, url, kind, page, rules, pattern, home, post, extracted, result,
                             generic=bool(blog.get("generic")), built=blog.get("built") or (),
                             meta=blog.get("feed_meta"))


def _menu_page(rt, crawl_id: str, url: str, pattern: str | None, home: str) -> bool:
    """Is the page one of the site's own that the blog's menu links (about, projects)? Under a
    pattern that takes in any one-slug page, yes; under a narrower one (a `/posts/` folder, a
    date) the menu may point at a post (a tutorial's first part): it is read as one, and noted,
    and at the crawl's end it stays a post only where a listing lists it (workers/records.py)."""
    if not discovered.in_navigation(rt, crawl_id, home, url, pattern):
        return False
    if _broad(pattern, home):
        return True
    rt.state.note_menu(crawl_id, url)
    return False


def _rules_reading(rt, crawl_id: str, url: str, page: Page, rules: dict, entry, blog: dict) -> dict:
    """The rules' reading of the page; where reading fails (a bug, a page the code cannot
    handle), an empty one, reported: the page-level extractor then reads the post
    (workers/extract/fallback.py), which is never lost for a rule's fault."""
    empty = {"title": None, "content_text": None, "content_html": None, "authors": [], "published": None,
             "sources": {}}
    return _part(rt, crawl_id, url, "rules_reading", empty, extract_root, page.root, page.html, rules, entry,
                 blog.get("feed_meta"), page.final_url, kept="the page-level extractor read it")


def _broad(pattern: str | None, home: str) -> bool:
    """Does the post pattern take in any page named by one slug at the site's root (Ghost,
    Medium-like blogs), so that /about/ or /contact/ would pass for posts?"""
    probe = urljoin(home, "/zz-some-page-name-zz")
    return bool(pattern) and (is_post(probe, pattern) or is_post(probe + "/", pattern))


def _reads_as_post(extracted: dict, rules: dict, pattern: str | None, home: str, strict: bool = False,
                   root=None) -> bool:
    """A page beyond the feed that the pattern takes in: under a broad pattern (or rules learned
    without a feed, `strict`) it must also show a date when the blog's posts do (the date
    rule held on most training pages), and its title where the posts show theirs (a site's
    page in its own template, dated by its metadata, is no post)."""
    if not strict and not _broad(pattern, home):
        return True
    if root is not None and not title_holds(root, rules, extracted):
        return False
    return bool(extracted.get("published")) or not dated_blog(rules)


# ------------------------------------------------------------------ a post's record

def _record_post(rt, crawl_id: str, url: str, page: Page, ctx: dict, extracted: dict, record_url: str) -> dict | None:
    """The post's record (its fields, comments, media); None when nothing was extracted (reported)."""
    blog, entry = ctx["blog"], ctx["entry"]
    rules = blog.get("rules") or {}
    # ---- issue 18: where the rules fail on a post, the page-level extractor (workers/extract/fallback.py)
    extracted, extraction = page_fallback.complete(rt, crawl_id, url, page, extracted, rules, _from_feed(entry),
                                                   (blog.get("feed_meta") or {}).get("title"))
    # ---- end issue 18
    extracted = listed_days.dated(rt, crawl_id, [url, record_url], extracted, entry)
    if not (extracted.get("title") or extracted.get("content_text") or extracted.get("content_html")):
        # (a post untitled and of photos alone still has its body: its record keeps its day and media)
        rt.state.add_error(crawl_id, url, "extract", "post pattern matched but the rules extracted nothing")
        return None
    found = _part(rt, crawl_id, url, "comments", None, comments.comments_for, rt, crawl_id, url, entry, page,
                  page.root, blog)
    if found and (extracted.get("sources") or {}).get("content") == "rule":
        extracted = _without_comments(rt, crawl_id, page, rules, blog, extracted)
    return post_record(record_url, blog["home"], extracted, rules=_rule_strings(rules), extraction=extraction,
                       comments=found,
                       media=_part(rt, crawl_id, url, "media", [], archive.media_for,
                                   rt, crawl_id, url, extracted, entry))


def _without_comments(rt, crawl_id: str, page: Page, rules: dict, blog: dict, extracted: dict) -> dict:
    """The post's content without the comments its content rule took in with it (the article
    holding its comment section): the blog's comment rule finds them inside the content."""
    rule = comments.blog_rule(rt, crawl_id, blog) or {}
    block = comments.content_node(page.root, rules)
    headless = post_block(page.root, rules, block)  # a copy without the post's header, where it holds one

    def edges(el):  # its first line naming the post's day, its last a byline (tasks/extract/footer.py)
        return without_footer(el, extracted.get("published"), page.root.get("lang") or blog.get("language"),
                              extracted.get("authors"))

    cut = content_without_comments(headless, rule.get("container"), edges) if headless is not block else None
    # (a container rule that names the page's ancestors finds no block in the headless copy: the
    # comments are cut from the block, then its header from what is left, found there by the rules)
    cut = cut or content_without_comments(block, rule.get("container"), lambda el: edges(post_block(el, rules, el)))
    return dict(extracted, content_text=cut[0], content_html=cut[1]) if cut else extracted


def _saving(rt, crawl_id: str, record: dict, ctx: dict) -> Saving | None:
    """How to save the record of a post in the crawl's window (None: outside it): streamed when
    new or changed (an unchanged post is not emitted again), one URL per body. An update crawl
    keeps what a full crawl said of the page (`kind` "page": only a full crawl sees every listing)."""
    options = ctx["options"]
    if not _in_window(record, options, ctx["since"]):
        return None
    if options.get("update"):
        record = as_before(record, rt.state.record(crawl_id, record["url"]))
    return Saving(record, content_hash(record), rt.settings.stream_maxlen, listed=not options.get("update"),
                  source=ctx.get("source"), body=discovered.body_of(record))


def _part(rt, crawl_id: str, url: str, what: str, default, fn, *args, kept: str | None = None):
    """A part of a post (its comments, its media) whose failure is reported and leaves the
    post without it, never losing the post (`kept`: what the report says became of the post,
    where that is not "kept without it"). Redis being away is not the part's fault: raised."""
    import redis
    from celery.exceptions import SoftTimeLimitExceeded

    try:
        return fn(*args)
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, SoftTimeLimitExceeded):
        raise
    except Exception as e:
        log.exception("%s of %s failed", what, url)
        rt.state.add_error(crawl_id, url, f"{what}_error",
                           f"{type(e).__name__}: {e} ({kept or f'the post is kept without its {what}'})")
        return default


def _rule_strings(rules: dict) -> dict:
    return {f: rule_of(rules, f) for f in rules or {}}


def _in_window(record: dict, options: dict, since: str | None) -> bool:
    """update_crawl emits posts published after `since` (or undated ones that changed);
    a scheduled update emits every post new since the last crawl, whatever its date."""
    if not options.get("update") or not since or options.get("scheduled"):
        return True
    pub = record.get("published")
    return not pub or pub[:10] >= since[:10]


# ------------------------------------------------------------------ the page's writes

def _end(rt, crawl_id: str, url: str, page: Page, ctx: dict, links: tuple[list[str], list[str]],
         sample: int | None, record: dict | None, result: dict, chain: Chain | None,
         ordered: dict | None = None, listed: list[list[str]] | None = None) -> None:
    """The page's writes in one round trip (State.end_page): a post's record (archived where new
    or changed), or the page's `sample` (its post links), its links queued, the page done; the
    next pages handed out (in a task's `chain`: set there at once, so that a failure after
    the page's writes cannot keep them from being sent)."""
    st, options = rt.state, ctx["options"]
    source = traverse.Source(url, ctx["blog"]["home"], ctx["cut"], counts=sample is not None)
    found = traverse.links(rt, crawl_id, *links, options, ctx["sampled"] + (sample is not None), TRAP_LIMITS,
                           sample=None if sample is None else (url, sample), source=source)
    if ordered:  # issue 35: the home page's listing in page order, ahead of the posts; a
        # listing's undated posts top first (their days judge the rest: workers/discover/listed.py)
        found.estimates.update({u: v for u, v in ordered.items() if u in found.estimates})
        found.posts.update({u: v for u, v in ordered.items() if u in found.posts})
    if found.sampled is not None:  # written before the model's refit, which reads it
        result["sample"], sample = found.sampled, None

    final = canonical(page.final_url)  # (a redirect's target: read here, not to be fetched again)

    read = [canonical(u) for u in patience.read_along(rt, url)] if record is not None else None
    own = own_comment_page(page.root, page.final_url) if record is not None else None
    if own:  # the post page under its comment page number: another comment page links it, it is read here
        read.append(canonical(own))
    # an image's own page below a post (an attachment page): classified, never read
    images = image_pages(page.root, page.final_url, list(links[0]) + ([url] if record is not None else []))
    if final != url:  # a redirect's target was read here: queued too (/about beside /about/), it is not read again
        read = (read or []) + [final]

    def write(saving):
        return st.end_page(crawl_id, url, posts=found.posts, estimates=found.estimates, tie=found.tie, save=saving,
                           sample=sample, trace=(record is not None) if options.get("trace") else None,
                           seen=[final] if final != url else None, trap=found.trap, read=read, listed=listed,
                           left=(update.SKIP + "image_page", images) if images else None,
                           **_handing(rt, crawl_id, options, chain))

    end = _first_of_body(rt, crawl_id, write, record, _saving(rt, crawl_id, record, ctx) if record else None, ctx, result)
    _handed(chain, end)
    if end.get("cut"):
        traverse.report_cut(rt, crawl_id, url, source, end["cut"])
    if end["sampled"] is not None:
        result["sample"] = end["sampled"]
    if record is not None:
        result["record"] = bool(end["saved"])
        if end["saved"]:
            archive.on_record(rt, crawl_id, record, page)
    traverse.rescore(rt, crawl_id, found)


def _first_of_body(rt, crawl_id: str, write, record: dict | None, saving: Saving | None, ctx: dict,
                   result: dict) -> dict:
    """`write(saving)`: the record saved where it is the first of its body (its claim and its save
    are one step). Where another URL holds the body, this one takes it over (and is saved) or
    is a duplicate (and the page's other writes go alone)."""
    end = write(saving)
    for _ in range(3):
        if "owner" not in end:
            return end
        taken = discovered.takes_over(rt, crawl_id, record, end["owner"], result, ctx["blog"].get("pattern"),
                                      ctx["entry"])
        end = write(saving if taken else None)
    if "owner" in end:  # taken over and taken again, three times: this one is a duplicate
        result["duplicate_of"] = end["owner"]
        end = write(None)
    return end


# ------------------------------------------------------------------ the page's links

def _queue_links(rt, crawl_id: str, posts: list[str], others: list[str], options: dict | None = None,
                 samples: int | None = None) -> None:
    """workers.traverse.queue_links under this module's TRAP_LIMITS."""
    traverse.queue_links(rt, crawl_id, posts, others, options, samples, traps=TRAP_LIMITS)
