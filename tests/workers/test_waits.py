"""workers.discover.waits on a real Redis: how long a page an update crawl defers waits."""
from __future__ import annotations

from workers.discover import update, waits
from workers.state import Keys

SINCE = "2020-03-01"


def _crawl(rt, home: str) -> str:
    cid = rt.state.create_crawl(home, SINCE, {"update": True})
    rt.state.r.hset(Keys(cid).inflight, mapping={f"{home}being-read/{i}/": "0" for i in range(10)})
    return cid


def test_a_page_does_not_wait_where_the_crawl_has_nothing_else_to_read(rt):
    """A page waits while other pages are read or to be read; where every other page in flight
    waits too and the frontier is empty, waiting reads nothing sooner: it is read (an update
    crawl whose new posts only a sitemap names waited 20 s for a listing that never covers them)."""
    home = "http://upd-idle.example/"
    cid = rt.state.create_crawl(home, SINCE, {"update": True})
    k = Keys(cid)
    a, b, c = (f"{home}tag/{x}/" for x in "abc")
    rt.state.r.hset(k.inflight, mapping={a: "0", b: "0", c: "0"})
    assert waits.one_more(rt, cid, a, progress=True)  # b and c are being read
    assert waits.one_more(rt, cid, b, progress=True)  # c is
    assert waits.one_more(rt, cid, c, progress=True)  # a and b wait for it: its first wait (a moment)
    rt.state.r.zadd(k.frontier, {f"{home}post/": 1})
    assert waits.one_more(rt, cid, c, progress=True)  # a page to read: it waits
    rt.state.r.zrem(k.frontier, f"{home}post/")
    assert not waits.one_more(rt, cid, a, progress=True)  # all three wait, nothing read since: no longer
    assert waits.waiting(rt, cid) == 2
    update._read_in_series(rt, cid, (home, 2))  # a page of the home's listing read: progress
    assert waits.one_more(rt, cid, b, progress=True)  # its first wait since: it waits

def test_a_page_waits_longer_while_the_crawl_reads_other_pages_but_not_for_ever(rt):
    """On a loaded machine the home's listing is read slowly: a listing waiting for it counts
    only the waits with no page of it read meanwhile (nor a post's neighbours noted), up to
    WAITS_IN_ALL times its bound in all."""
    home = "http://upd-waits-progress.example/"
    cid = _crawl(rt, home)
    k = Keys(cid)
    tag = f"{home}tag/slow/"
    got = []
    for i in range(waits.MAX_WAITS * waits.WAITS_IN_ALL + 5):
        update._read_in_series(rt, cid, (home, i + 2))  # a page of the home's listing read between two waits
        got.append(waits.one_more(rt, cid, tag, progress=True))
    assert got == [True] * (waits.MAX_WAITS * waits.WAITS_IN_ALL) + [False] * 5
    still = f"{home}tag/still/"  # nothing read between its waits: MAX_WAITS, as before
    assert [waits.one_more(rt, cid, still, progress=True) for _ in range(waits.MAX_WAITS + 1)] \
        == [True] * waits.MAX_WAITS + [False]
    rt.state.r.hincrby(k.crawl, "pages", 50)  # other pages read (posts, all new) end no wait
    held = f"{home}tag/held/"
    assert [waits.one_more(rt, cid, held, progress=True) for _ in range(waits.MAX_WAITS + 1)] \
        == [True] * waits.MAX_WAITS + [False]
