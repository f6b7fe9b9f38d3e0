"""Kill points for real worker processes (tests/workers/test_kill_points.py): a process started
with this directory on PYTHONPATH names each Redis write it sends by where it comes from (the
innermost function of `workers/` or `tasks/` on the stack; `celery` for Celery's and kombu's
own: a message received, acked, published) and

- with BLOGHARVEST_KILL_LOG=FILE, appends `label` per write to FILE (a crawl's writes, in order);
- with BLOGHARVEST_KILL_AT=LABEL#N, SIGKILLs itself just before its N-th write named LABEL is
  sent: the process dies between two of its Redis writes, as a worker killed at that moment;
- with BLOGHARVEST_KILL_ON=LABEL@TEXT, SIGKILLs itself before every write named LABEL whose
  subject is TEXT (a script's first argument, a command's key or field): a poison page,
  which kills every worker that reads it, and not those whose writes only name it as a link.

A write is a command that changes Redis (or a pipeline or script holding one); reads go
through unnamed and uncounted. Nothing else of the process changes.
"""
from __future__ import annotations

import os
import signal
import sys
import threading

_AT = os.environ.get("BLOGHARVEST_KILL_AT") or ""
_LOG = os.environ.get("BLOGHARVEST_KILL_LOG") or ""
_ON = os.environ.get("BLOGHARVEST_KILL_ON") or ""

READS = {"GET", "MGET", "HGET", "HMGET", "HGETALL", "HEXISTS", "HLEN", "HKEYS", "HVALS", "SISMEMBER",
         "SMISMEMBER", "SMEMBERS", "SCARD", "ZCARD", "ZSCORE", "ZRANGE", "ZREVRANGE", "ZRANGEBYSCORE",
         "ZREVRANGEBYSCORE", "ZCOUNT", "LRANGE", "LLEN", "LINDEX", "EXISTS", "TTL", "PTTL", "TYPE", "TIME",
         "PING", "INFO", "CLIENT", "CLIENT LIST", "CLIENT SETNAME", "SCAN", "XRANGE", "XLEN", "SELECT",
         "ECHO", "DBSIZE", "MULTI", "EXEC", "WATCH", "UNWATCH", "SUBSCRIBE", "UNSUBSCRIBE", "PSUBSCRIBE",
         "PUNSUBSCRIBE", "SCRIPT LOAD", "SCRIPT EXISTS", "HELLO", "AUTH", "CONFIG GET", "BLPOP"}


def _label() -> str:
    """The innermost function of ours (workers/, tasks/) that sent the write; for one of
    Celery's or kombu's own (a message received, acked, a chord's part), `celery.<function>`."""
    f, lib = sys._getframe(2), None
    while f is not None:
        path = f.f_code.co_filename
        if "/site-packages/" in path or path.startswith(sys.prefix) or "/lib/python" in path:
            if lib is None and "/redis/" not in path:
                lib = f.f_code.co_name
        elif path != __file__ and "/tests/" not in path:
            for pkg in ("/workers/", "/tasks/"):
                i = path.rfind(pkg)
                if i >= 0:
                    mod = path[i + 1:-3].replace("/", ".")
                    if mod == "workers.embedded":
                        return f"celery.{lib}"
                    return f"{mod}.{f.f_code.co_name}"
        f = f.f_back
    return f"celery.{lib}"


def _subjects(args) -> list[str]:
    """What a command is about: a script's first argument (after its keys), else its first two
    arguments (a key, a field)."""
    name = str(args[0]).upper()
    if name in ("EVALSHA", "EVAL"):
        n = int(args[2])
        return [str(a) for a in args[3 + n:4 + n]]
    return [str(a) for a in args[1:3]]


def _install() -> None:
    import redis.client

    target, _, nth = _AT.rpartition("#")
    nth = int(nth or 0)
    poison_at, _, poison = _ON.partition("@")
    counts: dict[str, int] = {}
    lock = threading.Lock()
    log = open(_LOG, "a", buffering=1) if _LOG else None

    def wrote(args=()) -> None:
        label = _label()
        if poison and label == poison_at and poison in args:
            os.kill(os.getpid(), signal.SIGKILL)
        with lock:
            counts[label] = n = counts.get(label, 0) + 1
            if log is not None:
                log.write(f"{label}\n")
            if label == target and n == nth:
                os.kill(os.getpid(), signal.SIGKILL)  # (a threads-pool worker is one process)

    execute_command = redis.client.Redis.execute_command

    def patched_execute_command(self, *args, **options):
        if args and str(args[0]).upper() not in READS:
            wrote(_subjects(args))
        return execute_command(self, *args, **options)

    execute = redis.client.Pipeline.execute

    def patched_execute(self, *a, **kw):
        if any(str(c[0][0]).upper() not in READS for c in self.command_stack):
            wrote([a for c in self.command_stack for a in _subjects(c[0])])
        return execute(self, *a, **kw)

    redis.client.Redis.execute_command = patched_execute_command
    redis.client.Pipeline.execute = patched_execute


if _AT or _LOG or _ON:
    _install()
