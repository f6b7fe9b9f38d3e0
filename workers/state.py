"""All shared state of blogharvest, in Redis: one module owns every key (docs/state.md).

Keys of a blog and its crawls share the hash tag `{<blog id>}` so that on Redis Cluster
they live in one slot and the multi-key scripts below stay legal. Workers keep nothing
in memory that another worker needs: any worker can run any step of any crawl.
"""
from __future__ import annotations

import json
import time

import redis

from workers import facts, lua
from workers.cache import Recent
from workers.facts import BIG
from workers.keys import Keys, blog_id, blog_of, new_crawl_id, url_key  # noqa: F401 (the state's names)
from workers.records import SOURCES, STREAM, Saving, mark_unlisted, pack, unpack  # noqa: F401 (the state's names)
from workers.seen import SeenCache

CRAWLS = "bh:crawls"  # zset crawl id -> start time
CAPTURES = "bh:capture:"  # hash per URL: its latest WARC capture (workers/archive/sinks.py)
# Keys that expire yet outlive the crawl that wrote them, because a later crawl reads them:
# an update crawl writes a revisit record against the capture of the crawl before. An
# embedded crawl, which drops every expiring key when it ends (caches), keeps these.
LASTING = (CAPTURES,)
# the states a crawl ends in: "budget_exhausted" is a crawl stopped by its page budget with pages
# still queued (its output is partial by design), "done" one that ran out of pages to read
ENDED = ("done", "failed", "budget_exhausted")


MAX_SAMPLES = 5000
KEPT_SECONDS = 7 * 86400  # a crawl's working sets at most (deleted with it; this bounds a lost crawl's)
AHEAD = list(lua.AHEAD)  # the crawl hash's fields a page's first read asks
AHEAD_TTL = 5.0  # seconds a page's end's reading of them stands for the page it kept (its next one)
BLOG_TTL = 1.0  # seconds a process reuses a blog's hash and patterns between pages (issue 33): a
# page reads them once at its start and works seconds with them, so a second more is the same


def _trap_args(trap: dict | None, every: list[str], sent) -> list:
    """The page's trap count as END_PAGE takes it (workers/lua.py): its `kin` and `post` indices,
    given into `every` estimate, pointed into those `sent` (the seen cache keeps known ones back:
    they are no new page of anything)."""
    if not trap:
        return ["", 0, 0, 0]
    at = {u: i for i, u in enumerate(sent, 1)}
    kin = [at[every[i - 1]] for i in trap["kin"] if every[i - 1] in at]
    post = [at[every[i - 1]] for i in trap["post"] if every[i - 1] in at]
    return [trap["family"], int(trap["limit"]), len(kin), len(post), *kin, *post]


def _pairs(scored: dict[str, float] | None) -> list:
    """{url: score} as the scripts take it: [url, score, url, score...]."""
    return [x for u, v in (scored or {}).items() for x in (u, float(v))]


def _by_suffix(raw: dict, prefix: str, cast) -> dict:
    """The fields of a crawl hash named `prefix`<suffix>, by suffix, their values cast."""
    return {f[len(prefix):]: cast(v) for f, v in raw.items() if f.startswith(prefix)}


class State:
    """Typed access to the Redis state of crawls."""

    finished_ttl = 86400  # seconds an ended crawl's working keys are kept (0: for ever)
    stream_maxlen: int | None = 1_000_000  # the records stream's length (0: no stream); Runtime sets it

    def __init__(self, client: redis.Redis):
        self.r = client
        self._dispatch = client.register_script(lua.DISPATCH)
        self._enqueue = client.register_script(lua.ENQUEUE)
        self._enqueue_estimated = client.register_script(lua.ENQUEUE_ESTIMATED)
        self._finish = client.register_script(lua.MAYBE_FINISH)
        self._save_record = client.register_script(lua.SAVE_RECORD)
        self._end_page = client.register_script(lua.END_PAGE)
        self._touch_inflight = client.register_script(lua.TOUCH_INFLIGHT)
        self._bump_facts = client.register_script(lua.BUMP_FACTS)
        self.seen_cache = SeenCache(client)  # urls this process knows queued (workers/seen.py)
        self._blogs = Recent(256)  # blog id -> (monotonic time read, blog hash, patterns hash)
        self._sampled = Recent(256)  # crawl id -> the blog's sample count as this process last saw it
        self._ahead = Recent(256)  # (crawl id, url) -> the crawl hash's fields a page's end read for it
        self.facts = facts.Facts()  # a crawl's seldom-written hashes as this process last read them
        self._raw: redis.Redis | None = None

    @property
    def raw(self) -> redis.Redis:
        """The same server, replies as bytes (the records hash holds compressed JSON)."""
        if self._raw is None:
            pool = self.r.connection_pool
            kwargs = dict(pool.connection_kwargs, decode_responses=False)
            self._raw = redis.Redis(connection_pool=type(pool)(connection_class=pool.connection_class, **kwargs))
        return self._raw

    @classmethod
    def from_url(cls, url: str, name: str | None = None) -> "State":
        """`name`: its connections' client name (a worker's heal id: workers/heal.py)."""
        return cls(redis.Redis.from_url(url, decode_responses=True, health_check_interval=30, client_name=name))

    # ------------------------------------------------------------ crawls
    def create_crawl(self, url: str, since: str | None, options: dict, crawl_id: str | None = None) -> str:
        crawl_id = crawl_id or new_crawl_id(url)
        k = Keys(crawl_id)
        now = time.time()
        created = self.r.hsetnx(k.crawl, "url", url)
        if created:
            self.r.hset(k.crawl, mapping={
                "state": "queued", "since": since or "", "options": json.dumps(options),
                "created": now, "pages": 0, "posts": 0, "errors": 0, "handed": 0,
                "kind": "update" if since else "new", **facts.tokens()})
            self.r.zadd(CRAWLS, {crawl_id: now})
            self.r.zadd(k.crawls, {crawl_id: now})
            self.r.set(k.active, crawl_id)
        return crawl_id

    def active_crawl(self, url: str) -> str | None:
        cid = self.r.get(Keys(f"{blog_id(url)}-x").active)
        if cid and self.crawl_info(cid).get("state") in ("queued", "running", "stopped"):
            return cid
        return None

    def last_finished(self, url: str) -> str | None:
        """ISO time of the last crawl of this blog that finished (update crawls start there)."""
        b = blog_id(url)
        mine = self.r.zrevrange(Keys(f"{b}-").crawls, 0, -1)
        for cid in mine or self.r.zrevrange(CRAWLS, 0, 2000):  # (state written before the blog's index)
            if cid.startswith(b + "-") and self.r.hget(Keys(cid).crawl, "state") in ("done", "budget_exhausted"):
                started = float(self.r.hget(Keys(cid).crawl, "started") or 0)
                if started:
                    import datetime as dt
                    return dt.datetime.fromtimestamp(started, dt.timezone.utc).isoformat()
        return None

    def crawl_info(self, crawl_id: str) -> dict:
        k = Keys(crawl_id)
        raw = self.r.hgetall(k.crawl)
        if not raw:
            return {}
        info = {"crawl_id": crawl_id, "state": raw.get("state"), "url": raw.get("url"),
                "since": raw.get("since") or None, "kind": raw.get("kind")}
        info.update({n: int(raw.get(n, 0) or 0) for n in ("pages", "errors", "trapped")})
        info.update(self._sizes(k, raw))
        info.update({t: float(raw[t]) for t in ("created", "started", "finished") if raw.get(t)})
        if raw.get("message"):
            info["message"] = raw["message"]
        info["phase"] = raw.get("phase")
        info["phase_started"] = _by_suffix(raw, "phase_started:", float)
        info["warnings"] = _by_suffix(raw, "warning:", str)
        info["announced"] = _by_suffix(raw, "announced:", int)
        info["options"] = json.loads(raw.get("options") or "{}")
        info["sources"] = {src: int(raw.get(f"found_{src}", 0) or 0) for src in SOURCES}
        return info

    def _sizes(self, k: Keys, raw: dict) -> dict:
        """The crawl's posts, queued and in-flight pages, and URLs seen (counted at its end, or now)."""
        return {"posts": self.r.scard(k.posts), "queued": self.r.zcard(k.frontier), "in_flight": self.r.hlen(k.inflight),
                "seen": int(raw["seen"]) if raw.get("seen") is not None else self.r.scard(k.seen)}

    def options(self, crawl_id: str) -> dict:
        return json.loads(self.r.hget(Keys(crawl_id).crawl, "options") or "{}")

    def set_state(self, crawl_id: str, state: str, message: str | None = None) -> None:
        k = Keys(crawl_id)
        mapping = {"state": state}
        if state == "running":
            mapping["started"] = time.time()
        if state in ENDED:
            mapping["finished"] = time.time()
        if message:
            mapping["message"] = message
        self.r.hset(k.crawl, mapping=mapping)
        if state in ENDED:
            if self.r.get(k.active) == crawl_id:
                self.r.delete(k.active)
            self.retire(crawl_id)

    def set_phase(self, crawl_id: str, phase: str, current: bool = True) -> None:
        """When each phase first began (the report's time per phase) and, unless
        `current` is false (the follower's write and end stamps, after the workers are
        done), the crawl's current phase, which resuming reads."""
        k = Keys(crawl_id)
        with self.r.pipeline() as p:
            if current:
                p.hset(k.crawl, "phase", phase)
            p.hsetnx(k.crawl, f"phase_started:{phase}", time.time())
            p.execute()

    def announce(self, crawl_id: str, source: str, posts: int) -> None:
        """A post count the blog announces (its archive widget, sitemap, feed)."""
        self.r.hset(Keys(crawl_id).crawl, f"announced:{source}", int(posts))

    def warn(self, crawl_id: str, kind: str, message: str) -> bool:
        """A warning said once per crawl and kind (an optional part is missing, say),
        not an error per page; True the first time."""
        return bool(self.r.hsetnx(Keys(crawl_id).crawl, f"warning:{kind}", message))

    def state_of(self, crawl_id: str) -> str | None:
        return self.r.hget(Keys(crawl_id).crawl, "state")

    def incr(self, crawl_id: str, field: str, n: int = 1) -> None:
        self.r.hincrby(Keys(crawl_id).crawl, field, n)

    def add_error(self, crawl_id: str, url: str, kind: str, message: str) -> None:
        k = Keys(crawl_id)
        entry = json.dumps({"url": url, "kind": kind, "message": message, "at": time.time()})
        with self.r.pipeline() as p:
            p.rpush(k.errors, entry)
            p.ltrim(k.errors, -10_000, -1)
            p.hincrby(k.crawl, "errors", 1)
            p.execute()

    def errors(self, crawl_id: str, limit: int = 1000) -> list[dict]:
        return [json.loads(e) for e in self.r.lrange(Keys(crawl_id).errors, -limit, -1)]

    def list_crawls(self, limit: int | None = None, page: int = 500):
        """Every crawl id, newest first (or the first `limit`), read `page` at a time."""
        start = 0
        while limit is None or start < limit:
            stop = start + page - 1 if limit is None else min(start + page, limit) - 1
            ids = self.r.zrevrange(CRAWLS, start, stop)
            yield from ids
            if len(ids) < stop - start + 1:
                return
            start = stop + 1

    # ------------------------------------------------------------ blog knowledge
    def save_blog(self, crawl_id: str, **fields) -> None:
        self.r.hset(Keys(crawl_id).blog, mapping={k: json.dumps(v) for k, v in fields.items()})
        self._blogs.pop(blog_of(crawl_id), None)

    def blog(self, crawl_id: str) -> dict:
        raw = self.r.hgetall(Keys(crawl_id).blog)
        return {k: json.loads(v) for k, v in raw.items()}

    def save_entries(self, crawl_id: str, entries: list[dict]) -> None:
        if entries:
            k = Keys(crawl_id)
            with self.r.pipeline() as p:
                p.hset(k.entries, mapping={e["url"]: json.dumps(e) for e in entries})
                self._bump_facts(keys=[k.crawl], args=["facts:entries", facts.token()], client=p)
                p.execute()

    def entry(self, crawl_id: str, url: str) -> dict | None:
        raw = self.r.hget(Keys(crawl_id).entries, url)
        return json.loads(raw) if raw else None

    def pattern_and_listed(self, crawl_id: str, url: str) -> tuple[str | None, bool]:
        """The blog's post pattern and whether its feed lists `url`, in one round trip: what a
        page's render need is asked of where no caller decided its kind (a page being sent)."""
        k = Keys(crawl_id)
        with self.r.pipeline(transaction=False) as p:
            p.hget(k.blog, "pattern")
            p.hexists(k.entries, url)
            pattern, listed = p.execute()
        return (json.loads(pattern) if pattern else None), bool(listed)

    def listed(self, crawl_id: str) -> set[str] | None:
        """The urls the crawl's feed lists as this process's last page read of the crawl found them
        (its copy, workers/facts.py: the feed's entries are written by discovery, before the
        pages), or None when it holds none."""
        held = self.facts.usable(crawl_id).get("entries")
        return None if held is None or held[1] is BIG else held[1]

    def cache_page(self, crawl_id: str, url: str, page: dict) -> None:
        k = Keys(crawl_id)
        with self.r.pipeline() as p:
            p.hset(k.pages, url, json.dumps(page))
            self._bump_facts(keys=[k.crawl], args=["facts:pages", facts.token()], client=p)
            p.execute()

    def cached_page(self, crawl_id: str, url: str) -> dict | None:
        raw = self.r.hget(Keys(crawl_id).pages, url)
        return json.loads(raw) if raw else None

    # ------------------------------------------------------------ frontier
    def enqueue(self, crawl_id: str, scored: dict[str, float]) -> int:
        """Queue urls never seen in this crawl; returns how many were new. One script, so a
        worker that dies midway cannot leave a url seen but never queued."""
        if not scored:
            return 0
        k, epoch = Keys(crawl_id), self.seen_cache.epoch
        args = [x for u, v in scored.items() for x in (u, repr(float(v)))]
        n = int(self._enqueue(keys=[k.seen, k.frontier], args=args))
        self.seen_cache.note(crawl_id, scored, epoch)
        return n

    def enqueue_estimated(self, crawl_id: str, posts: dict[str, float], estimates: dict[str, float],
                          tie: float) -> int:
        """`enqueue` of a page's links in one round trip (issue 22): `posts` at their priority,
        each url of `estimates` never seen in this crawl at its estimate less `tie` times its
        discovery number (the crawl's `sequence` counter, one more per url queued)."""
        if not posts and not estimates:
            return 0
        k, epoch = Keys(crawl_id), self.seen_cache.epoch
        args = [repr(float(tie)), len(posts)]
        args += [x for u, v in posts.items() for x in (u, repr(float(v)))]
        args += [x for u, v in estimates.items() for x in (u, repr(float(v)))]
        n = int(self._enqueue_estimated(keys=[k.seen, k.frontier, k.crawl], args=args))
        self.seen_cache.note(crawl_id, [*posts, *estimates], epoch)
        return n

    def _resend(self, crawl_id: str, epoch: int, posts: dict, sent_posts: dict, estimates: dict | None = None,
                sent_estimates: dict | None = None, tie: float = 0.0) -> int:
        """The urls this process's memory kept from a page's end (known queued) sent after all
        when the client connected again since the memory was read (workers/seen.py): Redis may
        have lost them meanwhile. Returns how many were queued. (`enqueue` and
        `enqueue_estimated`, rarer, send every url: a call would need no command at all to be
        left out, and then no reconnect could tell.)"""
        if self.seen_cache.epoch == epoch:
            return 0
        posts = {u: v for u, v in posts.items() if u not in sent_posts}
        estimates = {u: v for u, v in (estimates or {}).items() if u not in (sent_estimates or {})}
        if not posts and not estimates:
            return 0
        return self.enqueue_estimated(crawl_id, posts, estimates, tie)

    def unseen(self, crawl_id: str, urls: list[str]) -> list[str]:
        """The urls never queued in this crawl (a hint: enqueue decides atomically)."""
        every, epoch = urls, self.seen_cache.epoch
        urls = self.seen_cache.unknown(crawl_id, urls)
        flags = self.r.smismember(Keys(crawl_id).seen, urls) if urls else []
        if self.seen_cache.epoch != epoch and len(urls) < len(every):  # connected again: ask for all
            urls = every
            flags = self.r.smismember(Keys(crawl_id).seen, urls)
        self.seen_cache.note(crawl_id, [u for u, seen in zip(urls, flags) if seen], epoch)
        return [u for u, seen in zip(urls, flags) if not seen]

    def admit_variants(self, crawl_id: str, keyed: list[tuple[str, str]], limit: int) -> set[str]:
        """Count each (url, path key) as one more query variant of its path; the urls whose
        path already had `limit` variants in this crawl are returned (to be left out)."""
        if not keyed:
            return set()
        key = f"{Keys(crawl_id).crawl}:variants"
        with self.r.pipeline(transaction=False) as p:
            for _, path_key in keyed:
                p.hincrby(key, path_key, 1)
            counts = p.execute()
        return {u for (u, _), n in zip(keyed, counts) if n > limit}

    def note_trap(self, crawl_id: str, url: str, reason: str, report: int = 20) -> None:
        """One more URL left out as a trap; the first `report` go to the crawl's report."""
        n = self.r.hincrby(Keys(crawl_id).crawl, "trapped", 1)
        if n <= report:
            self.add_error(crawl_id, url, "trap", f"not followed: {reason}")

    def note_traps(self, crawl_id: str, items: list[tuple[str, str]], report: int = 20) -> None:
        """`note_trap` of many (url, reason) at once: one count, the first `report` ever reported."""
        if not items:
            return
        n = self.r.hincrby(Keys(crawl_id).crawl, "trapped", len(items))
        for i, (url, reason) in enumerate(items, n - len(items) + 1):
            if i > report:
                break
            self.add_error(crawl_id, url, "trap", f"not followed: {reason}")

    def traced(self, crawl_id: str) -> list[tuple[str, bool]]:
        return [tuple(json.loads(x)) for x in self.r.lrange(Keys(crawl_id).trace, 0, -1)]

    def rescore(self, crawl_id: str, scored: dict[str, float]) -> None:
        if scored:
            self.r.zadd(Keys(crawl_id).frontier, scored, xx=True)

    def frontier(self, crawl_id: str, limit: int = 5000) -> list[tuple[str, float]]:
        return self.r.zrevrange(Keys(crawl_id).frontier, 0, limit - 1, withscores=True)

    def dispatch(self, crawl_id: str, parallelism: int, max_pages: int) -> list[str]:
        k = Keys(crawl_id)
        return self._dispatch(keys=[k.frontier, k.inflight, k.crawl],
                              args=[parallelism, time.time(), max_pages])[1:]

    def hand_out(self, crawl_id: str, parallelism: int, max_pages: int) -> tuple[list[str], bool]:
        """`dispatch`, and when there is nothing to hand out `maybe_finish`, in one round trip:
        (urls handed out, whether the crawl finished)."""
        k = Keys(crawl_id)
        finished, *urls = self._dispatch(keys=[k.frontier, k.inflight, k.crawl, k.active],
                                         args=[parallelism, time.time(), max_pages, crawl_id])
        if finished:
            self.retire(crawl_id)
        return urls, bool(finished)

    def page_context(self, crawl_id: str, url: str, count: bool = True, also=None, kept: bool = False) -> dict:
        """What processing one page needs to know, read in one round trip (issue 22): its crawl,
        blog (the comment rule too), feed entry, cached page, the blog's sample count, what a
        deferred run of it fetched (`fetched`); counts the delivery (not when `count` is
        false: the same delivery read again after a Redis outage). `also(pipeline)`: the
        caller's own commands, sent first in the same round trip (their replies are not read).
        The blog's hash and patterns come from this process's reading of them less than BLOG_TTL
        ago when there is one (its own `save_blog` drops it), the sample count from its last
        write of a sample (issue 33: fewer commands a page). `kept`: a page a task's chain kept
        from the frontier (handed out by a page's end, never deferred: a deferred page waits in
        the due set and comes back as a message of its own), so no deferred run's memory to read."""
        k, b = Keys(crawl_id), blog_of(crawl_id)
        known = self._blogs.get(b)
        if known is not None and time.monotonic() - known[0] >= BLOG_TTL:
            known = None
        sampled = self._sampled.get(crawl_id)
        copies = self.facts.usable(crawl_id)
        direct = facts.Facts.direct(copies, url)  # the others from this process's copies (token checked)
        # a kept page: the end of the page before it read its crawl fields when it handed it out,
        # and it was just taken off the frontier, so not done (a second delivery would write nothing)
        ahead = self._ahead.pop((crawl_id, url), None)  # (taken out whoever delivers it: read once)
        ahead = ahead[1] if kept and ahead is not None and time.monotonic() - ahead[0] < AHEAD_TTL else None
        with self.r.pipeline(transaction=False) as p:
            if also is not None:
                also(p)
            extra = len(p.command_stack)
            if ahead is None:
                p.sismember(k.done, url)
                p.hmget(k.crawl, AHEAD)
            p.hincrby(f"{k.crawl}:attempts", url, 1 if count else 0)
            for kind in direct:
                (p.hgetall if kind == "cut" else p.hget)(getattr(k, kind), *(() if kind == "cut" else (url,)))
            if not kept:
                p.hgetall(k.fetched(url))
            if known is None:
                p.hgetall(k.blog)
                p.hgetall(k.patterns)
            if sampled is None:
                p.get(k.sampled)
                p.llen(k.samples)
            replies = p.execute()[extra:]
            if ahead is not None:
                replies[:0] = [False, ahead]
            done, (state, options, since, *toks), attempts, *rest = replies
        got = dict(zip(direct, rest))
        rest = rest[len(direct):]
        fetched = {} if kept else rest.pop(0)
        got.update(self.facts.fill(self.r, crawl_id, url, k, dict(zip(facts.KINDS, toks)), copies, got))
        if known is None:
            blog, patterns, *rest = rest
            self._blogs[b] = (time.monotonic(), blog, patterns)
        else:
            blog, patterns = known[1], known[2]
        if sampled is None:
            sampled = self._saw_samples(crawl_id, max(int(rest[0] or 0), int(rest[1] or 0)))
        cut, sitemap, source, entry, page = (got[kind] for kind in facts.KINDS)
        return {"cut": cut or {}, "sitemap": json.loads(sitemap) if sitemap else None, "source": source or "links",
                "patterns": patterns or {}, "sampled": int(sampled or 0), "fetched": fetched or {},
                "done": bool(done), "state": state, "options": json.loads(options or "{}"),
                "since": since or None, "attempts": attempts,
                "blog": {f: json.loads(v) for f, v in blog.items()},
                "entry": json.loads(entry) if entry else None, "page": json.loads(page) if page else None}

    def end_page(self, crawl_id: str, url: str, *, posts: dict[str, float] | None = None,
                 estimates: dict[str, float] | None = None, tie: float = 0.0, save: Saving | None = None,
                 sample: int | None = None, trace: bool | None = None, seen: list[str] | None = None,
                 counted: bool = True, hand_out: tuple[int, int] | None = None,
                 handed_at: str | None = None, trap: dict | None = None,
                 read: list[str] | None = None, listed: list[list[str]] | None = None,
                 left: tuple[str, list[str]] | None = None) -> dict:
        """A page's writes in one round trip (issue 22), as one step: its post's record `save`d
        (once its body is claimed: {"owner": url} alone when another URL holds the body, and
        nothing is written), its `sample` (the number of post links on it), the urls it was
        read under (`seen`: a redirect's target, not to be queued), the sub-pages read with it
        (`read`: its comment pages, its comment feed; seen and off the frontier), its links queued
        (`enqueue_estimated`), its `trace` entry (whether it produced a record), the page done
        (and `counted`); with `hand_out` (parallelism, page budget) the next pages handed out,
        or the crawl finished when there are none, in flight from `handed_at` (a time; now by
        default: State.handed_at finds them by it); `trap` (traverse.Links.trap): the page's part
        of the site counted as barren (more of it, no new post) or not, and cut at its limit;
        `read`: sub-pages the page's step read with it (marked seen and taken off the frontier);
        `listed`: the page's slots of links that may list posts (the crawl's `inlist`, issue 30);
        `left`: (a crawl hash field, urls): pages classified, not read (an image's own page below a
        post): seen, off the frontier, and counted once each in that field.
        Returns {"saved": None (no record) or whether new or changed, "sampled": samples ever
        (None: no sample), "queued", "handed", "finished", "cut": the barren pages in a row
        when this page cut its part of the site (else 0)}."""
        k, cache, epoch = Keys(crawl_id), self.seen_cache, self.seen_cache.epoch
        every = (posts or {}, estimates or {})
        posts, estimates = cache.unknown(crawl_id, every[0]), cache.unknown(crawl_id, every[1])
        seen = list(seen or [])
        data = save.data() if save is not None else ""
        hand = ["", "", ""] if hand_out is None else [int(hand_out[0]), handed_at or repr(time.time()), int(hand_out[1])]
        args = [url, crawl_id, "1" if counted else "0", repr(float(tie)), MAX_SAMPLES, *hand, data,
                pack(data) if data else "", (save.body or "") if save is not None else "",
                "" if sample is None else json.dumps([url, int(sample)]),
                "" if trace is None else json.dumps([url, bool(trace)]), len(posts), len(estimates), len(seen),
                *(save.args(crawl_id) if save is not None else [""] * 7), *_pairs(posts), *_pairs(estimates), *seen,
                *_trap_args(trap, list(every[1]), estimates),
                len(read or ()), *(read or ()), facts.token(), json.dumps(listed) if listed else "",
                len(left[1]) if left else 0, left[0] if left else "", *(left[1] if left else ()),
                "1" if hand_out is not None else ""]
        got = self._end_page(
            keys=[k.seen, k.frontier, k.crawl, k.done, k.inflight, k.samples, k.sampled, k.hashes, k.records,
                  k.posts, STREAM, k.bodies, k.trace, k.active, k.barren, k.cut, k.inlist], args=args)
        if got[0]:
            return {"owner": got[0]}
        _, saved, sampled, queued, finished, handed, written, cut, *ahead = got  # (ahead: not on a second delivery)
        ahead = ahead[0] if ahead else []
        for u in handed if len(ahead) == len(AHEAD) else ():
            self._ahead[(crawl_id, u)] = (time.monotonic(), ahead)
        if written:
            cache.note(crawl_id, [*posts, *estimates, *seen], epoch)
            queued += self._resend(crawl_id, epoch, every[0], posts, every[1], estimates, tie)
        if sampled >= 0:
            self._saw_samples(crawl_id, int(sampled))
        if finished:
            self.retire(crawl_id)
        return {"saved": None if saved < 0 else bool(saved), "sampled": None if sampled < 0 else int(sampled),
                "queued": int(queued), "handed": list(handed), "finished": bool(finished), "cut": int(cut)}

    def mark_done(self, crawl_id: str, url: str, counted: bool = False) -> None:
        """The page is finished (and, if `counted`, one more page read), in one step."""
        k = Keys(crawl_id)
        with self.r.pipeline() as p:
            p.sadd(k.done, url)
            p.hdel(k.inflight, url)
            p.hdel(k.crawl, "in_flight")  # the count the page ends keep: counted again by the next (lua.py)
            if counted:
                p.hincrby(k.crawl, "pages", 1)
            p.execute()

    def maybe_finish(self, crawl_id: str, max_pages: int) -> bool:
        k = Keys(crawl_id)
        finished = bool(self._finish(keys=[k.frontier, k.inflight, k.crawl, k.active],
                                     args=[time.time(), max_pages, crawl_id]))
        if finished:
            self.retire(crawl_id)
        return finished

    def retire(self, crawl_id: str) -> None:
        """A crawl that ended (done or failed): its count of URLs seen goes to its hash and its
        working keys expire after `finished_ttl` seconds (late deliveries still find them meanwhile)."""
        k = Keys(crawl_id)
        self.mark_unlisted(crawl_id)
        self.r.hsetnx(k.crawl, "seen", self.r.scard(k.seen))  # (retired again by the sweep: the first count)
        # the learning cache: no step of an ended crawl reads it (issue 22); the listings' slots,
        # judged once (mark_unlisted above): 8 MiB per 1,000 posts otherwise kept a day (issue 33)
        self.r.delete(k.pages, k.entries, k.inlist)
        with self.r.pipeline() as p:
            p.rpush(k.ended, 1)
            p.expire(k.ended, 60)  # a wake-up: a follower that looks later reads the state itself
            for key in k.working() if self.finished_ttl > 0 else ():
                p.expire(key, int(self.finished_ttl))
            p.hset(k.crawl, "retired", 1)  # (a crawl ended but not retired: the sweep retires it)
            p.execute()

    def mark_unlisted(self, crawl_id: str) -> list[str]:
        """workers.records.mark_unlisted: records no listing lists become pages (issue 30)."""
        return mark_unlisted(self.r, self.raw, crawl_id, self.stream_maxlen)

    def wait_ended(self, crawl_id: str, timeout: float) -> bool:
        """Up to `timeout` seconds for the crawl to end (woken by `retire`): whether it did."""
        return bool(self.r.blpop([Keys(crawl_id).ended], timeout=timeout))

    def stale_inflight(self, crawl_id: str, older_than: float) -> list[str]:
        """Urls handed out more than `older_than` seconds ago (their worker died)."""
        now = time.time()
        raw = self.r.hgetall(Keys(crawl_id).inflight)
        return [u for u, t in raw.items() if now - float(t) > older_than]

    def handed_at(self, crawl_id: str, at: str) -> list[str]:
        """The pages in flight handed out at exactly `at` (one write's hand-out time)."""
        return [u for u, t in self.r.hgetall(Keys(crawl_id).inflight).items() if t == at]

    def touch_inflight(self, crawl_id: str, urls: list[str], older_than: float | None = None) -> list[str]:
        """Note `urls` as handed out now, in one step: those still in flight and not done and,
        with `older_than`, still handed out that many seconds ago (a page deferred to later, or
        touched by another sweeper since it was read stale, is left alone). Returns the ones
        noted: to be sent again."""
        if not urls:
            return []
        k, now = Keys(crawl_id), time.time()
        cutoff = now - older_than if older_than is not None else 1e300
        return list(self._touch_inflight(keys=[k.inflight, k.done], args=[now, repr(cutoff), *urls]))

    # ------------------------------------------------------------ priority samples
    def add_sample(self, crawl_id: str, url: str, post_links: int) -> int:
        """Keep a training sample (the newest MAX_SAMPLES); returns how many the blog ever had."""
        k = Keys(crawl_id)
        with self.r.pipeline() as p:
            p.rpush(k.samples, json.dumps([url, post_links]))
            p.ltrim(k.samples, -MAX_SAMPLES, -1)
            p.incr(k.sampled)
            listed, _, ever = p.execute()
        if ever < listed:  # (the count kept beside the list lags it until the list is full: END_PAGE)
            self.r.set(k.sampled, listed)
        return self._saw_samples(crawl_id, max(listed, ever))

    def sampled(self, crawl_id: str) -> int:
        """Samples the blog ever had (what says when the priority model is worth refitting)."""
        k = Keys(crawl_id)
        with self.r.pipeline(transaction=False) as p:
            p.get(k.sampled)
            p.llen(k.samples)
            counted, listed = p.execute()
        return self._saw_samples(crawl_id, max(int(counted or 0), int(listed or 0)))

    def _saw_samples(self, crawl_id: str, n: int) -> int:
        """The blog's sample count as just read or written (page_context reuses it)."""
        if n > (self._sampled.get(crawl_id) or 0):
            self._sampled[crawl_id] = n
        return n

    def samples(self, crawl_id: str) -> list[tuple[str, int]]:
        return [tuple(json.loads(s)) for s in self.r.lrange(Keys(crawl_id).samples, 0, -1)]

    def lock(self, name: str, seconds: float) -> bool:
        return bool(self.r.set(f"bh:lock:{name}", "1", nx=True, px=int(seconds * 1000)))

    # ------------------------------------------------------------ records
    def save_record(self, crawl_id: str, record: dict, digest: str, stream_maxlen: int,
                    output_unchanged: bool = True, source: str | None = None) -> bool:
        """Store a post's record; returns True when it is new or changed (then it is streamed,
        once: the digest, the stream entry and the record are written in one step)."""
        k = Keys(crawl_id)
        saving = Saving(record, digest, stream_maxlen, output_unchanged, source)
        data = saving.data()
        return bool(self._save_record(keys=[k.hashes, k.records, k.posts, STREAM, k.crawl],
                                      args=[*saving.args(crawl_id), data, pack(data)]))

    def record(self, crawl_id: str, url: str) -> dict | None:
        return unpack(self.raw.hget(Keys(crawl_id).records, url))

    def crawl_records(self, crawl_id: str) -> list[dict]:
        return list(self.iter_records(crawl_id))

    def iter_records(self, crawl_id: str, chunk: int = 200):
        """The crawl's records in URL order, read `chunk` at a time (a big blog's output is
        written without holding every record in memory)."""
        k = Keys(crawl_id)
        urls = sorted(self.r.smembers(k.posts))
        for i in range(0, len(urls), chunk):
            for raw in self.raw.hmget(k.records, urls[i:i + chunk]):
                if raw:
                    yield unpack(raw)

    def post_count(self, crawl_id: str) -> int:
        return self.r.scard(Keys(crawl_id).posts)

    # ------------------------------------------------------------ discovery sources (issue 15)
    def add_sitemaps(self, crawl_id: str, sitemaps: dict[str, dict]) -> list[str]:
        """Remember sitemap urls (url -> {"guessed", "next"}); returns those new to the crawl."""
        k = Keys(crawl_id)
        with self.r.pipeline() as p:
            for u, meta in sitemaps.items():
                p.hsetnx(k.sitemaps, u, json.dumps(meta))
            self._bump_facts(keys=[k.crawl], args=["facts:sitemaps", facts.token()], client=p)
            fresh = p.execute()[:-1]
        return [u for u, new in zip(sitemaps, fresh) if new]

    def mark_sources(self, crawl_id: str, urls: list[str], source: str) -> None:
        """The source that found each url first (later finds do not change it)."""
        if urls:
            k = Keys(crawl_id)
            with self.r.pipeline() as p:
                for u in urls:
                    p.hsetnx(k.sources, u, source)
                self._bump_facts(keys=[k.crawl], args=["facts:sources", facts.token()], client=p)
                p.execute()

    def take_body(self, crawl_id: str, key: str, old: str, new: str) -> None:
        """`new` holds the body from now on; `old` leaves the crawl's output (one record per post)
        and is noted as its alias (a listing that names `old` lists `new`)."""
        k = Keys(crawl_id)
        with self.r.pipeline() as p:
            p.hset(k.bodies, key, new)
            p.srem(k.posts, old)
            p.hset(k.aliases, old, new)
            p.execute()

    def note_alias(self, crawl_id: str, url: str, owner: str) -> None:
        """`url` shows the post whose record is `owner`'s (a duplicate left out of the output)."""
        self.r.hset(Keys(crawl_id).aliases, url, owner)

    def note_menu(self, crawl_id: str, url: str) -> None:
        """`url`, read as a post, is linked by the blog's menu: a page at the crawl's end unless a
        listing lists it (workers.records.mark_unlisted)."""
        self.r.sadd(Keys(crawl_id).menu, url)

    def add_kept(self, key: str, urls) -> None:
        """Add `urls` to a crawl's working set `key`, kept KEPT_SECONDS at most (a crawl's working
        keys are deleted with it; this bounds one a lost crawl leaves)."""
        urls = list(urls)
        if urls:
            with self.r.pipeline(transaction=False) as p:
                p.sadd(key, *urls)
                p.expire(key, KEPT_SECONDS)
                p.execute()

    # ------------------------------------------------------------ politeness
    def robots(self, host: str) -> str | None:
        return self.r.get(f"bh:robots:{{{host}}}")

    def save_robots(self, host: str, text: str, ttl: int = 24 * 3600) -> None:
        self.r.set(f"bh:robots:{{{host}}}", text, ex=ttl)

    def robots_failed(self, host: str, ttl: int = 600) -> int:
        """One more network error asking `host`'s robots.txt: how many in the last `ttl` s."""
        key = f"bh:robots_failed:{{{host}}}"
        with self.r.pipeline() as p:
            p.incr(key)
            p.expire(key, ttl)
            return p.execute()[0]
