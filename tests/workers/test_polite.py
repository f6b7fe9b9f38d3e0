"""Politeness that keeps every host busy at its own pace and never holds another blog (issues 33
and 34): pages booked a slot of their host's schedule and sent when it comes (workers/fetch/
pacing.py), a Crawl-delay above the cap capped and said, `crawl --out` written blog by blog."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.conftest import interruptible, wait_for
from tests.farm.server import FarmServer
from tests.farm.wordpress import WordPress
from workers.fetch import pacing, patience
from workers.fetch.downloader import Downloader
from workers.settings import Settings
from workers.state import Keys

CLI = [sys.executable, "-m", "workers.cli"]


@pytest.fixture
def due_set(state, monkeypatch):
    """A due set of the test's own: the suite's real workers drain `bh:delayed` on the same Redis."""
    key = f"bh:delayed:test-{time.monotonic_ns()}"
    monkeypatch.setattr(patience, "DELAYED", key)
    monkeypatch.setattr(pacing, "DELAYED", key)
    yield state
    state.r.delete(key)


def _paced_site(state, gap: float) -> str:
    """An origin whose robots.txt (as Redis holds it) asks `gap` s between requests, fresh per test."""
    origin = f"http://paced-{time.monotonic_ns()}.test"
    state.save_robots(origin, f"User-agent: *\nCrawl-delay: {gap:g}\n")
    return origin


def test_pages_of_a_paced_host_are_sent_one_slot_apart(rt, due_set):
    """The first page goes now; the next ones wait in the due set, a gap apart, in flight with
    their due time; the pacer's pop sends each when its slot comes and not before."""
    origin = _paced_site(rt.state, 5)
    cid = "abcdef123456-pacing1"
    urls = [f"{origin}/p{i}" for i in range(3)]
    now_ok = [pacing.schedule(rt, cid, u) for u in urls]
    assert now_ok == [True, False, False]
    due = dict(((c, u), t) for c, u, t in patience.delayed(rt))
    first, second = due[(cid, urls[1])], due[(cid, urls[2])]
    assert second - first == pytest.approx(5.0, abs=0.5)
    assert float(rt.state.r.hget(Keys(cid).inflight, urls[1])) == pytest.approx(first)
    assert patience.pop_due(rt.state.r, now=first - 0.01)[0] == []
    assert patience.pop_due(rt.state.r, now=first)[0] == [(cid, urls[1])]
    assert patience.pop_due(rt.state.r, now=second)[0] == [(cid, urls[2])]


def test_an_unpaced_host_or_a_page_read_for_learning_is_sent_at_once(rt, due_set):
    cid = "abcdef123456-pacing2"
    assert all(pacing.schedule(rt, cid, f"http://127.0.0.1:9/p{i}") for i in range(3))  # loopback: no delay here
    origin = _paced_site(rt.state, 5)
    assert pacing.schedule(rt, cid, f"{origin}/a")
    rt.state.r.hset(Keys(cid).pages, f"{origin}/cached", "{}")
    try:
        assert pacing.schedule(rt, cid, f"{origin}/cached") is None  # no request of its own: no slot, sent behind
    finally:
        rt.state.r.delete(Keys(cid).pages)
    assert patience.delayed(rt) == []


def test_the_pacer_sends_pages_when_they_fall_due(rt, due_set):
    """A worker's pacer thread: nothing sent before the slot, sent soon after it (waited on
    with a deadline, no sleep as synchronisation)."""
    cid = "abcdef123456-pacing3"
    now = patience._now(rt.state.r)
    rt.state.r.zadd(patience.DELAYED, {json.dumps([cid, "http://x.test/a"]): now + 0.6})
    sent: list[tuple[float, tuple]] = []
    p = pacing.Pacer(rt, lambda *a: sent.append((patience._now(rt.state.r), a)))
    p.start()
    try:
        wait_for(lambda: sent, 10, "the due page sent")
    finally:
        p.stop()
        p.join(5)
    [(at, args)] = sent
    assert args == (cid, "http://x.test/a")
    assert now + 0.6 <= at < now + 0.6 + 2.0


def test_a_page_deferred_in_its_process_wakes_the_idle_pacer(rt, due_set, monkeypatch):
    """(issue 33) With nothing due the pacer looks seldom (here: never again within the test),
    yet a page its own process adds to the due set is sent when it falls due."""
    import threading

    monkeypatch.setattr(pacing, "IDLE", 3600.0)
    looked, pop = threading.Event(), pacing.pop_due

    def counted(*a, **kw):
        got = pop(*a, **kw)
        looked.set()
        return got

    monkeypatch.setattr(pacing, "pop_due", counted)
    cid = "abcdef123456-pacing4"
    sent: list[tuple] = []
    p = pacing.Pacer(rt, lambda *a: sent.append(a))
    p.start()
    try:
        assert looked.wait(10)  # its first look found the set empty: it waits IDLE, unless woken
        patience.defer_page(rt, cid, "http://x.test/b", 0.2)
        wait_for(lambda: sent, 10, "the deferred page sent")
    finally:
        p.stop()
        p.join(5)
    assert sent == [(cid, "http://x.test/b")] and not p.is_alive()


def test_a_crawl_delay_above_the_cap_is_capped_and_said(rt):
    """(issue 34) Crawl-delay: 600 with a cap of 30 s: requests 30 s apart, and the crawl's
    warnings (its report, the command's output) say so once."""
    st = rt.state
    dl = Downloader(st, Settings(max_crawl_delay=30.0, allow_private=True))
    origin = f"http://capped-{time.monotonic_ns()}.test"
    st.save_robots(origin, "User-agent: *\nCrawl-delay: 600\n")
    cid = st.create_crawl(origin + "/", None, {})
    with dl.crawl(cid):
        policy = dl.robots(origin + "/a")
        dl.robots(origin + "/b")
    assert policy.crawl_delay == 600
    assert dl.host_gap("capped.test", policy, None) == 30.0
    warning = st.crawl_info(cid)["warnings"]["crawl_delay"]
    assert "600" in warning and "capped at 30 s" in warning
    small = f"http://small-{time.monotonic_ns()}.test"
    st.save_robots(small, "User-agent: *\nCrawl-delay: 3\n")
    assert dl.host_gap("small.test", dl.robots(small + "/"), None) == 3.0  # below the cap: as asked


def _records(path) -> list[dict]:
    try:
        with open(path, encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.endswith("\n")]
    except FileNotFoundError:
        return []


def test_a_blog_is_written_to_out_while_a_slow_blog_still_runs(tmp_path):
    """(issue 34) `crawl A B --out F`, A's robots.txt says Crawl-delay: 600 (capped at 20 s here,
    so A is still running long after B): B's posts are all in F while A runs, and the command
    says that A's delay was capped. Ctrl-C then stops A cleanly."""
    slow = WordPress(seed=41, n_posts=6, feed_size=6)
    slow.robots = "User-agent: *\nCrawl-delay: 600\nDisallow:\n"
    fast = WordPress(seed=42, n_posts=6, feed_size=6)
    out = tmp_path / "out.jsonl"
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env.update(BLOGHARVEST_ALLOW_PRIVATE="1", BLOGHARVEST_HOME=str(tmp_path / "home"),
               BLOGHARVEST_LOCAL_DELAY="0", BLOGHARVEST_MAX_CRAWL_DELAY="20")
    with FarmServer(slow, host="127.0.0.2") as a, FarmServer(fast, host="127.0.0.3") as b:
        b_posts = {b.origin + p.path for p in fast.posts}
        start = time.monotonic()
        proc = subprocess.Popen(CLI + ["crawl", a.url, b.url, "--out", str(out), "--js", "never"], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                preexec_fn=interruptible)
        try:
            wait_for(lambda: b_posts <= {r["url"] for r in _records(out)} or proc.poll() is not None, 120,
                     "B's posts in --out")
            took = time.monotonic() - start
            print(f"B's posts written {took:.1f} s after the start")
            assert proc.poll() is None, "the command ended: A did not wait for its Crawl-delay"
            written = {r["url"] for r in _records(out)}
            assert b_posts <= written
            assert not [u for u in written if u.startswith(a.origin)]  # A still running: none of its records yet
            a_requests = sum(a.hits.values())
        finally:
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=120)
    assert a_requests <= 3, a.hits  # robots.txt, the home page, at most one more: 20 s apart
    assert "capped at 20 s" in err, err[-2000:]
    assert took < 60, f"B's posts written {took:.0f} s after the start"


def test_a_robots_txt_the_network_drops_once_is_asked_again(rt):
    """A loaded loopback server reset the connection of the first robots.txt request: read as
    "no robots.txt", its Sitemap line was lost and the crawl guessed /sitemap.xml (a farm test
    failed so under load). A network error is asked once more before robots.txt counts as missing."""
    import socket
    import threading

    body = b"User-agent: *\nSitemap: http://127.0.0.1/sitemap_index.xml\n"
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    port, asked = srv.getsockname()[1], []

    def serve():
        while len(asked) < 2:
            conn, _ = srv.accept()
            conn.recv(65536)
            asked.append(1)
            if len(asked) == 1:  # the first: closed unanswered
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                conn.close()
                continue
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
                         % len(body) + body)
            conn.close()

    threading.Thread(target=serve, daemon=True).start()
    try:
        dl = Downloader(rt.state, Settings(allow_private=True))
        policy = dl.robots(f"http://127.0.0.1:{port}/")
    finally:
        srv.close()
    assert len(asked) == 2
    assert "Sitemap:" in rt.state.robots(f"http://127.0.0.1:{port}"), policy


def test_a_robots_txt_the_network_never_answers_ends_after_its_second_turn(rt):
    """The second try of a robots.txt the network fails waits for the host's next turn
    (HostBusy) and its step runs again from its start: the try counted in Redis, that run's try
    is the last one, read as missing. Counted per run, each run failed once and waited again:
    a blog whose home page declared its feed on a host this machine cannot reach sat in
    discovery for good (686 retries in 12 minutes)."""
    import socket

    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))  # bound, never listening: every connection refused at once
    port = closed.getsockname()[1]
    dl = Downloader(rt.state, Settings(allow_private=True, local_delay=0.5))
    try:
        with pytest.raises(patience.HostBusy) as busy:
            dl.robots(f"http://127.0.0.1:{port}/")  # refused, and the second try is half a second away
        time.sleep(busy.value.wait)  # the host's next turn: when the task runs the step again
        policy = dl.robots(f"http://127.0.0.1:{port}/")
    finally:
        closed.close()
    assert rt.state.robots(f"http://127.0.0.1:{port}") == ""  # unreachable twice: no robots.txt
    assert policy.allowed(f"http://127.0.0.1:{port}/post/")
