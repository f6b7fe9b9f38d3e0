"""A cluster that heals itself: worker heartbeats, what each worker holds, and a sweep that
runs inside every worker, so a dead worker's work resumes within seconds with workers alone.

Without this, a SIGKILLed worker's messages wait in the broker's unacked set for the
visibility timeout (11 minutes) and only beat or the CLI's follower ever sweeps. Here:

- every worker process writes a heartbeat (`bh:workers`, Redis clock) every BEAT_EVERY s;
- a worker notes in its holds hash each blogharvest message it receives (with the broker's
  delivery tag) and each page it keeps for itself (process_url's chain), and forgets them
  when done;
- every worker runs the sweep on a timer thread, one at a time (a Redis lock): a worker
  silent for DEAD_AFTER s is dead; its messages go back to their queue (kombu's own
  restore of one delivery tag, chord headers and all, so a chord of rule learning goes
  on), its kept pages are sent again, and it is forgotten. The same sweep hands out the
  pages whose politeness wait is over (workers.fetch.patience) and, less often, runs the
  crawl recovery that beat ran (stale pages, idle crawls finished).

Every step a message runs is idempotent (docs/state.md), so a message sent again by the
sweep and also restored later by the broker costs a look at the done set, nothing more.
"""
from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
import uuid

import redis

log = logging.getLogger("blogharvest")

HEARTBEATS = "bh:workers"  # zset: worker id -> last heartbeat (Redis clock)
# bh:worker:{id}:holds  hash: "task id#retries" -> {name, tag, args}; "page CHAIN" (or "page C URL")
#                       -> {crawl, url}
EVENTS = "bh:heal:events"  # list: JSON of each reclaim (tests measure recovery from it)
LOCK = "bh:lock:heal"  # one sweeper at a time across the cluster
REDIS_DOWN = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)
SKIP = {"blogharvest.sweep"}  # messages not worth reclaiming


def _env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name) or default)
    except ValueError:
        return default


BEAT_EVERY = _env_float("BLOGHARVEST_BEAT_EVERY", 2.0)
DEAD_AFTER = _env_float("BLOGHARVEST_DEAD_AFTER", 20.0)  # > any Redis pause we ride out (10 s)
# ... or silent this long with no connection to Redis left (a dead process's sockets close at
# once; a live worker's pool keeps its connections, named after it, open between beats)
GONE_AFTER = _env_float("BLOGHARVEST_GONE_AFTER", 2 * BEAT_EVERY)
SWEEP_EVERY = _env_float("BLOGHARVEST_SWEEP_EVERY", 2.0)
DEAD = "bh:heal:dead"  # zset: worker id -> when it was reclaimed (what it held, a host's turn say, is free)
RECOVER_EVERY = _env_float("BLOGHARVEST_RECOVER_EVERY", 15.0)
# after a reclaim, every sweep pass (any worker's) takes up what nothing carries for this long:
# a page the dead worker handed out just before it died is younger than ORPHAN_AFTER (5 s,
# workers/orphans.py) at the reclaim, and waited for the next recovery pass (RECOVER_EVERY) before
FOLLOW = "bh:heal:follow"  # string with a TTL: a reclaim's follow-up window is open
FOLLOW_FOR = _env_float("BLOGHARVEST_FOLLOW_FOR", 0.0)  # 0: ORPHAN_AFTER + 2 x SWEEP_EVERY

# Made at import, in the worker's main process, so prefork children inherit the same id;
# the pid and a nonce keep a restarted worker of the same name apart from its dead self.
WORKER_ID = f"{socket.gethostname()}/{os.getpid()}/{uuid.uuid4().hex[:8]}"


def holds_key(worker_id: str) -> str:
    return f"bh:worker:{{{worker_id}}}:holds"


def redis_now(r) -> float:
    s, us = r.time()
    return s + us / 1e6


# ------------------------------------------------------------------ what a worker holds

def hold_message(r, request) -> None:
    """A blogharvest message this worker received (an ETA one too): noted with its delivery tag."""
    name = getattr(request, "name", "") or ""
    if not name.startswith("blogharvest.") or name in SKIP:
        return
    try:
        tag = request.message.delivery_tag
    except AttributeError:
        tag = None
    if not tag:
        return
    args = list(getattr(request, "args", None) or [])
    retries = (getattr(request, "request_dict", None) or {}).get("retries") or 0
    r.hset(holds_key(WORKER_ID), _message_field(request.id, retries),
           json.dumps({"name": name, "tag": tag, "args": [a for a in args[:2] if isinstance(a, str)],
                       "crawl": crawl_of(args, getattr(request, "kwargs", None))}))


def crawl_of(args, kwargs) -> str | None:
    """The crawl a blogharvest message works for: its `crawl_id` keyword, else the first
    argument that is a crawl id (process_url's, learn_page's, reduce_rules' second)."""
    from workers.validate import CRAWL_ID

    cid = (kwargs or {}).get("crawl_id") if isinstance(kwargs, dict) else None
    if isinstance(cid, str):
        return cid
    return next((a for a in args or [] if isinstance(a, str) and CRAWL_ID.match(a)), None)


def _message_field(task_id: str, retries: int) -> str:
    """A retry is a new message with the same task id (and one more retry): the pair tells them
    apart, so a retry received before its predecessor has ended is not forgotten with it."""
    return f"{task_id}#{int(retries or 0)}"


def release_message(r, task_id: str, retries: int = 0) -> None:
    r.hdel(holds_key(WORKER_ID), _message_field(task_id, retries))


def _page_field(crawl_id: str, url: str, chain: str | None = None) -> str:
    return f"page {chain}" if chain is not None else f"page {crawl_id} {url}"


def pass_page(pipe, crawl_id: str, done: str | None, url: str, chain: str | None = None) -> None:
    """The note that this worker holds `url`, a page process_url keeps for itself (no message of
    its own carries it), and `release_page(done)` (the page kept before, if any), as commands of
    `pipe`, a pipeline the caller sends with its own (the page's first round trip). With `chain`
    (the id of the task's chain) the note is the chain's one field, the page kept before
    overwritten by the next in one HSET (issue 33: one command a page, not two)."""
    if done is not None and chain is None:
        pipe.hdel(holds_key(WORKER_ID), _page_field(crawl_id, done))
    pipe.hset(holds_key(WORKER_ID), _page_field(crawl_id, url, chain), json.dumps({"crawl": crawl_id, "url": url}))


def release_page(r, crawl_id: str, url: str, chain: str | None = None) -> None:
    try:
        r.hdel(holds_key(WORKER_ID), _page_field(crawl_id, url, chain))
    except REDIS_DOWN:  # a dead worker's stale note costs one look at the done set
        log.warning("heal: could not forget page %s as held", url)


_UNLOCK = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0"


def take_lock(r, name: str, seconds: float) -> str | None:
    """The lock `bh:lock:<name>` for this worker (its token; None: another holds it), noted
    among what it holds first: a worker that dies holding it frees it when it is reclaimed,
    seconds later, not when it expires."""
    key, token = f"bh:lock:{name}", f"{WORKER_ID} {uuid.uuid4().hex}"
    field = f"lock {key}"
    r.hset(holds_key(WORKER_ID), field, json.dumps({"lock": key, "token": token}))
    if r.set(key, token, nx=True, px=int(seconds * 1000)):
        return token
    r.hdel(holds_key(WORKER_ID), field)
    return None


def release_lock(r, name: str, token: str) -> None:
    key = f"bh:lock:{name}"
    _unlock(r, key, token)
    r.hdel(holds_key(WORKER_ID), f"lock {key}")


def _unlock(r, key: str, token: str | None) -> None:
    """Delete lock `key` if `token` still holds it (it may have expired and been taken since)."""
    if token:
        r.eval(_UNLOCK, 1, key, token)


# ------------------------------------------------------------------ heartbeats and the sweep

def beat(r, worker_id: str = WORKER_ID) -> float:
    now = redis_now(r)
    r.zadd(HEARTBEATS, {worker_id: now})
    return now


def dead_workers(r, now: float, dead_after: float = DEAD_AFTER, gone_after: float = GONE_AFTER,
                 steady: bool = True, settled: bool = True) -> list[str]:
    """Workers silent for `dead_after` s (only when `steady`: the caller has reached Redis
    without a break that long, so nobody's silence is a Redis outage's), or silent for
    `gone_after` s with no connection to Redis left: a SIGKILLed process's sockets close with
    it (Redis drops its clients at once), while a live worker's connection pool stays open
    (its connections named after it: `client_name`), through a Redis pause too. Only a Redis
    restart drops them all: connections count once Redis has been up for 2 x `gone_after` s
    (every live worker has beaten, so reconnected, by then). A pause drops the connections
    whose commands timed out in it: connections count only when `settled` (the caller's own
    beats came on time for `gone_after` s: every live worker has beaten again since a break)."""
    silent = [(w, t) for w, t in r.zrangebyscore(HEARTBEATS, "-inf", now - min(dead_after, gone_after),
                                                 withscores=True) if w != WORKER_ID]
    dead = [w for w, t in silent if steady and t <= now - dead_after]
    if not settled:
        return dead
    return dead + sorted(gone(r, [w for w, _ in silent if w not in dead], gone_after))


def gone(r, workers: list[str], gone_after: float = GONE_AFTER) -> set[str]:
    """The `workers` with no connection to Redis left (none while Redis has been up for less
    than 2 x `gone_after` s: a restart drops every client, and the living reconnect at their
    next beat)."""
    if not workers or int(r.info("server").get("uptime_in_seconds", 0)) < 2 * gone_after:
        return set()
    connected = {c.get("name") for c in r.client_list()}
    return {w for w in workers if w not in connected}


def is_dead(r, worker_id: str) -> bool:
    """Was `worker_id` reclaimed as dead (what it held is nobody's)?"""
    return r.zscore(DEAD, worker_id) is not None


def _restore(app, tag: str) -> bool:
    """The message of delivery tag `tag` back to the head of its queue (kombu publishes with
    LPUSH and takes with BRPOP: the right end is next), out of the unacked set, so the broker
    will not deliver it a second time when the visibility timeout ends."""
    with app.connection_for_write() as conn:
        qos = conn.default_channel.qos
        with qos.channel.conn_or_acquire() as client:
            unacked = bool(client.hexists(qos.unacked_key, tag))  # else acked: nothing to restore
        if unacked:
            qos.restore_by_tag(tag, leftmost=False)
        return unacked


def reclaim(app, rt, worker_id: str, send) -> int:
    """Hand a dead worker's messages and kept pages to the living; then forget the worker."""
    r, st = rt.state.r, rt.state
    key = holds_key(worker_id)
    n = 0
    for field, raw in r.hgetall(key).items():
        try:
            entry = json.loads(raw)
        except ValueError:
            entry = {}
        if entry.get("tag"):
            n += _restore(app, entry["tag"])
        elif entry.get("lock"):  # a lock it held (workers/extract/comments.py): free at once
            _unlock(r, entry["lock"], entry.get("token"))
        elif entry.get("url"):
            cid, url = entry["crawl"], entry["url"]
            if st.touch_inflight(cid, [url], older_than=0):  # in flight, not done, not deferred to later
                send(cid, url)
                n += 1
        r.hdel(key, field)  # one by one: a sweeper dying midway repeats nothing
    now = redis_now(r)
    event = {"worker": worker_id, "reclaimed": n, "at": now, "by": WORKER_ID}
    with r.pipeline() as p:
        p.zadd(DEAD, {worker_id: now})  # its politeness turns are free (workers/fetch/downloader.py)
        p.zremrangebyscore(DEAD, "-inf", now - 86400)
        p.zrem(HEARTBEATS, worker_id)
        p.delete(key)
        p.rpush(EVENTS, json.dumps(event))
        p.ltrim(EVENTS, -1000, -1)
        p.execute()
    log.warning("worker %s is silent: %d of its messages and pages handed out again", worker_id, n)
    return n


def events(r) -> list[dict]:
    return [json.loads(e) for e in r.lrange(EVENTS, 0, -1)]


def recover_crawls(rt, send, crawl_ids: list[str]) -> int:
    """What beat's sweep did: stale pages of running crawls sent again, idle crawls finished."""
    from workers import pipeline

    return sum(pipeline.recover(rt, cid, send=send) for cid in crawl_ids)


def sweep(app, rt, send, recover: bool = False, judge: bool = True, settled: bool = True) -> dict:
    """One pass, if no other worker is sweeping: reclaim the dead (the long silent ones when
    `judge`: this worker has reached Redis without a break for DEAD_AFTER s), release due
    pages; after a reclaim and with `recover`, take up what nothing carries (workers/orphans.py:
    pages in flight, messages taken and not noted, crawls starting); with `recover`, what beat
    did (stale pages, idle crawls finished) and ended crawls retired. For FOLLOW_FOR s after
    a reclaim every pass recovers: what the dead worker handed out just before it died is
    older than ORPHAN_AFTER by then, so a kill is taken up within about GONE_AFTER +
    ORPHAN_AFTER + 3 x SWEEP_EVERY s (docs/reliability.md), not at the next recovery pass."""
    from workers import orphans
    from workers.fetch import patience

    r = rt.state.r
    token, px = f"{WORKER_ID} {uuid.uuid4().hex}", int(max(SWEEP_EVERY, 5.0) * 4000)
    if not r.set(LOCK, token, nx=True, px=px) and not _take_over(r, token, px):
        return {}
    try:
        recover_pass = recover  # the periodic recovery pass (not one made so by a death)
        now = redis_now(r)
        dead = dead_workers(r, now, steady=judge, settled=settled)
        out = {"reclaimed": sum(reclaim(app, rt, w, send) for w in dead),
               "released": patience.release_due(rt, _send_due, now)}
        following = False  # a pass after a reclaim: a death was told, not a Redis outage's silence
        if dead:  # what the dead left that nothing carries is taken up by the passes to come too
            follow = FOLLOW_FOR or orphans.ORPHAN_AFTER + 2 * SWEEP_EVERY
            r.set(FOLLOW, ",".join(dead)[:1000], px=int(1000 * follow))
            recover = True
        elif r.exists(FOLLOW):
            following = out["follow"] = True
            recover = True
        if dead or recover:
            running, starting, unretired = orphans.crawls(rt, queued=bool(dead) or following or recover_pass)
            # after a Redis outage a page's carrier may be on its way back: not judged then, but a
            # follow-up pass takes up what the dead left, though this worker is not steady yet (a
            # message it took and died before noting, too young to restore at the reclaim)
            if dead or judge or following:
                out["unheld"] = orphans.restore_unheld(app, r)
                out["orphans"], out["restarted"] = orphans.recover(app, rt, send, running, starting)
            if recover:
                out["recovered"] = recover_crawls(rt, send, running)
                out["retired"] = orphans.retire(rt, unretired)
        return out
    finally:
        if r.get(LOCK) == token:
            r.delete(LOCK)


def _send_due(crawl_id: str, url: str) -> None:
    """A page of the due set: its slot is booked already (workers/fetch/pacing.py)."""
    from workers.start import send_due

    send_due(crawl_id, url)


_TAKE_OVER = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
"""


def _take_over(r, token: str, px: int) -> bool:
    """The sweep lock, from a sweeper that died holding it (held for seconds, a pass takes
    milliseconds; its holder gone: `dead_workers`), not when it expires (px, 20 s)."""
    if r.pttl(LOCK) > px - 2000 * SWEEP_EVERY:
        return False
    holder = r.get(LOCK) or ""
    worker = holder.split(" ", 1)[0]
    if " " not in holder or worker == WORKER_ID:
        return False
    if not is_dead(r, worker) and worker not in dead_workers(r, redis_now(r), steady=False):
        return False
    return bool(r.eval(_TAKE_OVER, 1, LOCK, holder, token, px))


class Healer(threading.Thread):
    """The worker's timer thread: heartbeat, and the sweep on a short period. A Redis outage
    is waited out with backoff; the thread never ends while the worker lives.

    Silence is only taken for death when this worker itself reached Redis without a break
    for DEAD_AFTER seconds: after a Redis restart or pause every worker was silent, and
    the others need as long as this one to be heard again."""

    def __init__(self, app, rt, send):
        super().__init__(name="blogharvest-heal", daemon=True)
        self.app, self.rt, self.send = app, rt, send
        self.stopped = threading.Event()

    def run(self) -> None:
        wait, next_sweep, next_recover = BEAT_EVERY, 0.0, time.monotonic() + RECOVER_EVERY
        steady_since = settled_since = last_ok = time.monotonic()
        while True:
            try:
                beat(self.rt.state.r)
                now = time.monotonic()
                if now - last_ok > 2 * BEAT_EVERY + 3.0:  # a break: Redis was away (or we were)
                    log.warning("heal: %.1f s without a beat; silence taken for death again in %.0f s",
                                now - last_ok, DEAD_AFTER)
                    steady_since = now
                if now - last_ok > BEAT_EVERY + 1.0:  # a late beat: others' may be late too
                    settled_since = now
                last_ok = now
                if now >= next_sweep:
                    next_sweep = now + SWEEP_EVERY
                    recover = now >= next_recover
                    if recover:
                        next_recover = now + RECOVER_EVERY
                    self.sweep(recover, judge=now - steady_since >= DEAD_AFTER,
                               settled=now - settled_since >= GONE_AFTER)
                wait = BEAT_EVERY
            except REDIS_DOWN as e:
                wait = min(BEAT_EVERY, max(0.25, wait * 2))  # heard again soon after Redis returns
                log.warning("heal: Redis unreachable (%s); again in %.1f s", type(e).__name__, wait)
            except Exception:  # the thread must outlive any bug of one pass
                log.exception("heal: sweep failed")
                wait = BEAT_EVERY
            if self.stopped.wait(wait):
                return

    def sweep(self, recover: bool, judge: bool, settled: bool = True) -> None:
        sweep(self.app, self.rt, self.send, recover=recover, judge=judge, settled=settled)

    def stop(self) -> None:
        self.stopped.set()


# ------------------------------------------------------------------ wiring into a worker

_healer: Healer | None = None


def start(app, rt, send) -> Healer:
    global _healer
    if _healer is None or not _healer.is_alive():
        try:
            beat(rt.state.r)  # alive before the first message arrives
        except REDIS_DOWN:
            pass
        _healer = Healer(app, rt, send)
        _healer.start()
    return _healer


def stop() -> None:
    if _healer is not None:
        _healer.stop()


def connect(app) -> None:
    """Celery signals: start the healer when the worker is ready, note messages as they arrive
    and as they end. Errors here never stop a message (Redis away: the
    broker's visibility timeout still recovers it)."""
    from celery import signals

    def rt():
        from workers.runtime import runtime

        return runtime()

    def on_ready(sender=None, **_):
        from workers.start import send_page

        start(app, rt(), send_page)

    def on_received(sender=None, request=None, **_):
        try:
            hold_message(rt().state.r, request)
        except Exception:
            log.debug("heal: could not note a received message", exc_info=True)

    def on_postrun(sender=None, task_id=None, **_):
        if getattr(sender, "name", "").startswith("blogharvest."):
            try:
                release_message(rt().state.r, task_id, getattr(sender.request, "retries", 0))
            except Exception:
                log.debug("heal: could not forget a finished message", exc_info=True)

    def on_shutting_down(**_):
        SHUTTING_DOWN.set()

    signals.worker_ready.connect(on_ready, weak=False)
    signals.worker_shutting_down.connect(on_shutting_down, weak=False)
    signals.task_received.connect(on_received, weak=False)
    signals.task_postrun.connect(on_postrun, weak=False)
    # no hook at shutdown: the thread beats (it is a daemon) until the process ends, so
    # nothing of a warm shutdown's last tasks is handed out while they still run


# ------------------------------------------------------------------ riding out a Redis outage

SHUTTING_DOWN = threading.Event()  # the worker is stopping: no waiting for Redis then


def wait_for_redis(r, patience: float = 120.0) -> bool:
    """Wait (backoff 0.2 s -> 5 s) until Redis answers again; False after `patience` seconds,
    or at once when the worker is shutting down (its Redis may be gone for good, as when an
    embedded crawl ends). A step that met a Redis outage then runs again: steps are idempotent."""
    deadline = time.monotonic() + patience
    pause = 0.2
    while not SHUTTING_DOWN.is_set():
        try:
            r.ping()
            return True
        except REDIS_DOWN:
            if time.monotonic() + pause > deadline:
                return False
            SHUTTING_DOWN.wait(pause)  # backoff while Redis restarts (not politeness: nothing to do meanwhile)
            pause = min(5.0, pause * 2)
    return False
