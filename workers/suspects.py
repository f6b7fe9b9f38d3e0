"""A last chance, alone, for a page whose deliveries kept dying with their workers.

A page delivered more than MAX_ATTEMPTS times without ending is a suspect: it may kill its
worker (a poison page), or it may only have been in flight whenever a worker was killed for
other reasons (a node drained, an OOM elsewhere in the pod, chaos), more likely in a crawl's
tail and on a loaded machine. Dropping it at once loses a real post in the second case
(issue 36). So a suspect waits (deferred, still in flight: the crawl cannot end without it)
until nothing but suspects is left of its crawl, then is read alone, one suspect at a time
(`alone`, a lock that a killed holder's lease ends). Only a suspect that dies once more while
alone is dropped as poison: it costs the cluster one worker more than before, and an innocent
page is lost only if a worker dies in the second or so it is read alone.
"""
from __future__ import annotations

from workers.fetch import patience
from workers.keys import Keys

WAIT = 5.0  # s a suspect waits before it looks again whether it is the crawl's last work
ALONE_TRIES = 1  # deliveries alone that may die before the page is dropped as poison
LEASE = 300  # s the alone lock outlives a holder killed while reading


def _keys(crawl_id: str) -> tuple[Keys, str, str]:
    k = Keys(crawl_id)
    return k, f"{k.crawl}:suspects", f"{k.crawl}:alone"


def verdict(rt, crawl_id: str, url: str) -> str:
    """What a suspect's delivery does: "alone" (read it now, the crawl's only reader of a
    suspect: call `release` after), "wait" (deferred: other work remains, or another
    suspect is being read alone) or "drop" (it died alone already: poison)."""
    r = rt.state.r
    k, suspects, alone = _keys(crawl_id)
    with r.pipeline(transaction=False) as p:
        p.hsetnx(suspects, url, 0)
        p.zcard(k.frontier)
        p.hkeys(k.inflight)
        p.hkeys(suspects)
        p.hget(suspects, url)
        p.get(alone)
        _, queued, inflight, marked, tries, holder = p.execute()
    tries = int(tries or 0)
    if tries >= ALONE_TRIES:  # read alone before and delivered again: it died alone
        return "drop"
    others = queued + len(set(inflight) - set(marked))
    if others:
        patience.defer_page(rt, crawl_id, url, WAIT)
        return "wait"
    if holder != url and not r.set(alone, url, nx=True, ex=LEASE):
        patience.defer_page(rt, crawl_id, url, WAIT)
        return "wait"
    r.hincrby(suspects, url, 1)
    return "alone"


def release(rt, crawl_id: str, url: str) -> None:
    """The alone lock given up by the suspect that held it (read, or dropped)."""
    _, _, alone = _keys(crawl_id)
    r = rt.state.r
    if r.get(alone) == url:
        r.delete(alone)
