"""A crawl's Redis commands recorded (MONITOR) and run again on a server that does nothing else.

On a cluster the Redis has a machine of its own; on a 2-core bench machine it shares its cores
with the workers, the crawl command and the farm, and a command's measured time grows by the
time the server waited for a core in the middle of it. Replayed alone, in the order the server
ran them, the same commands give what they cost the server itself (issue 33's "Redis time per
post"): the sum of the SLOWLOG durations of the commands clients sent (a script counted once,
whole: its inner commands, which MONITOR shows as `lua`'s, run inside it again).

Left out of the replay: commands that wait (BRPOP, BLPOP, ...: the broker's idle waits, which
would block the replay), subscriptions and connection commands.
"""
from __future__ import annotations

import re
import subprocess
import tempfile
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
        r.config_set("slowlog-log-slower-than", 0)
        r.config_set("slowlog-max-len", 100_000)
        usec = sent = errors = 0
        first: list[str] = []

        def drain():
            nonlocal usec
            log = r.slowlog_get(100_000)
            usec += sum(e["duration"] for e in log
                        if e.get("client_address") not in (b"?:0", "?:0") and not e["command"].startswith(b"SLOWLOG"))
            r.slowlog_reset()

        r.slowlog_reset()
        def run(pipe) -> int:
            stack = [c[0] for c in pipe.command_stack]
            failed = [(a, x) for a, x in zip(stack, pipe.execute(raise_on_error=False)) if isinstance(x, Exception)]
            first.extend(f"{a[0]!r}: {x}"[:160] for a, x in failed[:3 - len(first)] if len(first) < 3)
            return len(failed)

        pipe, open_multi = r.pipeline(transaction=False), False
        for args in commands(path):
            pipe.execute_command(*args)
            sent += 1
            open_multi = args[0] == b"MULTI" or (open_multi and args[0].upper() not in (b"EXEC", b"DISCARD"))
            if len(pipe.command_stack) >= batch and not open_multi:  # (a transaction sent whole)
                errors += run(pipe)
                if sent % 2_000 < batch:  # (the log holds every command, scripts' own too)
                    drain()
        errors += run(pipe)
        drain()
    return {"commands": sent, "usec": usec, "errors": errors, "first_errors": first, "version": version}
