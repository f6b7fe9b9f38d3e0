"""What a dead worker leaves that nothing else would take up: pages in flight that nothing
carries any more, found and sent again by the sweep; a crawl it ended but did not retire.

A page is in flight (the crawl's `inflight` hash) from when it is handed out until its writes
are done, and while it is, something carries it to a worker: a message in a broker queue, a
worker's hold (a message it received, a page its chain kept for itself: workers/heal.py), the
delayed set (workers/fetch/patience.py). A worker that dies between handing a page out and
passing it on leaves it carried by nothing: after `State.end_page` handed the next pages out
and before they were sent (or the kept one noted held), between a sweep's `touch_inflight`
and its sends, between `release_due`'s pop and its send, between a deferral's note and its
message; and a message the broker gave a worker that died before it noted it held. Only the
stale sweep (the broker's visibility timeout, 11 minutes) sent such a page again, and a crawl
whose last pages were these stayed `running` that long: nothing else ends it (issue 36).

So the sweep (after it reclaims a dead worker, and on its recovery pass) looks at the pages in
flight for more than ORPHAN_AFTER seconds, and sends again the ones that no queued message,
no worker's hold and no deferral carries. Which carriers it reads, in the order a page moves
through them (queue, then the hold of the worker that took the message), so a page passing
from one to the next while they are read is seen in one of them; a page found carried by
nothing that was only slow to be noted is sent twice, which costs a look at the done set.
"""
from __future__ import annotations

import base64
import json
import logging
import time

from workers import heal
from workers.fetch.patience import DELAYED
from workers.settings import DEFAULT_QUEUE, RENDER_QUEUE
from workers.state import ENDED, Keys

log = logging.getLogger("blogharvest")

ORPHAN_AFTER = heal._env_float("BLOGHARVEST_ORPHAN_AFTER", 5.0)  # s in flight before a page may be an orphan
PAGE_TASK = "blogharvest.process_url"
CHUNK = 1000  # queued messages read at a time


def crawls(rt, limit: int = 2000, queued: bool = False) -> tuple[list[str], list[str], list[str]]:
    """(crawls traversing, crawls starting, ended crawls never retired) among the newest `limit`
    crawls. Traversing and starting: begun by the new_crawl task (`tasked`); a crawl a process
    creates and drives itself (a library caller, a test) is never taken: a sweep would hand its
    pages to workers while that process reads them too. Starting: discovering or learning for
    ORPHAN_AFTER s at least (their messages: new_crawl, learn_page, reduce_rules); with `queued`,
    also a crawl still queued that long since its first message was sent (`sent`, by
    workers.start.start_crawl): its new_crawl may have died with a worker between the
    broker's pop and kombu's note of it as unacked, where nothing, not even the visibility
    timeout, would bring it back (asked only after a death and on the recovery pass: a backlog
    of queued crawls would make every pass read the whole queue). Never retired: a worker died
    in the crawl's finishing step, which ended it (one script: State.hand_out, end_page) and set
    its working keys to expire only after (State.retire)."""
    st = rt.state
    ids = list(st.list_crawls(limit))
    now = time.time()
    run, starting, unretired = [], [], []
    for i in range(0, len(ids), 500):
        with st.r.pipeline(transaction=False) as p:
            for cid in ids[i:i + 500]:
                p.hmget(Keys(cid).crawl, ["state", "retired", "phase", "started", "tasked", "sent"])
            for cid, (state, retired, phase, started, tasked, sent) in zip(ids[i:i + 500], p.execute()):
                if state == "running" and phase == "traverse":
                    if tasked:
                        run.append(cid)
                elif state == "running" and tasked:
                    if now - float(started or now) > ORPHAN_AFTER:
                        starting.append(cid)
                elif state == "queued" and queued and sent and now - float(sent) > ORPHAN_AFTER:
                    starting.append(cid)
                elif state in ENDED and not retired:
                    unretired.append(cid)
    return run, starting, unretired


def retire(rt, crawl_ids: list[str]) -> int:
    for cid in crawl_ids:
        rt.state.retire(cid)
    return len(crawl_ids)


def _queues(app) -> list[str]:
    """The broker's lists of the queues workers consume (kombu keeps a list per priority step)."""
    names = [DEFAULT_QUEUE, RENDER_QUEUE]
    with app.connection_for_write() as conn:
        ch = conn.default_channel
        steps, sep = getattr(ch, "priority_steps", [0]), getattr(ch, "sep", "\x06\x16")
    return [q if not pri else f"{q}{sep}{pri}" for q in names for pri in steps]


def message_of(raw: str) -> tuple[str, list, dict] | None:
    """(task, args, kwargs) of a queued kombu message of ours, else None."""
    try:
        m = json.loads(raw)
        task = (m.get("headers") or {}).get("task") or ""
        if not task.startswith("blogharvest."):
            return None
        body = m["body"]
        if (m.get("properties") or {}).get("body_encoding") == "base64":
            body = base64.b64decode(body)
        args, kwargs = json.loads(body)[:2]
        return task, list(args or []), dict(kwargs or {})
    except (ValueError, TypeError, KeyError, IndexError, AttributeError):
        return None


def page_of(raw: str) -> tuple[str, str] | None:
    """(crawl id, url) of a queued kombu message of the page task, else None."""
    m = message_of(raw)
    if m is None or m[0] != PAGE_TASK or len(m[1]) < 2:
        return None
    return str(m[1][0]), str(m[1][1])


class Carried:
    """What something carries: `pages` (crawl id, url) and `crawls` (ids with a message of
    theirs queued or held): queued messages, then every worker's holds (the dead ones' too,
    until they are reclaimed), then deferrals."""

    def __init__(self, app, r):
        self.pages: set[tuple[str, str]] = set()
        self.crawls: set[str] = set()
        for q in _queues(app):
            for start in range(0, r.llen(q), CHUNK):
                for raw in r.lrange(q, start, start + CHUNK - 1):
                    if (m := message_of(raw)) is not None:
                        self._message(*m)
        for wid in r.zrange(heal.HEARTBEATS, 0, -1):
            for raw in r.hvals(heal.holds_key(wid)):
                try:
                    entry = json.loads(raw)
                except ValueError:
                    continue
                if entry.get("url"):
                    self.pages.add((entry["crawl"], entry["url"]))
                elif entry.get("name"):
                    self._message(entry["name"], entry.get("args") or [], {})
                    if entry.get("crawl"):
                        self.crawls.add(entry["crawl"])
        for member in r.zrange(DELAYED, 0, -1):
            try:
                cid, url = json.loads(member)
                self.pages.add((cid, url))
            except (ValueError, TypeError):
                continue

    def _message(self, task: str, args: list, kwargs: dict) -> None:
        if (cid := heal.crawl_of(args, kwargs)) is not None:
            self.crawls.add(cid)
        if task == PAGE_TASK and len(args) >= 2:
            self.pages.add((str(args[0]), str(args[1])))


def _ours(raw) -> bool:
    """Is this unacked entry ([message, exchange, routing key]) a message workers note held?"""
    try:
        task = (json.loads(raw)[0].get("headers") or {}).get("task") or ""
    except (ValueError, TypeError, AttributeError, IndexError):
        return False
    return task.startswith("blogharvest.") and task not in heal.SKIP


def restore_unheld(app, r, older_than: float = ORPHAN_AFTER) -> int:
    """Messages a worker took from the broker and died before it noted them held (kombu moved
    them to its unacked set, then the worker's task_received hook would have noted them:
    workers/heal.py): back to their queue, not after the visibility timeout. A message
    delivered more than `older_than` s ago that no worker holds; one only slow to be noted,
    or acked just after its hold was dropped, runs once more (every step is idempotent)."""
    held = set()
    for wid in r.zrange(heal.HEARTBEATS, 0, -1):
        for raw in r.hvals(heal.holds_key(wid)):
            try:
                tag = json.loads(raw).get("tag")
            except (ValueError, AttributeError):
                continue
            if tag:
                held.add(tag)
    n = 0
    with app.connection_for_write() as conn:
        qos = conn.default_channel.qos
        with qos.channel.conn_or_acquire() as client:
            old = [t.decode() if isinstance(t, bytes) else t
                   for t in client.zrangebyscore(qos.unacked_index_key, "-inf", time.time() - older_than)]
            old = [t for t in old if t not in held]
            raws = client.hmget(qos.unacked_key, old) if old else []
        for tag, raw in zip(old, raws):
            if raw is not None and _ours(raw):  # (another app's task on the same broker is not ours to judge)
                qos.restore_by_tag(tag, leftmost=False)
                n += 1
    if n:
        log.warning("heal: %d messages taken by a worker that died before it noted them sent again", n)
    return n


def recover(app, rt, send, crawl_ids: list[str] | None = None, starting: list[str] | None = None,
            older_than: float = ORPHAN_AFTER) -> tuple[int, int]:
    """Send again the pages of `crawl_ids` (the crawls traversing) in flight for more than
    `older_than` s that nothing carries; start again the crawls of `starting` (queued,
    discovering, learning for that long) of which no message is queued or held: its
    new_crawl or a chord part taken by a worker that died before it noted it, a chord whose
    callback a dead worker claimed and never sent (Celery's chord, after that, waits for
    nobody). The carriers are read only when there are such pages or crawls. Returns
    (pages sent, crawls started again)."""
    st = rt.state
    if crawl_ids is None or starting is None:
        crawl_ids, starting, _ = crawls(rt)
    old = {cid: urls for cid in crawl_ids if (urls := st.stale_inflight(cid, older_than))}
    if not old and not starting:
        return 0, 0
    have = Carried(app, st.r)
    n = 0
    for cid, urls in old.items():
        lost = [u for u in urls if (cid, u) not in have.pages]
        # still in flight, not done and not handed out again since they were read: sent again
        for u in st.touch_inflight(cid, lost, older_than):
            send(cid, u)
            n += 1
    restarted = [cid for cid in starting if cid not in have.crawls]
    for cid in restarted:
        _start_again(app, rt, cid)
    if n or restarted:
        log.warning("heal: %d pages in flight and %d crawls starting that nothing carried sent again", n,
                    len(restarted))
    return n, len(restarted)


def _start_again(app, rt, crawl_id: str) -> None:
    """The crawl's first task sent again: discovery and learning run again from their start,
    under a new chord (a crawl traversing by then only dispatches)."""
    from workers.start import start_crawl

    url, since, options = rt.state.r.hmget(Keys(crawl_id).crawl, ["url", "since", "options"])
    if url:
        start_crawl(app, rt.state, crawl_id, url, since or None, json.loads(options or "{}"))
