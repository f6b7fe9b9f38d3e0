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

KINDS = ("cut", "sitemaps", "sources", "entries")
FIELDS = [f"facts:{k}" for k in KINDS]
MAX_FIELDS = 50_000  # a kind with more fields than this is read per page (a copy per process would be big)
BIG = object()  # a kind too big to copy, for this crawl in this process (the hashes only grow during a crawl)


def token() -> str:
    return uuid.uuid4().hex[:16]


def tokens() -> dict[str, str]:
    """Fresh tokens of every kind: a new crawl's hash starts with them."""
    return {f: token() for f in FIELDS}


class Facts:
    """crawl id -> {kind: (token, value)}; value: the hash (cut, sitemaps, sources) or the set of
    its field names (entries, whose values are large: a post's entry is read when it has one)."""

    def __init__(self, size: int = 64):
        self._copies = Recent(size)

    def usable(self, crawl_id: str) -> dict:
        """{kind: (token, value)} this process holds (a token is checked against Redis's before use)."""
        return dict(self._copies.get(crawl_id) or {})

    @staticmethod
    def read(p, k, kind: str) -> None:
        """Queue the read of `kind` whole in pipeline `p` (State's keys `k`)."""
        key = {"cut": k.cut, "sitemaps": k.sitemaps, "sources": k.sources, "entries": k.entries}[kind]
        (p.hkeys if kind == "entries" else p.hgetall)(key)

    def keep(self, crawl_id: str, kind: str, tok: str, value) -> None:
        if len(value) > MAX_FIELDS:
            value = BIG
        copies = dict(self._copies.get(crawl_id) or {})
        copies[kind] = (tok, set(value) if kind == "entries" and value is not BIG else value)
        self._copies[crawl_id] = copies
