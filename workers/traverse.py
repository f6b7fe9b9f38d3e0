"""The crawl's frontier: seeds, handing pages out, queueing a page's links, finding pages lost.

Posts are queued first; other pages by the number of post links the kNN estimator
(tasks.discover.priority) expects on them, refitted on the crawl's samples as they come and
the queued pages rescored then. Trap-like links (tasks.discover.traps) are never queued.
Every step is idempotent: urls are queued once (a seen set), pages handed out once (the
in-flight hash), so a redelivered task or a recovery sends a page again, never twice over.
"""
from __future__ import annotations

from typing import Callable

from tasks.discover.priority import LinkEstimator
from tasks.discover.traps import DEFAULT as TRAP_LIMITS, TrapLimits, trap_reason, variant_key
from tasks.discover.traversal import POST_PRIORITY, SEED_PRIORITY
from workers.archive import post as archive
from workers.discover import sources

TIE = 1e-9  # discovery order breaks ties between equal estimates
REFIT_EVERY = 10  # new samples before the priority model is refitted and the frontier rescored,
REFIT_GROWTH = 0.2  # or this share of the samples it was fitted on, if more (a fit costs O(samples))
RESCORED = 5000  # queued pages rescored at most when the model is refitted (the best first)

Send = Callable[[str, str], None]


def start_traversal(rt, crawl_id: str, rules: dict | None, send: Send) -> None:
    """The home page, the feed's posts and the blog's sitemaps queued; the first pages sent.
    The phase turns to traverse only then: a sweep (any worker's, at any moment) dispatches a
    traversing crawl and ends it if nothing is queued, so before the seeds it would end it done."""
    st = rt.state
    if st.state_of(crawl_id) != "running":
        return
    blog = st.blog(crawl_id)
    seeds = {blog["home"]: SEED_PRIORITY}
    for u in blog.get("entry_urls") or []:
        seeds.setdefault(u, POST_PRIORITY)
    st.mark_sources(crawl_id, list(blog.get("entry_urls") or []), "feed")  # issue 15: sources
    st.enqueue(crawl_id, seeds)
    sources.seed(rt, crawl_id, blog["home"])  # issue 15: sitemaps, popped like seeds
    st.set_phase(crawl_id, "traverse")
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
    """The page's error goes to the report and the page is done (not handed out again)."""
    rt.state.add_error(crawl_id, url, kind, message)
    rt.state.mark_done(crawl_id, url)


# ------------------------------------------------------------------ a page's links

def queue_links(rt, crawl_id: str, posts: list[str], others: list[str], options: dict | None = None,
                samples: int | None = None, traps: TrapLimits = TRAP_LIMITS) -> None:
    """Posts first; other pages by their estimated number of post links (kNN).
    The option order=bfs queues everything first come, first served (the baseline
    the benchmark compares the kNN order with). Trap-like links (past `traps`) are left out first."""
    posts, others = untrapped(rt, crawl_id, posts, traps, variants=False), untrapped(rt, crawl_id, others, traps)
    if (options if options is not None else rt.state.options(crawl_id)).get("order") == "bfs":
        _queue_in_order(rt, crawl_id, posts + others)
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


def _queue_in_order(rt, crawl_id: str, urls: list[str]) -> None:
    """Breadth first: each new link after every link found before it."""
    fresh = list(dict.fromkeys(urls))
    top = rt.state.next_sequence(crawl_id, len(fresh))
    first = top - len(fresh) + 1  # sequence number of fresh[0]; earlier found, popped first
    rt.state.enqueue(crawl_id, {u: -float(first + i) for i, u in enumerate(fresh)})


def untrapped(rt, crawl_id: str, urls: list[str], traps: TrapLimits = TRAP_LIMITS,
              variants: bool = True) -> list[str]:
    """`urls` without the trap-like ones (tasks/discover/traps.py): too long, too deep, self-
    repeating paths, and (`variants`; not for post links: `?p=123` permalinks) past the crawl's
    limit of query variants per path (new urls only)."""
    st = rt.state
    keep = []
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
    over = st.admit_variants(crawl_id, keyed, traps.max_query_variants)
    for u in over:
        st.note_trap(crawl_id, u, f"more than {traps.max_query_variants} query variants of its path")
    return [u for u in keep if u not in over]


# ------------------------------------------------------------------ the priority model

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
    queued = [u for u, s in st.frontier(crawl_id, RESCORED) if s < POST_PRIORITY]
    if queued:
        # the old order (best first) breaks ties between equal new estimates
        st.rescore(crawl_id, {u: v - TIE * i for i, (u, v) in enumerate(zip(queued, model.predict(queued)))})
