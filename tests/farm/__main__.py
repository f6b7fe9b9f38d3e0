"""Serve or write a farm blog by hand.

    python -m tests.farm serve FAMILY [--port 8000] [--seed 0] [--posts N] [--fault PATH=KIND ...]
    python -m tests.farm write FAMILY DEST [--seed 0] [--posts N]     (a harness.py blog directory)
    python -m tests.farm list
"""
from __future__ import annotations

import argparse
import sys
import threading

from . import FAMILIES, make_blog
from .faults import KINDS, Fault
from .server import FarmServer


def parse_fault(spec: str) -> tuple[str, Fault]:
    """PATH=KIND[:name=value,...], e.g. /feed/=503:retry_after=5 or /=slow:seconds=2."""
    path, _, rest = spec.partition("=")
    kind, _, params = rest.partition(":")
    values = {}
    for item in filter(None, params.split(",")):
        k, _, v = item.partition("=")
        try:
            values[k] = float(v) if "." in v else int(v)
        except ValueError:
            values[k] = v
    return path, Fault(kind, values)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.farm", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="verb", required=True)
    for verb in ("serve", "write"):
        sp = sub.add_parser(verb)
        sp.add_argument("family", choices=sorted(FAMILIES))
        if verb == "write":
            sp.add_argument("dest")
        sp.add_argument("--seed", type=int, default=0)
        sp.add_argument("--posts", type=int, default=None, help="number of posts (default: 50-500 from the seed)")
        if verb == "serve":
            sp.add_argument("--port", type=int, default=8000)
            sp.add_argument("--fault", action="append", default=[], metavar="PATH=KIND[:k=v,...]")
    sub.add_parser("list")
    a = ap.parse_args(argv)
    if a.verb == "list":
        for name, cls in FAMILIES.items():
            doc = (sys.modules[cls.__module__].__doc__ or "-").strip().splitlines()[0]
            print(f"{name:10s} {doc}")
        print("\nfault kinds: " + ", ".join(KINDS))
        return 0
    blog = make_blog(a.family, a.seed, a.posts)
    if a.verb == "write":
        dest = blog.write(a.dest)
        print(f"wrote {len(blog.posts)} posts of {a.family} seed {a.seed} to {dest}")
        return 0
    faults = dict(parse_fault(s) for s in a.fault)
    with FarmServer(blog, faults, port=a.port) as s:
        print(f"{a.family} seed {a.seed}: {len(blog.posts)} posts, feed {', '.join(s.feed_urls())}", flush=True)
        print(f"serving {s.url}  (^C to stop)", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
