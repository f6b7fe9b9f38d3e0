"""A crawl's Redis commands recorded (MONITOR) and run again on a server that does nothing else.

On a cluster the Redis has a machine of its own; on a 2-core bench machine it shares its cores
with the workers, the crawl command and the farm, and a command's measured time grows by the
time the server waited for a core in the middle of it. Replayed alone, in the order the server
ran them, the same commands give what they cost the server itself (issue 33's "Redis time per
post"): the time the server spent executing the commands clients sent (a script counted once,
whole: its inner commands, which MONITOR shows as `lua`'s, run inside it again).

That time is read from `INFO commandstats` with the slow log off, not from a slow log of every
command (`slowlog-log-slower-than 0`): the log's entry for each command a script runs is made
inside the script's own time, and made the page-ending script a quarter slower (151 against
120 us a post, the same recording replayed both ways). commandstats counts a script's inner
commands under their own names too, inside the script's time already: a command that clients
also send themselves is counted at the share of its calls that they sent (the same command
costs about the same either way; these are a tenth of the total).

Left out of the replay: commands that wait (BRPOP, BLPOP, ...: the broker's idle waits, which
would block the replay), subscriptions and connection commands.
"""
from __future__ import annotations

import re
import subprocess
import tempfile
from collections import Counter
from pathlib import Path

_LINE = re.compile(r"^\d+\.\d+ \[\d+ (\S+)\] (.*)$")
_ESC = {"n": b"\n", "r": b"\r", "t": b"\t", "a": b"\a", "b": b"\b", "\\": b"\\", '"': b'"'}
SKIP = {"BRPOP", "BLPOP", "BRPOPLPUSH", "BLMOVE", "BZPOPMIN", "BZPOPMAX", "SUBSCRIBE", "PSUBSCRIBE",
        "UNSUBSCRIBE", "PUNSUBSCRIBE", "CLIENT", "HELLO", "MONITOR", "SLOWLOG", "CONFIG", "INFO",
        "MEMORY", "SCAN", "QUIT", "RESET", "SELECT", "AUTH", "COMMAND", "WAIT", "SHUTDOWN"}


def parse_args(text: str) -> list[bytes]:
    """The arguments of one MONITOR line (each quoted, escaped as Redis's sdscatrepr writes)."""
    raw = text.encode("utf-8", "surrogateescape")
    out, i, n = [], 0, len(raw)
    while i < n:
        if raw[i:i + 1] != b'"':
            i += 1
            continue
        i += 1
        arg = bytearray()
        while i < n and raw[i:i + 1] != b'"':
            c = raw[i:i + 1]
            if c == b"\\" and i + 1 < n:
                e = chr(raw[i + 1])
                if e == "x" and i + 3 < n:
                    arg += bytes([int(raw[i + 2:i + 4], 16)])
                    i += 4
                    continue
                arg += _ESC.get(e, raw[i + 1:i + 2])
                i += 2
                continue
            arg += c
            i += 1
        out.append(bytes(arg))
        i += 1
    return out


def commands(path: Path):
    """The commands clients sent, in the order the server ran them (scripts' own left out). A
    MULTI is logged when it arrives and the commands it queues when its EXEC runs them, with
    other clients' commands in between: each MULTI is moved to just before its client's next
    command, so a transaction comes out whole."""
    held: set[str] = set()  # clients whose MULTI waits for their next command
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            m = _LINE.match(line.rstrip("\n"))
            if not m or m.group(1) == "lua":
                continue
            client, args = m.group(1), parse_args(m.group(2))
            name = args[0].decode(errors="replace").upper() if args else ""
            if not name or name in SKIP:
                continue
            if name == "MULTI":
                held.add(client)
                continue
            if client in held:
                held.discard(client)
                yield [b"MULTI"]
            yield args


class Recorder:
    """MONITOR of a server written to a file while the block runs (`redis-cli monitor`)."""

    def __init__(self, url: str, path: Path):
        self.url, self.path = url, path

    def __enter__(self):
        self._out = open(self.path, "wb")
        self.proc = subprocess.Popen(["redis-cli", "-u", self.url, "monitor"], stdout=self._out)
        return self

    def __exit__(self, *exc):
        self.proc.terminate()
        self.proc.wait()
        self._out.close()


def sent_usec(stats: dict, top: Counter) -> float:
    """The time the server spent on the commands clients sent, from `INFO commandstats`: each
    command's usec at the share of its calls that clients sent (scripts and transactions wholly)."""
    usec = 0.0
    for key, v in stats.items():
        calls = top.get(key.removeprefix("cmdstat_"), 0)
        if calls and v.get("calls"):
            usec += v["usec"] * min(1.0, calls / v["calls"])
    return usec


def replay(path: Path, scripts: list[str], batch: int = 200, server: str | None = None) -> dict:
    """Run the recorded commands on a new server alone (`server`: its redis-server binary, by
    default the embedded one's): {"commands", "usec", "errors", "first_errors", "version"}."""
    import redis

    from workers.redis_server import RedisServer

    with tempfile.TemporaryDirectory(prefix="bh-replay-") as d, \
            RedisServer(Path(d) / "r", persist=False, binary=server) as srv:
        r = redis.Redis.from_url(srv.url)
        info = r.info("server")
        version = f"Redis {info['redis_version']}" + (f", {info['mem_allocator']}" if "mem_allocator" in info else "")
        for body in scripts:  # (a script loaded before the recording began is still asked for)
            r.script_load(body)
        r.config_resetstat()
        sent = errors = 0
        first: list[str] = []
        top: Counter = Counter()  # calls of each command sent by clients (not inside a transaction)

        def run(pipe) -> int:
            stack = [c[0] for c in pipe.command_stack]
            failed = [(a, x) for a, x in zip(stack, pipe.execute(raise_on_error=False)) if isinstance(x, Exception)]
            first.extend(f"{a[0]!r}: {x}"[:160] for a, x in failed[:3 - len(first)] if len(first) < 3)
            return len(failed)

        pipe, open_multi = r.pipeline(transaction=False), False
        for args in commands(path):
            pipe.execute_command(*args)
            sent += 1
            name = args[0].decode(errors="replace").lower()
            if name == "multi" or not open_multi or name in ("exec", "discard"):
                top[name] += 1
            open_multi = args[0] == b"MULTI" or (open_multi and args[0].upper() not in (b"EXEC", b"DISCARD"))
            if len(pipe.command_stack) >= batch and not open_multi:  # (a transaction sent whole)
                errors += run(pipe)
        errors += run(pipe)
        usec = sent_usec(r.info("commandstats"), top)
    return {"commands": sent, "usec": usec, "errors": errors, "first_errors": first, "version": version}
