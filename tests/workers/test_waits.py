"""workers.discover.waits on a real Redis: how long a page an update crawl defers waits."""
from __future__ import annotations

from workers.discover import home_series, update, waits
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
    home_series.read_in_series(rt, cid, (home, 2))  # a page of the home's listing read: progress
    assert waits.one_more(rt, cid, b, progress=True)  # its first wait since: it waits

def test_a_page_waits_longer_while_the_crawl_reads_other_pages_but_not_for_ever(rt):
    """On a loaded machine the home's listing is read slowly: a listing waiting for it counts
    only the waits with no page of it read meanwhile (nor a post's neighbours noted), and waits
    until PROGRESS_MAX pages of it were read since its first wait, however many waits that takes
    (its bound in a row between two of them)."""
    home = "http://upd-waits-progress.example/"
    cid = _crawl(rt, home)
    k = Keys(cid)
    tag = f"{home}tag/slow/"
    got = []
    for i in range(waits.PROGRESS_MAX + 5):
        home_series.read_in_series(rt, cid, (home, i + 2))  # a page of the home's listing read between two waits
        got.append(waits.one_more(rt, cid, tag, progress=True))
    assert got == [True] * (waits.PROGRESS_MAX + 1) + [False] * 4  # its first wait, and 100 pages on
    still = f"{home}tag/still/"  # nothing read between its waits: MAX_WAITS, as before
    assert [waits.one_more(rt, cid, still, progress=True) for _ in range(waits.MAX_WAITS + 1)] \
        == [True] * waits.MAX_WAITS + [False]
    rt.state.r.hincrby(k.crawl, "pages", 50)  # other pages read (posts, all new) end no wait
    held = f"{home}tag/held/"
    assert [waits.one_more(rt, cid, held, progress=True) for _ in range(waits.MAX_WAITS + 1)] \
        == [True] * waits.MAX_WAITS + [False]


def test_a_wait_is_bounded_by_pages_read_not_by_how_slowly_they_come(rt):
    """The same pages read, one between every wait or one between every nine: a page that waits
    for them is released at the same page of the listing, so a loaded machine leaves the same
    pages unread as a quiet one (counted in waits, the slow crawl ran out of them first)."""
    released = []
    for every in (1, waits.MAX_WAITS - 1):
        home = f"http://upd-waits-pace-{every}.example/"
        cid = _crawl(rt, home)
        tag, read = f"{home}tag/t/", 0
        for i in range(2 * waits.PROGRESS_MAX * every):
            if i % every == 0:
                read += 1
                home_series.read_in_series(rt, cid, (home, read + 1))
            if not waits.one_more(rt, cid, tag, progress=True):
                released.append(read)
                break
    assert released == [waits.PROGRESS_MAX + 2] * 2  # (the page read before its first wait, and 101 on)


def test_a_page_told_to_read_keeps_its_count_of_waits(rt):
    """Unwaited (told anything but to wait), a page is counted as waiting no more; told to wait
    again, its bound still counts from its first wait."""
    home = "http://upd-waits-unwait.example/"
    cid = _crawl(rt, home)
    tag = f"{home}tag/u/"
    assert waits.one_more(rt, cid, tag, progress=True) and waits.waiting(rt, cid) == 1
    waits.unwait(rt, cid, tag)
    assert waits.waiting(rt, cid) == 0
    for i in range(waits.PROGRESS_MAX):
        home_series.read_in_series(rt, cid, (home, i + 2))
    assert waits.one_more(rt, cid, tag, progress=True) and waits.waiting(rt, cid) == 1
    home_series.read_in_series(rt, cid, (home, waits.PROGRESS_MAX + 2))
    assert not waits.one_more(rt, cid, tag, progress=True) and waits.waiting(rt, cid) == 0
