"""A process's copy of a crawl's facts that change seldom while its pages are read (issue 33):
the parts of the site cut as traps, the sitemaps, the source of each URL, which URLs its feed
lists. Reading each of them again for every page was four commands a page.

Exact, not a guess: every write of one of these hashes writes, in the same MULTI or script, a
new random token in the crawl hash (`facts:<kind>`), and each page reads the tokens with the
crawl's state in the read it makes anyway (`State.page_context`). A copy is used only while
its token is the one in Redis; otherwise the kind is read again, with its token, in one MULTI.
Random tokens, not counters, because a Redis that lost its last writes (a crash between AOF
fsyncs) and then took others could give a counter its old value back with other contents.
A crawl made before the tokens (none in its hash) is read per page as before.
"""
from __future__ import annotations

import uuid

from workers.cache import Recent

WHOLE = ("cut", "sitemaps", "sources")  # copied whole: small values
NAMES = ("entries", "pages")  # their field names only (feed entries, cached pages: large values, read when there)
KINDS = WHOLE + NAMES
FIELDS = [f"facts:{k}" for k in KINDS]
MAX_FIELDS = 50_000  # a kind with more fields than this is read per page (a copy per process would be big)
BIG = object()  # a kind too big to copy, for this crawl in this process (the hashes only grow during a crawl)


def token() -> str:
    return uuid.uuid4().hex[:16]


def tokens() -> dict[str, str]:
    """Fresh tokens of every kind: a new crawl's hash starts with them."""
    return {f: token() for f in FIELDS}


class Facts:
    """crawl id -> {kind: (token, value)}; value: the hash (WHOLE) or the set of its field names
    (NAMES), or BIG."""

    def __init__(self, size: int = 64):
        self._copies = Recent(size)

    def usable(self, crawl_id: str) -> dict:
        """{kind: (token, value)} this process holds (a token is checked against Redis's before use)."""
        return dict(self._copies.get(crawl_id) or {})

    @staticmethod
    def direct(copies: dict, url: str) -> list[str]:
        """The kinds a page's read asks Redis for (`url`'s field; cut: whole): those with no copy,
        too big to copy, or whose copy names `url` (its value is not copied)."""
        return [kind for kind in KINDS if copies.get(kind, (None, BIG))[1] is BIG
                or (kind in NAMES and url in copies[kind][1])]

    @staticmethod
    def resolve(copies: dict, url: str, toks: dict, got: dict) -> tuple[dict, list[str]]:
        """The values of the kinds not in `got` (read directly) from copies whose token is `toks`'
        (Redis's), and the kinds to read again: the others, and those read directly that a crawl
        with tokens has no copy of yet (so that later pages need not)."""
        out, stale = {}, []
        for kind in KINDS:
            held = copies.get(kind)
            if kind not in got and held is not None and held[0] == toks[kind]:
                out[kind] = held[1] if kind == "cut" else held[1].get(url) if kind in WHOLE else None
            elif kind not in got or (toks[kind] is not None and held is None):
                stale.append(kind)
        return out, stale

    @staticmethod
    def read(p, k, kind: str, url: str) -> int:
        """Queue the read of `kind` whole (names only for NAMES, then `url`'s value) in pipeline
        `p` (Keys `k`); returns how many replies it adds."""
        key = getattr(k, kind)
        if kind in NAMES:
            p.hkeys(key)
            p.hget(key, url)
            return 2
        p.hgetall(key)
        return 1

    def keep(self, crawl_id: str, kind: str, tok: str, value) -> None:
        if len(value) > MAX_FIELDS:
            value = BIG
        elif kind in NAMES:
            value = set(value)
        copies = dict(self._copies.get(crawl_id) or {})
        copies[kind] = (tok, value)
        self._copies[crawl_id] = copies

    def fill(self, r, crawl_id: str, url: str, k, toks: dict, copies: dict, got: dict) -> dict:
        """The page's facts not read in `got` (State.page_context): from the copies whose token
        is Redis's (`toks`), the others read whole again with their tokens in one MULTI and kept.
        A crawl with no tokens (made before them) is read per page: nothing to check a copy by."""
        out, stale = self.resolve(copies, url, toks, got)
        if not stale:
            return out
        with r.pipeline() as p:
            p.hmget(k.crawl, [f"facts:{kind}" for kind in stale])
            sizes = [self.read(p, k, kind, url) for kind in stale]
            now, *replies = p.execute()
        for kind, tok, n in zip(stale, now, sizes):
            value, *one = replies[:n]
            replies = replies[n:]
            if tok is not None:
                self.keep(crawl_id, kind, tok, value)
            if kind not in got:
                out[kind] = value if kind == "cut" else one[0] if one else value.get(url)
        return out
