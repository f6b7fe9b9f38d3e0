"""The steps of a crawl, between the pure functions of tasks/ and the Redis state.

Each step is written so that running it twice gives the same state: urls are queued
once (a seen set), pages are processed once (a done set), records are keyed by url.
That is what lets Celery redeliver a task whose worker died.
"""
from __future__ import annotations

import logging
from typing import Callable
from urllib.parse import urljoin

from tasks.discover import feeds as feedlib
from tasks.discover.announced import archive_widget_total
from tasks.extract.fields import blog_authors
from tasks.extract.post import extract_post, extract_root, matches_entry, rule_of
from tasks.fetch.http import FetchError
from tasks.fetch.html import parse_html
from tasks.learn.fields import learn_page, reduce_rules
from tasks.learn.pseudo_feed import training_need
from tasks.discover.priority import LinkEstimator
from tasks.archive.records import content_hash, post_record
from tasks.discover.traps import DEFAULT as TRAP_LIMITS, trap_reason, variant_key
from tasks.discover.traversal import (POST_PRIORITY, SEED_PRIORITY, feed_links, in_scope, looks_like_feed,
                             split_links)
from tasks.discover.urls import canonical, extract_links, is_post, learn_post_pattern
from workers import limits
from tasks.discover.candidates import declared_permalink
from workers.archive import post as archive
from workers.discover import posts as discovered
from workers.discover import sources
from workers.extract import comments
from workers.extract import fallback as page_fallback
from workers.fetch import rendering
from workers.fetch.pages import html_page, not_html_message, usable
from workers.fetch.patience import HostBusy
from workers.learn import training

log = logging.getLogger("blogharvest")

MAX_FEED_PAGES = 5  # feed paging: more entries mean more training pairs and known posts
MAX_TRAINING = 30  # training pages per blog (votes)
MAX_ATTEMPTS = 4  # deliveries of one page before it is reported and dropped
TIE = 1e-9  # discovery order breaks ties between equal estimates
REFIT_EVERY = 10  # new samples before the priority model is refitted and the frontier rescored,
REFIT_GROWTH = 0.2  # or this share of the samples it was fitted on, if more (a fit costs O(samples))

Send = Callable[[str, str], None]


class CrawlFailed(Exception):
    """The crawl cannot go on (no home page, no feed); the message goes to its report."""


# ------------------------------------------------------------------ discovery

def _read_feed(rt, url: str) -> dict:
    resp = rt.downloader.get(url)
    return feedlib.parse_feed(resp.content, resp.url, resp.content_type)


def _announced(st, crawl_id: str, home) -> None:
    """The post count the home page's archive widget announces (report, progress ETA)."""
    try:
        total = archive_widget_total(parse_html(home.text, home.url))
    except Exception:  # a count is a nicety: a page it cannot read costs nothing else
        log.debug("no archive count on %s", home.url, exc_info=True)
        return
    if total:
        st.announce(crawl_id, "archive widget", total)


def discover(rt, crawl_id: str, url: str, since: str | None) -> dict:
    """Home page -> feed (with paging) -> training entries. Decides whether rules are learned."""
    st = rt.state
    try:
        home = rt.downloader.get(url, revisit=bool(st.options(crawl_id).get("update")))
    except FetchError as e:
        raise CrawlFailed(f"home page unreachable: {e}") from e
    home_url = canonical(home.url)
    _announced(st, crawl_id, home)
    feed, feed_url, tried, fallback, skipped = None, None, [], None, []
    for candidate in feedlib.discover_feeds(home.text, home.url)[:15]:
        # the first clean feed listing posts of this blog wins; a broken (bozo) one, or one
        # listing nothing of this blog, only if no later candidate does better
        try:
            got = _read_feed(rt, candidate)
        except (FetchError, feedlib.FeedError) as e:
            tried.append(f"{candidate}: {e}")
            continue
        except Exception as e:  # a feed no parser copes with is that candidate's error
            tried.append(f"{candidate}: {type(e).__name__}: {e}")
            continue
        ours = any(e.get("url") and in_scope(canonical(e["url"]), home_url) for e in got.get("entries", []))
        if ours and not got.get("bozo"):
            feed, feed_url = got, candidate
            break
        if fallback is None or (ours and not fallback[2]):
            fallback = (got, candidate, ours)
        if got.get("bozo"):
            skipped.append((candidate, got["bozo"]))
        tried.append(f"{candidate}: " + (f"malformed feed ({got['bozo']})" if got.get("bozo")
                                         else "lists no post of this blog"))
    if feed is None and fallback is not None:
        feed, feed_url = fallback[0], fallback[1]
    if feed is None:  # no feed: training entries come from the pages themselves (below)
        for t in tried[:3]:
            st.add_error(crawl_id, url, "feed", t)
        st.add_error(crawl_id, url, "feed", f"no readable feed found from {url} (tried {len(tried)} candidates)")
        feed = {"entries": []}
    if feed.get("bozo"):
        st.add_error(crawl_id, feed_url, "feed", f"malformed feed, partly read: {feed['bozo']}")
    for candidate, why in skipped[:3]:
        if candidate != feed_url:
            st.add_error(crawl_id, candidate, "feed", f"malformed feed, skipped for {feed_url}: {why}")

    entries, seen = [], set()

    def take(f):
        for e in f.get("entries", []):
            u = e.get("url") and canonical(e["url"])
            if u and u not in seen and in_scope(u, home_url):
                seen.add(u)
                entries.append(dict(e, url=u))

    take(feed)
    page, current, current_url = 1, feed, feed_url
    while feed_url and page < MAX_FEED_PAGES:
        nxt = [u for u in feedlib.next_page_urls(current, current_url, page) if u]
        if not nxt:
            break
        page += 1
        try:
            current, current_url = _read_feed(rt, nxt[0]), nxt[0]
        except (FetchError, feedlib.FeedError):
            break
        before = len(entries)
        take(current)
        if len(entries) == before:
            break
    # ---- issue 18: a missing, excerpt-only or short feed is completed from the pages (workers/learn/training.py)
    need = training_need(entries)
    # --js auto is decided on the feed's own entries, before pseudo entries join them: those
    # are read off the pages as served, so their text is always there and would vote "no js";
    # and with the decision made, training reads the pages as the crawl will (rendered or not)
    decided = bool(entries) and _decide_js(rt, crawl_id, url, entries[:MAX_TRAINING])
    if need is not None and not (entries and st.options(crawl_id).get("update") and st.blog(crawl_id).get("rules")):
        entries = training.training_entries(rt, crawl_id, home_url, home.text, entries, need)
    # ---- end issue 18
    if not entries:
        if feed_url is None:
            raise CrawlFailed(f"no readable feed found from {url} (tried {len(tried)} candidates), "
                              f"and no post pages among its links to learn from")
        raise CrawlFailed(f"the feed {feed_url} lists no post of this blog")
    st.save_entries(crawl_id, entries)
    st.save_blog(crawl_id, home=home_url, feed=feed_url, entry_urls=[e["url"] for e in entries],
                 feed_meta={"title": feed.get("title"), "language": feed.get("language"),
                            "authors": blog_authors(feed, entries)})
    st.cache_page(crawl_id, home_url, {"url": home.url, "html": home.text})

    if not decided:  # no feed entries (or the decision failed): the pages found decide
        _decide_js(rt, crawl_id, url, entries[:MAX_TRAINING])
    options = st.options(crawl_id)
    learn = True
    if options.get("update") and st.blog(crawl_id).get("rules"):
        learn = not rules_still_match(rt, crawl_id, entries[:5])
        if learn:
            st.add_error(crawl_id, url, "relearn", "stored rules stopped matching the feed: re-learning")
    return {"learn": learn, "entries": entries[:MAX_TRAINING], "feed": feed_url}


def _decide_js(rt, crawl_id: str, url: str, entries: list[dict]) -> bool:
    """rendering.decide on `entries`; True once decided (a failure goes to the report)."""
    try:
        rendering.decide(rt, crawl_id, entries, {})
        return True
    except HostBusy:  # politeness: the task does discovery again at the host's next turn
        raise
    except Exception as e:  # without a decision the pages are read as served
        log.exception("--js auto decision for %s failed", url)
        rt.state.add_error(crawl_id, url, "render", f"could not decide on rendering: {type(e).__name__}: {e}")
        return False


def rules_still_match(rt, crawl_id: str, entries: list[dict]) -> bool:
    """update_crawl's check: do the stored rules still extract what the feed says?"""
    stored = rt.state.blog(crawl_id).get("rules") or {}
    # the learned rules alone: runners-up may still find a moved field, but then it is time to re-learn
    rules = {f: {"rule": v["rule"]} for f, v in stored.items() if isinstance(v, dict) and v.get("rule")}
    ok = n = 0
    for e in entries:
        try:
            resp = rt.downloader.get(e["url"], revisit=True)  # update crawls only: unchanged is a WARC revisit
        except FetchError:
            continue
        page = html_page(resp)
        if page is None:  # binary or not HTML: no evidence either way (the traversal reports it)
            continue
        rt.state.cache_page(crawl_id, e["url"], page)
        n += 1
        ok += bool(matches_entry(extract_post(page["html"], page["url"], rules), e))
    return n == 0 or ok * 2 >= n


# ------------------------------------------------------------------ learning

def _target(entry: dict) -> dict:
    content = entry.get("content_html") or entry.get("summary_html") or ""
    return {"title": entry.get("title") or "", "content": content,
            "content_is_summary": bool(entry.get("content_is_summary", not entry.get("content_html"))),
            "authors": entry.get("authors") or [], "authors_from_feed": bool(entry.get("authors_from_feed")),
            "published": entry.get("published")}


def learn_one(rt, crawl_id: str, url: str) -> dict:
    st = rt.state
    entry = st.entry(crawl_id, url) or {"url": url}
    page = st.cached_page(crawl_id, url)
    if page is None:
        try:
            resp = rt.downloader.get(url, revisit=bool(st.options(crawl_id).get("update")))
        except FetchError as e:
            st.add_error(crawl_id, url, e.kind, e.message)
            return {"url": url, "error": e.kind}
        page = html_page(resp)
        if page is None:  # nothing to learn from, and not to be cached as a page
            return {"url": url, "error": "not_html"}  # (the traversal reports it)
        st.cache_page(crawl_id, url, page)
    page = rendering.page(rt, crawl_id, url, page)
    limits.check()  # the task's deadline (threads pool: Celery's limits do not hold there)
    rules = learn_page(page["html"], page["url"], _target(entry))
    return {"url": url, "rules": rules}


def reduce(rt, crawl_id: str, results: list) -> dict:
    st = rt.state
    page_rules = [r["rules"] for r in results or [] if isinstance(r, dict) and r.get("rules")]
    if not page_rules:
        st.set_state(crawl_id, "failed", "no training page could be fetched: no rules learned")
        return {}
    rules = reduce_rules(page_rules)
    blog = st.blog(crawl_id)
    others = [blog.get("home"), blog.get("feed")]
    pattern = learn_post_pattern(blog.get("entry_urls") or [], [o for o in others if o])
    st.save_blog(crawl_id, rules=rules, pattern=pattern, trained_on=len(page_rules))
    return rules


# ------------------------------------------------------------------ traversal

def start_traversal(rt, crawl_id: str, rules: dict | None, send: Send) -> None:
    st = rt.state
    if st.state_of(crawl_id) != "running":
        return
    blog = st.blog(crawl_id)
    st.set_phase(crawl_id, "traverse")
    seeds = {blog["home"]: SEED_PRIORITY}
    for u in blog.get("entry_urls") or []:
        seeds.setdefault(u, POST_PRIORITY)
    st.mark_sources(crawl_id, list(blog.get("entry_urls") or []), "feed")  # issue 15: sources
    st.enqueue(crawl_id, seeds)
    sources.seed(rt, crawl_id, blog["home"])  # issue 15: sitemaps, popped like seeds
    dispatch(rt, crawl_id, send)


def _max_pages(rt, crawl_id: str) -> int:
    """The crawl's page budget (its options never change: read once per process)."""
    n = rt.max_pages.get(crawl_id)
    if n is None:
        n = rt.max_pages[crawl_id] = int(rt.state.options(crawl_id).get("max_pages") or rt.settings.max_pages)
    return n


def dispatch(rt, crawl_id: str, send: Send, keep: Callable[[str], bool] | None = None) -> str | None:
    """Hand out the best queued pages up to the crawl's parallelism; finish an idle crawl.
    With `keep`, the best page it accepts is not sent but returned: the caller reads it
    next itself (it is in flight like the others, so a dead caller's page is handed out again)."""
    st = rt.state
    max_pages = _max_pages(rt, crawl_id)
    urls = st.dispatch(crawl_id, rt.settings.crawl_parallelism, max_pages)
    kept = next((u for u in urls if keep(u)), None) if keep else None
    if kept is not None:
        urls.remove(kept)
    for u in urls:
        send(crawl_id, u)
    if not urls and kept is None and st.maybe_finish(crawl_id, max_pages):
        archive.on_finished(rt, crawl_id)  # BLOGHARVEST_WACZ_DIR on a cluster: the crawl's WACZ
    return kept


def recover(rt, crawl_id: str, send: Send, older_than: float | None = None) -> int:
    """Send again the pages handed out long ago (a dead worker held them), then dispatch."""
    st = rt.state
    stale = st.stale_inflight(crawl_id, rt.settings.stale_seconds if older_than is None else older_than)
    st.touch_inflight(crawl_id, stale)
    for u in stale:
        send(crawl_id, u)
    if st.state_of(crawl_id) == "running" and st.r.hget(rt.keys(crawl_id).crawl, "phase") == "traverse":
        dispatch(rt, crawl_id, send)
    return len(stale)


def page_failed(rt, crawl_id: str, url: str, kind: str, message: str) -> None:
    rt.state.add_error(crawl_id, url, kind, message)
    rt.state.mark_done(crawl_id, url)


def _estimator(rt, crawl_id: str, samples: int | None = None):
    """The crawl's priority model, refitted when enough new samples arrived (any worker's);
    `samples` is their number when the caller knows it."""
    st = rt.state
    n = samples if samples is not None else st.sampled(crawl_id)
    cached = rt.models.get(crawl_id)
    if cached and n - cached[0] < max(REFIT_EVERY, REFIT_GROWTH * cached[0]):
        return cached[1], False
    model = LinkEstimator()
    model.fit(st.samples(crawl_id))
    rt.models[crawl_id] = (n, model)
    return model, True


def _rescore(rt, crawl_id: str, model) -> None:
    st = rt.state
    if not st.lock(f"rescore:{crawl_id}", 2.0):
        return
    queued = [u for u, s in st.frontier(crawl_id, 5000) if s < POST_PRIORITY]
    if queued:
        # the old order (best first) breaks ties between equal new estimates
        st.rescore(crawl_id, {u: v - TIE * i for i, (u, v) in enumerate(zip(queued, model.predict(queued)))})


def process(rt, crawl_id: str, url: str, count: bool = True) -> dict:
    """One page of the traversal; `count` false: the same delivery run again (Redis outage)."""
    st = rt.state
    k = rt.keys(crawl_id)
    ctx = st.page_context(crawl_id, url, count)
    if ctx["done"]:
        return {"url": url, "skipped": "done"}
    if ctx["state"] != "running":
        st.mark_done(crawl_id, url)
        return {"url": url, "skipped": "crawl not running"}
    if ctx["attempts"] > MAX_ATTEMPTS:
        page_failed(rt, crawl_id, url, "gave_up", f"dropped after {MAX_ATTEMPTS} deliveries")
        return {"url": url, "error": "gave_up"}
    blog, options, entry = ctx["blog"], ctx["options"], ctx["entry"]
    rules, pattern, home = blog.get("rules") or {}, blog.get("pattern"), blog["home"]
    if ctx.get("sitemap"):  # issue 15: a sitemap of the blog, not a page
        return sources.process(rt, crawl_id, url, ctx["sitemap"], ctx,
                               lambda urls: _queue_links(rt, crawl_id, *split_links(urls, home, lambda u: bool(
                                   (rx := discovered.link_pattern(pattern, ctx["patterns"])) and is_post(u, rx))),
                                   options))
    post = entry is not None or (bool(pattern and is_post(url, pattern)) and not discovered.listing(url, home))

    if options.get("update") and post and entry is None and _settled(st, crawl_id, url):
        st.mark_done(crawl_id, url)
        return {"url": url, "skipped": "known"}

    page = ctx["page"]
    if page is None:
        resp = rt.downloader.get(url, revisit=bool(options.get("update")))
        if looks_like_feed(resp.content, resp.content_type):
            return _process_feed(rt, crawl_id, url, resp, pattern, home)
        page = html_page(resp)
        if page is None:
            page_failed(rt, crawl_id, url, "not_html", not_html_message(resp))
            return {"url": url, "error": "not_html"}
    elif not usable(page):  # cached by an earlier stage before the gate held: binary is never a post
        page_failed(rt, crawl_id, url, "not_html", f"not an HTML page (binary bytes, {len(page.get('html') or '')} characters)")
        return {"url": url, "error": "not_html"}
    page = rendering.page(rt, crawl_id, url, page)
    limits.check()  # the page's deadline (threads pool: Celery's limits do not hold there)
    final = canonical(page["url"])
    if final != url:
        st.r.sadd(k.seen, final)

    root = parse_html(page["html"], page["url"])
    links = extract_links(root, page["url"])  # canonical already
    link_rx = discovered.link_pattern(pattern, ctx.get("patterns"))  # issue 15: further patterns
    posts, others = split_links(links, home, lambda u: bool(link_rx and is_post(u, link_rx)))
    others += [canonical(u) for u in feed_links(root, page["url"], home)]
    if blog.get("pseudo") and (permalink := declared_permalink(root, page["url"], home)):
        others.append(permalink)  # issue 18: a shortlink's page names its post's permalink

    result = {"url": url, "post": post}
    extracted = extract_root(root, page["html"], rules, entry, blog.get("feed_meta"), page["url"]) if post else None
    feed_entry = entry is not None and not entry.get("pseudo")  # issue 18: pseudo entries prove less
    if post and not feed_entry and not _reads_as_post(extracted, rules, pattern, home, bool(blog.get("pseudo"))):
        post = result["post"] = False  # an /about/ page that a one-slug pattern took in
    # issue 15: recognised by template beyond the patterns; one record per post (canonical, body)
    post, extracted, record_url = discovered.settle(rt, crawl_id, url, page["url"], root, page["html"], rules,
                                                     pattern, home, post, entry, extracted, result)
    if post:
        # ---- issue 18: where the rules fail on a post, the page-level extractor (workers/extract/fallback.py)
        extracted, extraction = page_fallback.complete(rt, crawl_id, url, page, extracted, rules, feed_entry)
        # ---- end issue 18
        if extracted.get("title") or extracted.get("content_text"):
            record = post_record(record_url, home, extracted, rules=_rule_strings(rules), extraction=extraction,
                                 comments=_part(rt, crawl_id, url, "comments", None, comments.comments_for,
                                                rt, crawl_id, url, entry, page, root),
                                 media=_part(rt, crawl_id, url, "media", [], archive.media_for,
                                             rt, crawl_id, url, extracted, entry))
            digest = content_hash(record)
            changed = st.save_record(crawl_id, record, digest, rt.settings.stream_maxlen,
                                     output_unchanged=not options.get("update"), source=ctx.get("source")) \
                if _in_window(record, options, ctx["since"]) and discovered.first_of_body(
                    rt, crawl_id, record, result, pattern, entry) else False
            if changed:
                archive.on_record(rt, crawl_id, record, page)
            discovered.still_first(rt, crawl_id, record, result)  # issue 15: a permalink took the post over
            result["record"] = changed
        else:
            st.add_error(crawl_id, url, "extract", "post pattern matched but the rules extracted nothing")
    else:
        n = st.add_sample(crawl_id, url, len(set(posts)))
        result["sample"] = n

    _queue_links(rt, crawl_id, posts, others, options, samples=result.get("sample"))
    if options.get("trace"):
        st.trace(crawl_id, url, bool(result.get("record") is not None))
    st.mark_done(crawl_id, url, counted=True)
    return result


def _queue_links(rt, crawl_id: str, posts: list[str], others: list[str], options: dict | None = None,
                 samples: int | None = None) -> None:
    """Posts first; other pages by their estimated number of post links (kNN).
    The option order=bfs queues everything first come, first served (the baseline
    the benchmark compares the kNN order with). Trap-like links are left out first."""
    posts, others = _untrapped(rt, crawl_id, posts, variants=False), _untrapped(rt, crawl_id, others)
    if (options if options is not None else rt.state.options(crawl_id)).get("order") == "bfs":
        fresh = list(dict.fromkeys(posts + others))
        top = rt.state.next_sequence(crawl_id, len(fresh))
        first = top - len(fresh) + 1  # sequence number of fresh[0]; earlier found, popped first
        rt.state.enqueue(crawl_id, {u: -float(first + i) for i, u in enumerate(fresh)})
        return
    scored = {u: POST_PRIORITY for u in posts}
    others = [u for u in dict.fromkeys(others) if u not in scored]
    if not others:
        rt.state.enqueue(crawl_id, scored)
        return
    # every link is estimated (numpy, cheap) and the script keeps the ones never queued, so
    # the page's links cost one round trip, not three (which are new, their numbers, queue)
    model, refitted = _estimator(rt, crawl_id, samples)
    rt.state.enqueue_estimated(crawl_id, scored, dict(zip(others, model.predict(others))), TIE)
    if refitted:
        _rescore(rt, crawl_id, model)


def _part(rt, crawl_id: str, url: str, what: str, default, fn, *args):
    """A part of a post (its comments, its media) whose failure is reported and leaves the
    post without it, never losing the post. Redis being away is not the part's fault: raised."""
    import redis
    from celery.exceptions import SoftTimeLimitExceeded

    try:
        return fn(*args)
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, SoftTimeLimitExceeded):
        raise
    except Exception as e:
        log.exception("%s of %s failed", what, url)
        rt.state.add_error(crawl_id, url, f"{what}_error", f"{type(e).__name__}: {e} (the post is kept without its {what})")
        return default


def _untrapped(rt, crawl_id: str, urls: list[str], variants: bool = True) -> list[str]:
    """`urls` without the trap-like ones (tasks/discover/traps.py): too long, too deep, self-
    repeating paths, and (`variants`; not for post links: `?p=123` permalinks) past the crawl's
    limit of query variants per path (new urls only)."""
    st = rt.state
    keep, keyed = [], []
    for u in dict.fromkeys(urls):
        why = trap_reason(u)
        if why:
            st.note_trap(crawl_id, u, why)
            continue
        keep.append(u)
    if not variants:
        return keep
    fresh = st.unseen(crawl_id, [u for u in keep if variant_key(u)])
    keyed = [(u, variant_key(u)) for u in fresh]
    over = st.admit_variants(crawl_id, keyed, TRAP_LIMITS.max_query_variants)
    for u in over:
        st.note_trap(crawl_id, u, f"more than {TRAP_LIMITS.max_query_variants} query variants of its path")
    return [u for u in keep if u not in over]


def _process_feed(rt, crawl_id: str, url: str, resp, pattern: str | None, home: str) -> dict:
    """A category/tag/author feed met in the traversal: a list of post links, nothing to extract."""
    st = rt.state
    try:
        feed = feedlib.parse_feed(resp.content, resp.url, resp.content_type)
    except feedlib.FeedError as e:
        page_failed(rt, crawl_id, url, "feed", str(e))
        return {"url": url, "error": "feed"}
    links = [canonical(e["url"]) for e in feed.get("entries", []) if e.get("url")]
    posts, others = split_links(links, home, lambda u: bool(pattern and is_post(u, pattern)))
    st.add_sample(crawl_id, url, len(set(posts)))
    _queue_links(rt, crawl_id, posts, [])
    st.mark_done(crawl_id, url, counted=True)
    return {"url": url, "feed": len(links)}


def _broad(pattern: str | None, home: str) -> bool:
    """Does the post pattern take in any page named by one slug at the site's root (Ghost,
    Medium-like blogs), so that /about/ or /contact/ would pass for posts?"""
    probe = urljoin(home, "/zz-some-page-name-zz")
    return bool(pattern) and (is_post(probe, pattern) or is_post(probe + "/", pattern))


def _reads_as_post(extracted: dict, rules: dict, pattern: str | None, home: str, strict: bool = False) -> bool:
    """A page beyond the feed that the pattern takes in: under a broad pattern (or rules learned
    without a feed, `strict`) it must also show a date when the blog's posts do (the date
    rule held on most training pages)."""
    if not strict and not _broad(pattern, home):
        return True
    date = (rules or {}).get("date")
    dated = isinstance(date, dict) and float(date.get("share") or 0) >= 0.6
    return bool(extracted.get("published")) or not dated


def _settled(st, crawl_id: str, url: str) -> bool:
    """update_crawl: a post we hold, published before `since`, is not fetched again;
    newer known posts are (their content hash tells whether they changed)."""
    old = st.record(crawl_id, url)
    if old is None:
        return False
    since = st.since(crawl_id)
    return bool(since and old.get("published") and old["published"][:10] < since[:10])


def _rule_strings(rules: dict) -> dict:
    return {f: rule_of(rules, f) for f in rules or {}}


def _in_window(record: dict, options: dict, since: str | None) -> bool:
    """update_crawl emits posts published after `since` (or undated ones that changed);
    a scheduled update emits every post new since the last crawl, whatever its date."""
    if not options.get("update") or not since or options.get("scheduled"):
        return True
    pub = record.get("published")
    return not pub or pub[:10] >= since[:10]
