"""blogharvest: archive whole blogs as JSON-lines records and WARC.

`crawl` without REDIS_URL runs the embedded default (private Redis, local workers);
with REDIS_URL it enqueues to that cluster and follows the crawl. The other commands
talk to the Redis at REDIS_URL. More: README.md, docs/records.md (the record format),
docs/deploy.md (clusters), docs/state.md (Redis keys), in the project's source.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from workers.settings import WORKER_QUEUES


def _env_redis() -> str | None:
    return os.environ.get("REDIS_URL") or None


def _state():
    from workers.settings import settings
    from workers.state import State

    url = settings().redis_url
    if not url:
        raise SystemExit("blogharvest: REDIS_URL is not set (only `crawl` runs without it)")
    return State.from_url(url)


# ------------------------------------------------------------------ crawl

def _interrupt(*_args) -> None:
    raise KeyboardInterrupt  # SIGTERM/SIGHUP stop a crawl as Ctrl-C does: cleanly, resumable


def cmd_crawl(a) -> int:
    import signal

    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _interrupt)

    urls = [u if "://" in u else "http://" + u for u in a.urls]
    options = {"max_pages": a.max_pages, "js": a.js}
    if _env_redis():
        if (a.warc or a.wacz) and not os.environ.get("BLOGHARVEST_WARC_DIR"):
            print("blogharvest: on a cluster each worker writes its captures into its own "
                  "BLOGHARVEST_WARC_DIR; set it here too (a shared volume) for --warc/--wacz to hold them, "
                  "else they get the warcinfo and the records' metadata only", file=sys.stderr)
        from workers.follow import run_crawls

        return run_crawls(urls, a.since, options, out=a.out, warc=a.warc, embedded=None, quiet=a.quiet,
                          report=a.report,
                          wacz=a.wacz)
    from workers.embedded import Embedded
    from workers.settings import wacz_dir

    env = {}
    warc_tmp = None
    if a.warc or a.wacz or wacz_dir():
        # the workers' WARC parts sit beside the output until it is assembled, so an
        # interrupted crawl keeps its captures and the resumed one adds to them
        warc_tmp = (a.warc or a.wacz or os.path.join(wacz_dir(), "crawl")) + ".parts"
        os.makedirs(warc_tmp, exist_ok=True)
        env["BLOGHARVEST_WARC_DIR"] = os.path.abspath(warc_tmp)
    env["BLOGHARVEST_WACZ_DIR"] = ""  # the follower packages the crawl, not the workers
    with Embedded(workers=a.workers, concurrency=a.concurrency, env=env) as emb:
        os.environ["REDIS_URL"] = emb.redis_url
        from workers.follow import run_crawls  # imported while the workers start

        return run_crawls(urls, a.since, options, out=a.out, warc=a.warc, embedded=emb,
                          quiet=a.quiet, warc_parts=warc_tmp, report=a.report, wacz=a.wacz)


def cmd_enqueue(a) -> int:
    from workers.follow import enqueue

    for u in a.urls:
        print(enqueue(u if "://" in u else "http://" + u, a.since, {"max_pages": a.max_pages}))
    return 0


def cmd_status(a) -> int:
    st = _state()
    ids = [a.crawl_id] if a.crawl_id else list(st.list_crawls(a.limit))
    infos = []
    for cid in ids:
        info = st.crawl_info(cid)
        if not info:
            print(f"blogharvest: no crawl {cid}", file=sys.stderr)
            return 2
        if a.errors or a.json:
            info["error_report"] = st.errors(cid, 200 if a.json else 20)
        infos.append(info)
    if a.json:
        print(json.dumps(infos[0] if a.crawl_id else infos, indent=1))
        return 0
    for i in infos:
        print(f"{i['crawl_id']}  {i['state']:8} pages={i['pages']} posts={i['posts']} errors={i['errors']} "
              f"queued={i['queued']} in_flight={i['in_flight']}  {i['url']}")
        for e in i.get("error_report", []) if a.errors else []:
            print(f"    {e['kind']:14} {e['url']}  {e['message']}")
    return 0


def cmd_report(a) -> int:
    from workers.archive import report

    if not a.html and not a.json:
        raise SystemExit("blogharvest report CRAWL_ID --html FILE.html and/or --json")
    if report.write(_state(), a.crawl_id, a.html, a.json) is None:
        print(f"blogharvest: no crawl {a.crawl_id}", file=sys.stderr)
        return 2
    if a.html:
        print(f"report -> {a.html}", file=sys.stderr)
    return 0


def cmd_export(a) -> int:
    from workers.archive.sinks import write_jsonl

    st = _state()
    if not st.crawl_info(a.crawl_id):
        print(f"blogharvest: no crawl {a.crawl_id}", file=sys.stderr)
        return 2
    if a.from_stream:
        from workers.archive.sinks import records_from_stream

        records = records_from_stream(st.r, a.crawl_id)
    else:
        records = st.crawl_records(a.crawl_id)
    n = write_jsonl(records, a.out)
    print(f"{n} records -> {a.out}", file=sys.stderr)
    return 0


def cmd_worker(a) -> int:
    from workers.embedded import worker_command

    if not _env_redis():
        print("blogharvest: REDIS_URL is not set; the worker would use redis://127.0.0.1:6379/0",
              file=sys.stderr)
    cmd = worker_command(a.concurrency, a.hostname, a.pool, a.queues)
    cmd[cmd.index("--loglevel") + 1] = a.loglevel
    os.execv(sys.executable, cmd + list(a.extra))
    return 0


def cmd_beat(a) -> int:
    os.execv(sys.executable, [sys.executable, "-m", "celery", "-A", "workers.app", "beat",
                              "--scheduler", "redbeat.RedBeatScheduler", "--loglevel", a.loglevel]
             + list(a.extra))
    return 0


def cmd_health(a) -> int:
    st = _state()
    try:
        st.r.ping()
    except Exception as e:
        print(f"unhealthy: redis: {e}", file=sys.stderr)
        return 1
    if a.worker:
        import socket

        from workers.app import app

        name = a.hostname or f"*@{socket.gethostname()}"
        replies = app.control.ping(timeout=a.timeout)
        names = [n for r in replies for n in r]
        import fnmatch

        if not any(fnmatch.fnmatch(n, name) for n in names):
            print(f"unhealthy: no worker {name} answered", file=sys.stderr)
            return 1
    print("ok")
    return 0


def cmd_schedule(a) -> int:
    from workers import schedule

    if a.action == "add":
        if not a.url or not a.every:
            raise SystemExit("blogharvest schedule add URL --every 6h")
        print(schedule.add(a.url, a.every))
    elif a.action == "remove":
        if not a.url:
            raise SystemExit("blogharvest schedule remove URL")
        return 0 if schedule.remove(a.url) else 1
    else:
        for row in schedule.list_all():
            print(f"{row['url']}  every {row['every']}  next {row.get('next_run', '?')}")
    return 0


# ------------------------------------------------------------------ parser

def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="blogharvest", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)

    c = sub.add_parser("crawl", help="harvest whole blogs and write their records")
    c.add_argument("urls", nargs="+", metavar="URL")
    c.add_argument("--since", help="update crawl: posts published or changed after this ISO date")
    c.add_argument("--out", help="records as JSON lines")
    c.add_argument("--warc", help="WARC file of every fetched resource (.warc.gz)")
    c.add_argument("--wacz", help="WACZ package (WARC, CDXJ index, pages list) for ReplayWeb.page; "
                                  "default BLOGHARVEST_WACZ_DIR/<crawl id>.wacz when that is set")
    c.add_argument("--max-pages", type=int, default=None, help="pages per blog at most")
    c.add_argument("--js", choices=["auto", "always", "never"], default="auto")
    c.add_argument("--workers", type=int, default=2, help="embedded mode: worker processes")
    c.add_argument("--concurrency", type=int, default=4, help="embedded mode: threads per worker")
    c.add_argument("--report", metavar="FILE.html", help="a self-contained HTML report of the crawl")
    c.add_argument("--quiet", action="store_true", help="no progress display")
    c.set_defaults(func=cmd_crawl)

    e = sub.add_parser("enqueue", help="queue crawls on the cluster at REDIS_URL; prints crawl ids")
    e.add_argument("urls", nargs="+", metavar="URL")
    e.add_argument("--since")
    e.add_argument("--max-pages", type=int, default=None)
    e.set_defaults(func=cmd_enqueue)

    s = sub.add_parser("status", help="state of a crawl (or of the recent ones)")
    s.add_argument("crawl_id", nargs="?")
    s.add_argument("--json", action="store_true")
    s.add_argument("--errors", action="store_true", help="list the crawl's error report")
    s.add_argument("--limit", type=int, default=None, help="the newest N crawls only (default: every crawl)")
    s.set_defaults(func=cmd_status)

    rp = sub.add_parser("report", help="what a crawl saved: coverage, rules, gaps, errors (HTML, JSON)")
    rp.add_argument("crawl_id")
    rp.add_argument("--html", metavar="FILE.html", help="write a self-contained HTML page")
    rp.add_argument("--json", action="store_true", help="print the report's facts as JSON")
    rp.set_defaults(func=cmd_report)

    x = sub.add_parser("export", help="a crawl's records as JSON lines")
    x.add_argument("crawl_id")
    x.add_argument("--out", required=True)
    x.add_argument("--from-stream", action="store_true",
                   help="read the records stream (bh:records) instead of the crawl's record store")
    x.set_defaults(func=cmd_export)

    w = sub.add_parser("worker", help="a Celery worker with this app's settings")
    w.add_argument("--concurrency", type=int, default=8)
    w.add_argument("--pool", choices=["prefork", "threads", "solo"], default="threads")
    w.add_argument("--queues", default=WORKER_QUEUES,
                   help="celery (every task) and render (pages a browser draws); a cluster may split them")
    w.add_argument("--hostname", default="worker@%h")
    w.add_argument("--loglevel", default="INFO")
    w.add_argument("extra", nargs=argparse.REMAINDER, help="after --: more celery worker arguments")
    w.set_defaults(func=cmd_worker)

    b = sub.add_parser("beat", help="Celery beat with schedules in Redis (celery-redbeat)")
    b.add_argument("--loglevel", default="INFO")
    b.add_argument("extra", nargs=argparse.REMAINDER)
    b.set_defaults(func=cmd_beat)

    h = sub.add_parser("health", help="exit 0 when Redis (and with --worker, a worker) answers")
    h.add_argument("--worker", action="store_true")
    h.add_argument("--hostname", default=None, help="worker name pattern (default *@this host)")
    h.add_argument("--timeout", type=float, default=5.0)
    h.set_defaults(func=cmd_health)

    sc = sub.add_parser("schedule", help="periodic update crawls (celery-redbeat)")
    sc.add_argument("action", choices=["add", "list", "remove"])
    sc.add_argument("url", nargs="?")
    sc.add_argument("--every", help="interval: 30m, 6h, 1d ...")
    sc.set_defaults(func=cmd_schedule)
    return ap


def main(argv=None) -> int:
    a = parser().parse_args(argv)
    if getattr(a, "extra", None) and a.extra[:1] == ["--"]:
        a.extra = a.extra[1:]
    from workers.validate import InvalidTask

    try:
        return a.func(a) or 0
    except InvalidTask as e:
        print(f"blogharvest: refused: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
