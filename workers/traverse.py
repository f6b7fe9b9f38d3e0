"""The crawl's frontier: seeds, handing pages out, queueing a page's links, finding pages lost.

Posts are queued first; other pages by the number of post links the kNN estimator
(tasks.discover.priority) expects on them, refitted on the crawl's samples as they come and
the queued pages rescored then. Trap-like links (tasks.discover.traps) are never queued.
Every step is idempotent: urls are queued once (a seen set), pages handed out once (the
in-flight hash), so a redelivered task or a recovery sends a page again, never twice over.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

from tasks.discover.priority import LinkEstimator
from tasks.discover.traps import DEFAULT as TRAP_LIMITS, TrapLimits, family, family_pattern, trap_reason, variant_key
from tasks.discover.traversal import ORDERED_PRIORITY, POST_PRIORITY, SEED_PRIORITY
from workers.archive import post as archive
from workers.discover import sources, update, waits
from workers.fetch import validators

TIE = 1e-9  # discovery order breaks ties between equal estimates
REFIT_EVERY = 10  # new samples before the priority model is refitted and the frontier rescored,
REFIT_GROWTH = 0.2  # or this share of the samples it was fitted on, if more (a fit costs O(samples))
RESCORED = 5000  # queued pages rescored at most when the model is refitted (the best first)

Send = Callable[[str, str], None]


@dataclass
class Chain:
    """A page a task processes in its chain (workers/crawl.py, process_url): `note` adds the
    worker's note that it holds the page to the page's first round trip (State.page_context);
    its last round trip (State.end_page) hands the next pages out and sets `handed`: (urls,
    whether the crawl finished), for `dispatch` to send or keep, whatever happens after it."""
    note: Callable | None = None
    handed: tuple[list[str], bool] | None = None
    at: str | None = None  # the in-flight time the page's writes hand the next pages out under

    def stamp(self) -> str:
        """A new hand-out time for the page's writes: by it, the pages a write handed out are
        found again when its reply was lost (Redis went away after running it)."""
        self.at = repr(time.time())
        return self.at

    def handed_out(self, st, crawl_id: str) -> tuple[list[str], bool] | None:
        """What `dispatch` sends or keeps: the pages the writes handed out; where the reply of
        a write was lost, the pages in flight under its time (State.handed_at), which no message
        carries and nobody else will send before the stale sweep; else None (hand out now)."""
        if self.handed is None and self.at is not None:
            urls = st.handed_at(crawl_id, self.at)
            return (urls, False) if urls else None
        return self.handed


def start_traversal(rt, crawl_id: str, rules: dict | None, send: Send) -> None:
    """The home page, the feed's posts and the blog's sitemaps queued; the first pages sent.
    The phase turns to traverse only then: a sweep (any worker's, at any moment) dispatches a
    traversing crawl and ends it if nothing is queued, so before the seeds it would end it done."""
    st = rt.state
    if st.state_of(crawl_id) != "running":
        return
    blog = st.blog(crawl_id)
    seeds = {blog["home"]: SEED_PRIORITY}
    # issue 35: an update crawl leaves the feed's posts dated before `since`
    ctx = {"options": st.options(crawl_id), "blog": blog, "since": st.crawl_info(crawl_id).get("since")}
    entry_urls = update.seeds(rt, crawl_id, list(blog.get("entry_urls") or []), update.since_of(ctx),
                              update.exact_of(ctx))
    for u in entry_urls:
        seeds.setdefault(u, POST_PRIORITY)
    st.mark_sources(crawl_id, entry_urls, "feed")  # issue 15: sources
    st.enqueue(crawl_id, seeds)
    sources.seed(rt, crawl_id, blog["home"])  # issue 15: sitemaps, popped like seeds
    st.set_phase(crawl_id, "traverse")
    dispatch(rt, crawl_id, send)


def max_pages(rt, crawl_id: str, options: dict | None = None) -> int:
    """The crawl's page budget (its options never change: read once per process, or taken
    from `options` when the caller holds them)."""
    n = rt.max_pages.get(crawl_id)
    if n is None:
        options = rt.state.options(crawl_id) if options is None else options
        n = rt.max_pages[crawl_id] = int(options.get("max_pages") or rt.settings.max_pages)
    return n


def hand_out(rt, crawl_id: str, options: dict | None = None) -> tuple[int, int]:
    """(parallelism, page budget): what State.end_page needs to hand the next pages out. An
    update crawl's pages waiting in flight (waits.waiting) take no slot of its parallelism."""
    n = rt.settings.crawl_parallelism
    if _updating(rt, crawl_id, options):
        n += waits.waiting(rt, crawl_id)
    return n, max_pages(rt, crawl_id, options)


def _updating(rt, crawl_id: str, options: dict | None) -> bool:
    """Is it an update crawl (its options never change: read once per process)?"""
    if options is not None:
        return bool(options.get("update"))
    got = rt.updating.get(crawl_id)
    if got is None:
        got = rt.updating[crawl_id] = bool(rt.state.options(crawl_id).get("update"))
    return got


def dispatch(rt, crawl_id: str, send: Send, keep: Callable[[str], bool] | None = None,
             handed: tuple[list[str], bool] | None = None) -> str | None:
    """Hand out the best queued pages up to the crawl's parallelism; finish an idle crawl.
    With `keep`, the best page it accepts is not sent but returned: the caller reads it
    next itself (it is in flight like the others, so a dead caller's page is handed out again);
    a page `keep` answers None for it has scheduled itself (workers/fetch/pacing.py).
    `handed`: (urls, finished) that the end of a page handed out already (State.end_page)."""
    if handed is None:
        urls, finished = rt.state.hand_out(crawl_id, *hand_out(rt, crawl_id))
    else:
        urls, finished = list(handed[0]), handed[1]
    kept = None
    for u in urls:
        if keep is not None and kept is None:
            verdict = keep(u)
            if verdict:
                kept = u
                continue
            if verdict is None:
                continue
        send(crawl_id, u)
    if finished:
        archive.on_finished(rt, crawl_id)  # BLOGHARVEST_WACZ_DIR on a cluster: the crawl's WACZ
    return kept


def recover(rt, crawl_id: str, send: Send, older_than: float | None = None) -> int:
    """Send again the pages handed out long ago (a dead worker held them), then dispatch."""
    st = rt.state
    older_than = rt.settings.stale_seconds if older_than is None else older_than
    stale = st.stale_inflight(crawl_id, older_than)
    stale = st.touch_inflight(crawl_id, stale, older_than)  # still stale now: not finished, deferred or sent since
    for u in stale:
        send(crawl_id, u)
    if st.state_of(crawl_id) == "running" and st.r.hget(rt.keys(crawl_id).crawl, "phase") == "traverse":
        dispatch(rt, crawl_id, send)
    return len(stale)


def page_failed(rt, crawl_id: str, url: str, kind: str, message: str) -> None:
    """The page's error goes to the report and the page is done (not handed out again); its
    validators are dropped, so that an update crawl reads it again rather than taking a 304
    for a page read already."""
    rt.state.add_error(crawl_id, url, kind, message)
    rt.state.mark_done(crawl_id, url)
    validators.forget(rt.state.r, crawl_id, url)


# ------------------------------------------------------------------ a page's links

@dataclass
class Links:
    """A page's links as the frontier takes them (State.enqueue_estimated, State.end_page):
    `posts` at their priority, the others at their `estimates` less `tie` x their discovery
    number; `model`: the priority model refitted for them (the queue is rescored once they
    are in); `sampled`: the page's own sample went in before the fit, the blog's samples then;
    `trap`: the page's count as a barren page of its family (State.end_page's `trap`)."""
    posts: dict
    estimates: dict
    tie: float = TIE
    model: object | None = None
    sampled: int | None = None
    trap: dict | None = None


@dataclass(frozen=True)
class Source:
    """The page whose links are queued, as the trap count needs it (tasks/discover/traps.py,
    `family`): its url, the blog's home, the families cut so far (State.page_context's "cut"),
    whether it counts (a page that is not a post: a post's links are not its to answer for)."""
    url: str
    home: str
    cut: dict
    counts: bool = True

    def family(self) -> str:
        return family(self.url, self.home)


def queue_links(rt, crawl_id: str, posts: list[str], others: list[str], options: dict | None = None,
                samples: int | None = None, traps: TrapLimits = TRAP_LIMITS) -> None:
    """`links`, queued (one round trip) and the queue rescored when the model was refitted."""
    found = links(rt, crawl_id, posts, others, options, samples, traps)
    rt.state.enqueue_estimated(crawl_id, found.posts, found.estimates, found.tie)
    rescore(rt, crawl_id, found)


def links(rt, crawl_id: str, posts: list[str], others: list[str], options: dict | None = None,
          samples: int | None = None, traps: TrapLimits = TRAP_LIMITS,
          sample: tuple[str, int] | None = None, source: Source | None = None) -> Links:
    """Posts first; other pages by their estimated number of post links (kNN). The option
    order=bfs queues everything first come, first served (the baseline the benchmark compares
    the kNN order with: every estimate 0, a tie of 1). Trap-like links (past `traps`) are left
    out first, and, given the page's `source`, the links into families cut as traps; the
    page is counted as barren or not (Links.trap). `samples`: the blog's samples, counting the
    page's own `sample` (url, post links), which is written first if the model is refitted now
    (the fit reads it)."""
    posts, others = untrapped(rt, crawl_id, posts, traps, variants=False), untrapped(rt, crawl_id, others, traps)
    if source is not None:
        others = uncut(rt, crawl_id, others, source)
    if (options if options is not None else rt.state.options(crawl_id)).get("order") == "bfs":
        found = Links({}, {u: 0.0 for u in dict.fromkeys(posts + others)}, tie=1.0)
        return _counted(found, set(posts), source, traps)
    scored = {u: POST_PRIORITY for u in posts}
    others = [u for u in dict.fromkeys(others) if u not in scored]
    if not others:
        return _counted(Links(scored, {}), set(), source, traps)
    # every link is estimated (numpy, cheap) and the script keeps the ones never queued, so
    # the page's links cost no round trip of their own (which are new, their numbers, queue)
    model, refitted, sampled = _estimator(rt, crawl_id, samples, sample)
    found = Links(scored, dict(zip(others, model.predict(others))), model=model if refitted else None,
                  sampled=sampled)
    return _counted(found, set(), source, traps)


def _counted(found: Links, posts: set, source: Source | None, traps: TrapLimits) -> Links:
    """`found` with the page's trap count (State.end_page's `trap`): its family, the estimates
    of that family (`kin`) and those that are posts (order=bfs), by their 1-based index."""
    if source is None or not source.counts or not traps.max_barren:
        return found
    fam = source.family()
    kin, post = [], []
    for i, u in enumerate(found.estimates, 1):
        if u in posts:
            post.append(i)
        elif family(u, source.home) == fam:
            kin.append(i)
    if kin:  # a page bringing none of its own family cannot be a barren one
        found.trap = {"family": fam, "limit": traps.max_barren, "kin": kin, "post": post}
    return found


def uncut(rt, crawl_id: str, urls: list[str], source: Source) -> list[str]:
    """`urls` without those in a family cut as a trap (each counted in the crawl's `trapped`)."""
    if not source.cut:
        return urls
    keep, left = [], []
    for u in urls:
        (left if family(u, source.home) in source.cut else keep).append(u)
    if left:
        rt.state.note_traps(crawl_id, [(u, f"{family_pattern(source.home, family(u, source.home))} "
                                           f"is cut as a trap") for u in left])
    return keep


def report_cut(rt, crawl_id: str, url: str, source: Source, pages: int) -> None:
    """The report's entry for a family this page cut: its paths and the pages it took."""
    rt.state.add_error(crawl_id, url, "trap", f"{family_pattern(source.home, source.family())} not followed "
                                              f"further: {pages} of its pages in a row brought only more of "
                                              f"its pages and no post (a trap)")


def rescore(rt, crawl_id: str, found: Links) -> None:
    """After `found` is queued: the queue rescored if the model was refitted for it."""
    if found.model is not None:
        _rescore(rt, crawl_id, found.model)


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

def _estimator(rt, crawl_id: str, samples: int | None = None, sample: tuple[str, int] | None = None):
    """(model, refitted, samples ever if `sample` was written): the crawl's priority model,
    refitted when enough new samples arrived (any worker's); `samples` is their number when
    the caller knows it, `sample` the caller's own, not yet written."""
    st = rt.state
    n = samples if samples is not None else st.sampled(crawl_id)
    cached = rt.models.get(crawl_id)
    if cached and n - cached[0] < max(REFIT_EVERY, REFIT_GROWTH * cached[0]):
        return cached[1], False, None
    if cached:  # this process's other threads go on with the old model meanwhile, not refitting it too
        rt.models[crawl_id] = (n, cached[1])
    written = st.add_sample(crawl_id, *sample) if sample is not None else None
    model = LinkEstimator()
    model.fit(st.samples(crawl_id))
    rt.models[crawl_id] = (written or n, model)
    return model, True, written


def _rescore(rt, crawl_id: str, model) -> None:
    st = rt.state
    if not st.lock(f"rescore:{crawl_id}", 2.0):
        return
    queued = [u for u, s in st.frontier(crawl_id, RESCORED) if s < ORDERED_PRIORITY]  # the model's own
    if queued:
        # the old order (best first) breaks ties between equal new estimates
        st.rescore(crawl_id, {u: v - TIE * i for i, (u, v) in enumerate(zip(queued, model.predict(queued)))})
