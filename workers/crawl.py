"""Celery tasks of a crawl: thin wrappers, JSON in and out, state through workers.state.

    new_crawl(url)          discover feeds -> chord(learn_page x entries) -> reduce_rules -> traversal
    update_crawl(url,since) stored rules checked against the feed; re-learned if they stopped matching
    process_url(crawl, url) one page of the traversal: fetch, extract or sample, queue links, dispatch

Task names are stable (`blogharvest.*`): other services send them by name.
"""
from __future__ import annotations

import functools
import logging
import time
import uuid

import redis
from celery import chord
from celery.exceptions import SoftTimeLimitExceeded

from tasks.fetch.http import FetchError
from workers.app import app
from workers import heal, limits, orphans, pipeline, validate
from workers.fetch import pacing, rendering
from workers.fetch.patience import COUNTDOWN_MAX, HostBusy, defer_page, remembering
from workers.start import send_due, send_page, start_crawl
from workers.runtime import runtime
from workers.state import ENDED

log = logging.getLogger("blogharvest")

# Tasks that may run twice safely (idempotent keys) are re-queued if their worker dies.
IDEMPOTENT = dict(acks_late=True, reject_on_worker_lost=True)
# Redis unreachable: the step is not at fault; it is retried or re-sent, never reported as failed.
REDIS_DOWN = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)
# process_url goes on to the next best page itself, at most this many pages and seconds
CHAIN_PAGES = 16
CHAIN_SECONDS = 30.0
BUSY_RETRIES = 100_000  # a busy host (politeness) is no failure: its retries are not counted as such
MAX_STALLS = 30  # discovery runs in a row that fetched nothing new: it never will (`_stalled`)

heal.connect(app)  # heartbeats, holds and the sweep inside every worker (workers/heal.py)
limits.connect(app)  # task deadlines that hold in the threads pool (workers/limits.py)
pacing.connect(app)  # pages of paced hosts sent when their slot comes (workers/fetch/pacing.py)


@app.task(name="blogharvest.new_crawl", bind=True, max_retries=3, **IDEMPOTENT)
def new_crawl(self, url: str, since: str | None = None, crawl_id: str | None = None,
              options: dict | None = None) -> str:
    """Start (or resume) a crawl of the blog at `url`; returns the crawl id at once.
    Arguments failing the schema (workers/validate.py) raise InvalidTask; when the crawl they
    name exists and is this blog's, it ends "failed" with the reason in its report."""
    return _start(self, url, since, crawl_id, options)


def _start(task, url, since, crawl_id, options) -> str:
    """new_crawl's and update_crawl's body. `task` is the task running it: a retry (a busy
    host) is that task's message sent again (calling another task's `run` would retry nothing,
    and the crawl would wait for the sweep to find it unstarted)."""
    rt = runtime()
    url, since, crawl_id, options = _checked_crawl_args(rt, url, since, crawl_id, options)
    crawl_id = rt.state.create_crawl(url, since, options or {}, crawl_id)
    state, phase = rt.state.r.hmget(rt.keys(crawl_id).crawl, ["state", "phase"])
    if state in ENDED:  # a late copy of the message (restored, redelivered)
        return crawl_id
    if phase in ("traverse",):
        pipeline.dispatch(rt, crawl_id, send=send_page)
        return crawl_id
    if state != "running":
        rt.state.set_state(crawl_id, "running")
    rt.state.set_phase(crawl_id, "discover")
    # run by a task: a sweep that finds no message of it left starts it again (workers/orphans.py)
    rt.state.r.hset(rt.keys(crawl_id).crawl, "tasked", 1)
    # a retry after HostBusy, or a run after its worker died, goes on where this one stopped
    patient, memo = remembering(rt, crawl_id, eager=True)
    try:
        with rt.downloader.crawl(crawl_id):
            plan = pipeline.discover(patient, crawl_id, url, since)
    except pipeline.CrawlFailed as e:
        rt.state.set_state(crawl_id, "failed", str(e))
        return crawl_id
    except HostBusy as e:  # politeness: discovery goes on at the host's next turn, no thread sleeps
        memo.keep()
        if _stalled(rt, crawl_id, memo):
            why = f"discovery fetched nothing new in {MAX_STALLS} runs in a row (each waiting for a busy host): given up"
            rt.state.add_error(crawl_id, url, "discovery", why)
            rt.state.set_state(crawl_id, "failed", why)
            return crawl_id
        raise task.retry(countdown=min(e.wait, COUNTDOWN_MAX), max_retries=BUSY_RETRIES)
    except REDIS_DOWN:
        heal.wait_for_redis(rt.state.r)
        raise task.retry(countdown=1)  # the state is reachable again: the step from its start
    except Exception as e:  # a bug or a page we could not handle: say so, never hang the crawl
        log.exception("discovery of %s failed", url)
        _fail(rt, crawl_id, url, e)
        return crawl_id
    memo.forget()
    if plan.get("nothing"):  # issue 35: an update crawl with nothing to read (since in the future)
        rt.state.r.hset(rt.keys(crawl_id).crawl, "since_note", plan["nothing"])
        rt.state.set_state(crawl_id, "done", plan["nothing"])
        return crawl_id
    if plan["learn"]:
        rt.state.set_phase(crawl_id, "learn")
        # a training page a browser draws is learned where the browsers are (the render queue)
        header = [_on_its_queue(learn_page.si(crawl_id, e["url"]), rendering.queue_for(rt, crawl_id, e["url"]))
                  for e in plan["entries"]]
        chord(header)(reduce_rules.s(crawl_id))
    else:
        pipeline.start_traversal(rt, crawl_id, None, send=send_page)
    return crawl_id


def _stalled(rt, crawl_id: str, memo) -> bool:
    """Has discovery stopped getting further? Each run after a busy host's wait goes at least one
    request further (what it fetched is read back); MAX_STALLS runs in a row that fetched nothing
    new never will (a step that forgot a failure and started over looped for good)."""
    key = rt.keys(crawl_id).crawl
    if memo.fresh:
        rt.state.r.hdel(key, "stalls")
        return False
    return rt.state.r.hincrby(key, "stalls", 1) >= MAX_STALLS


def _on_its_queue(sig, queue: str | None):
    return sig.set(queue=queue) if queue else sig


def _checked_crawl_args(rt, url, since, crawl_id, options):
    try:
        url, since, crawl_id, options = validate.crawl_args(url, since, crawl_id, options)
        if crawl_id is not None:
            known = rt.state.r.hget(rt.keys(crawl_id).crawl, "url")
            if known is not None and known != url:
                raise validate.InvalidTask(f"crawl_id: {crawl_id} is the crawl of {known!r:.200}, not of {url!r:.200}")
        return url, since, crawl_id, options
    except validate.InvalidTask as e:
        log.error("refused task arguments: %s", e)
        try:  # the crawl the arguments name, if it is this blog's: its report says why it ended
            validate.check_crawl_id(crawl_id, url)
            known = rt.state.r.hget(rt.keys(crawl_id).crawl, "url")
        except (validate.InvalidTask, TypeError, ValueError):
            known = None
        if known is not None and known == url:
            rt.state.add_error(crawl_id, str(url), "invalid_task", str(e))
            rt.state.set_state(crawl_id, "failed", f"invalid task: {e}")
        raise


def _known_crawl(rt, crawl_id, url) -> bool:
    """The page task's arguments pass the schema and name an existing crawl (else nothing is written)."""
    try:
        validate.page_args(crawl_id, url)
    except validate.InvalidTask as e:
        log.error("refused task arguments: %s", e)
        return False
    if not rt.state.r.exists(rt.keys(crawl_id).crawl):
        log.error("refused task arguments: crawl %s does not exist", crawl_id)
        return False
    return True


@app.task(name="blogharvest.update_crawl", bind=True, max_retries=3, **IDEMPOTENT)
def update_crawl(self, url: str, since: str | None = None, crawl_id: str | None = None,
                 options: dict | None = None) -> str:
    """Posts published or changed after `since`, with the blog's stored rules."""
    return _start(self, url, since or "", crawl_id, dict(options or {}, update=True))


@app.task(name="blogharvest.learn_page", bind=True, max_retries=2, **IDEMPOTENT)
def learn_page(self, crawl_id: str, url: str) -> dict:
    """The best rule per field on one training page (one chord member)."""
    rt = runtime()
    if not _known_crawl(rt, crawl_id, url):
        return {"url": str(url)[:200], "error": "invalid_task"}
    try:
        with rt.downloader.crawl(crawl_id):
            return pipeline.learn_one(rt, crawl_id, url)
    except SoftTimeLimitExceeded:
        rt.state.add_error(crawl_id, url, "timeout", "rule learning exceeded its time limit")
        return {"url": url, "error": "timeout"}
    except HostBusy as e:  # a retry keeps the chord membership; the thread goes to other work
        raise self.retry(countdown=min(e.wait, COUNTDOWN_MAX), max_retries=BUSY_RETRIES)
    except REDIS_DOWN:
        if heal.wait_for_redis(rt.state.r):
            raise self.retry(countdown=1)
        raise
    except Exception as e:  # one bad training page must not stop the chord: it just has no vote
        log.exception("learning on %s failed", url)
        rt.state.add_error(crawl_id, url, "learn", f"{type(e).__name__}: {e}")
        return {"url": url, "error": "learn"}


@app.task(name="blogharvest.reduce_rules", bind=True, **IDEMPOTENT)
def reduce_rules(self, results: list, crawl_id: str) -> dict:
    """Algorithm 1's vote: the most frequent best rule per field; then the traversal starts."""
    rt = runtime()
    if not _known_crawl(rt, crawl_id, rt.state.r.hget(rt.keys(str(crawl_id)).crawl, "url") or "-"):
        return {}
    try:
        with rt.downloader.crawl(crawl_id):
            rules = pipeline.reduce(rt, crawl_id, results)
            pipeline.start_traversal(rt, crawl_id, rules, send=send_page)
    except HostBusy as e:  # robots.txt read for the sitemaps at the host's turn: both steps run again then
        raise self.retry(countdown=min(e.wait, COUNTDOWN_MAX), max_retries=BUSY_RETRIES)
    except REDIS_DOWN:
        if heal.wait_for_redis(rt.state.r):
            raise self.retry(countdown=1)
        raise
    except Exception as e:
        log.exception("reducing the rules of %s failed", crawl_id)
        _fail(rt, crawl_id, rt.state.crawl_info(crawl_id).get("url") or "", e)
        return {}
    return rules


@app.task(name="blogharvest.process_url", bind=True, max_retries=3, ignore_result=True, **IDEMPOTENT)
def process_url(self, crawl_id: str, url: str) -> dict:
    """One page of a crawl's traversal, then the next best ones while this task may:
    a page handed to ourselves skips the broker (publish, deliver, ack) for a Redis pop."""
    rt = runtime()
    # (a Redis outage at the first look is waited out as the page's own steps are: a task that
    # ended here would leave its page in flight until the sweep finds it stale, minutes later)
    if not _ride_out(rt, lambda again: _known_crawl(rt, crawl_id, url)):
        return {"url": str(url)[:200], "error": "invalid_task"}
    deadline = time.monotonic() + CHAIN_SECONDS
    chain = pipeline.Chain()
    out = _page(self, rt, crawl_id, url, True, chain)
    mine = (self.request.delivery_info or {}).get("routing_key") or app.conf.task_default_queue

    def keep(u: str) -> bool | None:
        """True: this task reads `u` next; False: sent (a page for the other queue's workers goes
        there); None: booked a later slot of its host, the pacer sends it then, or, making no
        request of its paced host, sent behind the pages that do (issue 33): this thread takes
        the best page waiting in the broker, so a host whose slot is now is not kept waiting."""
        if (rendering.queue_for(rt, crawl_id, u) or app.conf.task_default_queue) != mine:
            return False
        when = pacing.schedule(rt, crawl_id, u)
        if when is None:
            send_due(crawl_id, u, priority=pacing.BEHIND)
        return True if when else None

    held = None  # the page kept last: its note is overwritten by the next one's, or dropped at the end
    chain_id = uuid.uuid4().hex[:16]  # the chain's one field among the worker's holds (heal.pass_page)
    try:
        for _ in range(CHAIN_PAGES - 1):
            if time.monotonic() > deadline or "deferred" in out:
                break
            # the pages the last page's writes handed out (State.end_page), else handed out now
            url = _ride_out(rt, lambda again: pipeline.dispatch(
                rt, crawl_id, send=send_page, keep=keep, handed=None if again else chain.handed_out(rt.state, crawl_id)))
            if url is None:
                return out
            # no message carries the page: the sweep must know (noted in the page's first round trip)
            chain = pipeline.Chain(note=functools.partial(heal.pass_page, crawl_id=crawl_id, done=held, url=url,
                                                          chain=chain_id))
            held = url
            out = _page(self, rt, crawl_id, url, False, chain)
        _ride_out(rt, lambda again: pipeline.dispatch(rt, crawl_id, send=send_page,
                                                      handed=None if again else chain.handed_out(rt.state, crawl_id)))
        return out
    finally:
        if held is not None:
            heal.release_page(rt.state.r, crawl_id, held, chain_id)


def _ride_out(rt, step, tries: int = 3):
    """Run an idempotent step; a Redis outage is waited out (backoff) and the step run again
    (`step(again)`: again is true on a re-run)."""
    for attempt in range(tries):
        try:
            return step(attempt > 0)
        except REDIS_DOWN:
            if attempt == tries - 1 or not heal.wait_for_redis(rt.state.r):
                raise


def _page(task, rt, crawl_id: str, url: str, first: bool, chain: pipeline.Chain) -> dict:
    """Process one page (in the task's `chain`: the pages its writes hand out are there for
    `dispatch`, whatever happens after those writes); a transient fetch error is retried
    later with backoff, by Celery for the task's own page, by a new message for a page the
    task went on to; a busy host (politeness) defers the page; a Redis outage is waited out
    and the page read again."""
    retries = task.request.retries if first else 0
    limits.start(task.soft_time_limit or app.conf.task_soft_time_limit)  # each page of a chain its own
    patient, memo = remembering(rt, crawl_id, url)  # a deferred page's next run reuses its fetches
    try:
        with rt.downloader.crawl(crawl_id):
            out = _ride_out(rt, lambda again: pipeline.process(patient, crawl_id, url, count=not again,
                                                               chain=chain))
        memo.forget()
        return out
    except HostBusy as busy:
        wait = busy.wait

        def defer(again):
            memo.keep()
            defer_page(rt, crawl_id, url, wait)

        _ride_out(rt, defer)
        return {"url": url, "deferred": wait}
    except FetchError as e:
        if e.transient and retries < task.max_retries:
            countdown = min(300.0, e.retry_after or (2 ** retries) * 2.0)
            rt.state.touch_inflight(crawl_id, [url])
            if first:
                raise task.retry(countdown=countdown, exc=None)
            send_page(crawl_id, url, countdown=countdown, retries=retries + 1)
            return {"url": url, "retry": e.kind}
        pipeline.page_failed(rt, crawl_id, url, e.kind, e.message)
        return {"url": url, "error": e.kind}
    except SoftTimeLimitExceeded:
        pipeline.page_failed(rt, crawl_id, url, "timeout", "page processing exceeded its time limit")
        return {"url": url, "error": "timeout"}
    except REDIS_DOWN:
        raise  # Redis away for minutes, not the page at fault: it stays in flight and the sweep re-sends it
    except Exception as e:  # a bad page must not stop the crawl: report it and go on
        log.exception("page %s failed", url)
        pipeline.page_failed(rt, crawl_id, url, "error", f"{type(e).__name__}: {e}")
        return {"url": url, "error": "error"}


@app.task(name="blogharvest.sweep", **IDEMPOTENT)
def sweep(crawl_id: str | None = None) -> int:
    """Hand out again the pages whose worker died, and finish idle crawls (beat runs this)."""
    rt = runtime()
    if crawl_id is not None and not _known_crawl(rt, crawl_id, "-"):
        return 0
    ids = [crawl_id] if crawl_id else orphans.crawls(rt, limit=500)[0]  # (tasks' crawls traversing)
    n = 0
    for cid in ids:
        n += pipeline.recover(rt, cid, send=send_page)
    return n


def _fail(rt, crawl_id: str, url: str, e: Exception) -> None:
    rt.state.add_error(crawl_id, url, "internal", f"{type(e).__name__}: {e}")
    rt.state.set_state(crawl_id, "failed", f"internal error: {type(e).__name__}: {e}")



app.conf.beat_schedule = {
    "blogharvest-sweep": {"task": "blogharvest.sweep", "schedule": 60.0},
}


@app.task(name="blogharvest.scheduled_update", **IDEMPOTENT)
def scheduled_update(url: str, every: str | None = None) -> str | None:
    """Beat's periodic job: an update crawl since the last finished crawl of the blog."""
    rt = runtime()
    if rt.state.active_crawl(url):
        return None  # the previous crawl of this blog still runs
    since = rt.state.last_finished(url)
    options = {"update": bool(since), "scheduled": bool(since)}
    cid = rt.state.create_crawl(url, since or None, options)
    start_crawl(app, rt.state, cid, url, since, options)
    return cid
