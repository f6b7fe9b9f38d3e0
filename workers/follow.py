"""Start crawls from the command line and follow them to the end, with a progress display.

Following is only watching: the crawl itself runs in the workers. The follower also
sweeps (re-sends pages whose worker died) so a laptop crawl needs no beat process.
"""
from __future__ import annotations

import json
import sys
import time

from workers.start import send_page, start_crawl
from workers.state import ENDED as FINAL  # done, failed, budget_exhausted

SWEEP_EVERY = 15.0
REDIS_PATIENCE = 600.0  # a Redis outage the follower rides out (backoff) before it gives up


def _retrying(step, what: str, quiet: bool = False):
    """Run a step that only reads (or writes idempotently); while Redis is unreachable (a restart,
    a pause) wait with backoff and run it again, so the follower outlives short outages."""
    import redis

    down = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)
    deadline, pause = time.monotonic() + REDIS_PATIENCE, 0.5
    while True:
        try:
            return step()
        except down as e:
            if time.monotonic() + pause > deadline:
                raise
            _log(f"Redis unreachable while {what} ({type(e).__name__}); again in {pause:.1f} s", quiet)
            time.sleep(pause)  # backoff while Redis restarts
            pause = min(10.0, pause * 2)


def enqueue(url: str, since: str | None, options: dict, resume: bool = False) -> str:
    from workers.app import app
    from workers.runtime import runtime

    from workers.validate import crawl_args

    url, since, _, options = crawl_args(url, since, None, options)  # InvalidTask: refused here already
    st = runtime().state
    if resume:
        cid = st.active_crawl(url)
        if cid:
            return cid
    if since:
        options = dict(options, update=True)
    cid = st.create_crawl(url, since, options)
    start_crawl(app, st, cid, url, since, options)
    return cid



def _resume(cid: str) -> None:
    """A crawl interrupted earlier: its in-flight pages died with the old workers."""
    from workers import pipeline
    from workers.app import app
    from workers.runtime import runtime

    rt = runtime()
    phase = rt.state.r.hget(rt.keys(cid).crawl, "phase")
    if phase == "traverse":
        pipeline.recover(rt, cid, send_page, older_than=0)
    else:  # interrupted during discovery or learning: start those steps again
        info = rt.state.crawl_info(cid)
        rt.state.r.hset(rt.keys(cid).crawl, "state", "queued")
        start_crawl(app, rt.state, cid, info["url"], info.get("since"), info["options"])


def run_crawls(urls: list[str], since: str | None, options: dict, out: str | None, warc: str | None,
               embedded, quiet: bool = False, warc_parts: str | None = None, report: str | None = None,
               wacz: str | None = None) -> int:
    from workers.runtime import runtime

    rt = runtime()
    st = rt.state
    ids = [_started(st, u, since, options, embedded is not None, quiet) for u in urls]
    writer = BlogByBlog(st, out)
    try:
        infos = _follow(rt, ids, quiet, embedded.pool if embedded is not None else None, writer)
    except KeyboardInterrupt:
        _log("\ninterrupted: the crawl is saved; run the same command again to resume", False)
        writer.close()
        return 130
    except WorkersExited as e:
        _log(f"\nblogharvest: {e}; the crawl is saved; run the same command again to resume", False)
        writer.close()
        return 1
    if embedded is not None:
        # the workers end first: the last page's WARC record is written just after the step
        # that ended the crawl, and the parts are assembled below (a warm stop finishes it)
        embedded.pool.stop()
    records = _retrying(lambda: _records(st, ids), "reading the records", quiet)
    _retrying(lambda: writer.write(ids), "writing the records", quiet)
    writer.close()
    _archive(rt, ids, urls, records, warc, wacz, warc_parts, embedded is not None, quiet)
    for cid in ids:
        st.set_phase(cid, "end", current=False)
    if report:
        _write_reports(st, ids, report)
    return _summary(st, infos, quiet)


def _started(st, url: str, since: str | None, options: dict, embedded: bool, quiet: bool) -> str:
    """The crawl of `url`: the one a private Redis still holds unfinished (same `since`), resumed,
    else a new one."""
    cid = st.active_crawl(url) if embedded else None
    if cid and (st.crawl_info(cid).get("since") or None) == (since or None):
        _log(f"resuming crawl {cid} of {url}", quiet)
        _resume(cid)
        return cid
    return enqueue(url, since, options)


class BlogByBlog:
    """`--out`, written blog by blog (issue 34): a blog's records go to the file as soon as its
    crawl ends, whatever the other blogs of the command still wait for (a blog whose host
    asks minutes between requests holds no other blog's records back). The file is emptied
    when the command starts; each blog's records are appended whole and flushed; a blog is
    written once (`write` again at the end writes only the blogs not written yet)."""

    def __init__(self, st, path: str | None):
        self.st, self.path, self.written = st, path, set()
        self.f = open(path, "w", encoding="utf-8") if path else None

    def write(self, ids: list[str]) -> int:
        n = 0
        if self.f is None:
            return n
        for cid in ids:
            if cid in self.written:
                continue
            lines = [json.dumps(r, ensure_ascii=False) + "\n" for r in self.st.iter_records(cid)]
            self.f.writelines(lines)
            self.f.flush()
            self.written.add(cid)
            n += len(lines)
        return n

    def ended(self, infos: list[dict]) -> None:
        """The blogs whose crawl ended since the last look, written."""
        self.write([i["crawl_id"] for i in infos if i["state"] in FINAL and i["crawl_id"] not in self.written])

    def close(self) -> None:
        if self.f is not None:
            self.f.close()
            self.f = None


def _records(st, ids: list[str]) -> list[dict]:
    """Every record of the crawls (the write phase begins)."""
    for cid in ids:
        st.set_phase(cid, "write", current=False)
    return [r for cid in ids for r in st.crawl_records(cid)]


def _summary(st, infos: list[dict], quiet: bool) -> int:
    """One line per crawl and its first errors (said even when quiet if a crawl failed); the exit
    status: 1 when every crawl failed."""
    failed = [i for i in infos if i["state"] == "failed"]
    for i in infos:
        _log(f"{i['crawl_id']}: {i['state']}, {i['pages']} pages, {i['posts']} posts, {i['errors']} errors"
             + (f" ({i['message']})" if i.get("message") else ""), quiet and not failed)
        for e in st.errors(i["crawl_id"], 10):
            _log(f"  {e['kind']}: {e['url']}: {e['message']}", quiet)
        _log_not_found(st, i["crawl_id"], quiet)
        _log_update(st, i, quiet)
    return 1 if failed and len(failed) == len(infos) else 0


def _log_update(st, info: dict, quiet: bool) -> None:
    """An update crawl's line: pages read, left unread and why (issue 35)."""
    from workers.archive.report import update_facts

    try:
        u = update_facts(st, info["crawl_id"], info)
    except Exception as e:  # the summary is said all the same
        _log(f"  (update figures not read: {type(e).__name__}: {e})", quiet)
        return
    if not u:
        return
    _log((f"  update since {u['since']}: " if u.get("since") else "  ")
         + f"{u['read']} pages read, {u['skipped']} left unread"
         + (" (" + ", ".join(f"{n} {why}" for why, n in u["skipped_by_reason"].items()) + ")" if u["skipped"] else ""),
         quiet)
    if u.get("note"):
        _log(f"  {u['note']}", quiet)


def _log_not_found(st, crawl_id: str, quiet: bool) -> None:
    """The posts the blog announced (feed, sitemap) that gave no record, counted by why."""
    from workers.archive.report import not_found

    try:
        nf = not_found(st, crawl_id, st.blog(crawl_id), st.errors(crawl_id, 10_000))
    except Exception as e:  # the summary is said all the same
        _log(f"  (announced posts not counted: {type(e).__name__}: {e})", quiet)
        return
    if nf["count"]:
        _log(f"  announced, not found: {nf['count']} posts ("
             + ", ".join(f"{n} {why}" for why, n in nf["by_reason"].items()) + ")", quiet)


def _write_reports(st, ids: list[str], path: str) -> None:
    """`crawl --report FILE.html`: one report per crawl (FILE-2.html... for further blogs)."""
    from workers.archive import report

    stem, dot, ext = path.rpartition(".") if "." in path else (path, "", "")
    for n, cid in enumerate(ids):
        target = path if n == 0 else f"{stem}-{n + 1}{dot}{ext}"
        report.write(st, cid, target)
        _log(f"report -> {target}", False)


def _archive(rt, ids: list[str], urls: list[str], records: list[dict], warc: str | None, wacz: str | None,
             warc_parts: str | None, embedded: bool, quiet: bool) -> None:
    """--warc and --wacz (or BLOGHARVEST_WACZ_DIR/<crawl id>.wacz): one WARC assembled from the
    workers' parts, packaged as a WACZ. On a cluster the parts are the workers' shared
    BLOGHARVEST_WARC_DIR when this machine sees it (records dated within the crawl kept)."""
    import os

    from workers.archive import sinks

    if not wacz and sinks.wacz_dir():
        wacz = os.path.join(sinks.wacz_dir(), "-".join(ids) + ".wacz")
    window, remove = None, True
    if not embedded:
        warc_parts, remove = rt.settings.warc_dir, False
        window = sinks.crawl_window(rt.state, ids)
    summary = sinks.archive_crawl(rt.state, ids, urls, records, warc, wacz, warc_parts, remove, window)
    if summary is None:
        return
    if summary.get("wacz"):
        _log(f"WACZ {wacz}: {summary['wacz']['pages']} pages", quiet)
    if summary.get("wacz_error"):
        _log(f"blogharvest: no WACZ written: {summary['wacz_error']}", False)
    if summary["uncaptured"]:
        _log(f"{len(summary['uncaptured'])} posts have no capture in the WARC "
             f"(e.g. {summary['uncaptured'][0]})", quiet)


def _log(msg: str, quiet: bool) -> None:
    if not quiet:
        print(msg, file=sys.stderr, flush=True)


def expected_total(info: dict) -> int | None:
    """The posts a crawl should find: the largest count the blog announces, never below
    what was found already; None while nothing is announced."""
    counts = [n for n in (info.get("announced") or {}).values() if n]
    return max(counts + [info.get("posts", 0)]) if counts else None


def eta_seconds(info: dict, now: float) -> float | None:
    """Time left at the traversal's rate so far, once a total is known."""
    total, posts, started = expected_total(info), info.get("posts", 0), (info.get("phase_started") or {}).get("traverse")
    if not total or not started or posts <= 0 or now <= started:
        return None
    return max(0.0, (total - posts) * (now - started) / posts)


def progress_line(info: dict, now: float) -> str:
    """One plain line of a crawl's progress (non-TTY and --quiet logs, and the TTY display)."""
    total, eta = expected_total(info), eta_seconds(info, now)
    posts = f"{info['posts']}/{total}" if total else str(info["posts"])
    parts = [f"{info.get('phase') or info['state']}", f"posts {posts}", f"pages {info['pages']}",
             f"errors {info['errors']}", f"queued {info['queued']}"]
    if eta is not None:
        parts.append(f"eta {int(eta) // 60}m{int(eta) % 60:02d}s")
    return "  ".join(parts)


def _warnings(infos: list[dict], said: set) -> None:
    for i in infos:
        for kind, message in (i.get("warnings") or {}).items():
            if (i["crawl_id"], kind) not in said:
                said.add((i["crawl_id"], kind))
                print(f"warning: {message}", file=sys.stderr, flush=True)


def _sweep(crawl_id: str) -> None:
    """Hand out again the pages of dead workers: the workers' own `blogharvest.sweep`, so the
    follower does not load the crawl's code (lxml, numpy, feeds: 25 MB) to watch a crawl."""
    from workers.app import app

    app.send_task("blogharvest.sweep", args=[crawl_id], ignore_result=True)


class _Display:
    """The crawls' progress: rich's live lines on a terminal; else (logs) a plain line per crawl
    when its phase changes, and every 10 s; nothing when quiet."""

    def __init__(self, st, ids: list[str], quiet: bool):
        self.quiet, self.progress, self.bars = quiet, None, {}
        self.lines: dict[str, str] = {}
        self.last_line = time.monotonic()
        if not quiet and sys.stderr.isatty():
            from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

            self.progress = Progress(SpinnerColumn(), TextColumn("{task.description}"),
                                     TextColumn("{task.fields[line]}"), TimeElapsedColumn(), transient=False)
            self.progress.start()
            self.bars = {cid: self.progress.add_task(st.crawl_info(cid)["url"], total=None, line="") for cid in ids}

    def show(self, infos: list[dict], now: float) -> None:
        for i in infos:
            line = progress_line(i, now)
            if self.progress:
                self.progress.update(self.bars[i["crawl_id"]], line=line)
            elif not self.quiet and self._news(i["crawl_id"], line):
                print(f"{i['url']}: {line}", file=sys.stderr, flush=True)
                self.last_line = time.monotonic()
            self.lines[i["crawl_id"]] = line

    def _news(self, crawl_id: str, line: str) -> bool:
        """A plain line is due: the phase changed, or 10 s passed."""
        return line.split("  ")[0] != self.lines.get(crawl_id, "").split("  ")[0] \
            or time.monotonic() - self.last_line > 10

    def stop(self) -> None:
        if self.progress:
            self.progress.stop()


def _follow(rt, ids: list[str], quiet: bool, pool=None, writer: BlogByBlog | None = None) -> list[dict]:
    """Watch the crawls to their end (their last infos), sweeping every SWEEP_EVERY seconds;
    `pool`: the embedded workers, some maybe deferred until the first consumes; `writer`: where
    each blog's records go when its crawl ends."""
    st = rt.state
    display = _Display(st, ids, quiet)
    last_sweep = time.monotonic()
    said: set = set()
    try:
        while True:
            infos = _retrying(lambda: [st.crawl_info(cid) for cid in ids], "following the crawl", quiet)
            _warnings(infos, said)
            display.show(infos, time.time())
            if writer is not None and len(ids) > 1:
                _retrying(lambda: writer.ended(infos), "writing a blog's records", quiet)
            if all(i["state"] in FINAL for i in infos):
                return infos
            if pool is not None and pool.all_exited():
                raise WorkersExited(getattr(pool, "log_dir", None))
            if time.monotonic() - last_sweep > SWEEP_EVERY:
                last_sweep = time.monotonic()
                _sweep_running(infos, quiet)
            _pause(st, infos, pool, 0.25)
    finally:
        display.stop()


class WorkersExited(RuntimeError):
    """Every embedded worker ended before the crawl did: the command says so (and where their logs
    are) instead of waiting for pages no one will take."""

    def __init__(self, log_dir):
        super().__init__(f"the embedded workers all exited before the crawl ended; their logs: {log_dir or 'not kept'}")


def _pause(st, infos: list[dict], pool, seconds: float) -> None:
    """Between two looks (the display's refresh): while embedded workers wait to start, wait
    for the first to consume (then start them); else for the crawl to end, so the command
    ends as soon as it does."""
    if pool is not None and pool.start_deferred(wait=seconds):
        return
    running = [i["crawl_id"] for i in infos if i["state"] not in FINAL]
    try:
        st.wait_ended(running[0], seconds)
    except Exception:  # Redis away: the next look rides it out (_retrying)
        time.sleep(seconds)


def _sweep_running(infos: list[dict], quiet: bool) -> None:
    """(The workers sweep too, workers/heal.py: this is a second pair of hands.)"""
    for i in infos:
        if i["state"] == "running":
            _retrying(lambda: _sweep(i["crawl_id"]), "sweeping", quiet)
