"""The browser obeys the guard (issue 19): every request Chromium makes goes through the guarding
proxy (tasks/fetch/proxy.py), which refuses what the crawler's own fetch refuses, records what
was fetched, and the rendered DOM and the renderer's memory are bounded."""
from __future__ import annotations

import os
import shutil
import urllib.parse

import pytest

from tasks.fetch.browser import BrowserPool, RenderError
from tasks.fetch.http import Response
from tasks.fetch.proxy import GuardingProxy
from tests.farm.faults import Faults, apply, fault
from tests.httpd import LoopbackServer, Reply

_missing = [n for n in ("chromium", "chromedriver")
            if not (shutil.which(n) or os.path.exists(f"/usr/bin/{n}"))]
browser = [pytest.mark.browser,
           pytest.mark.skipif(bool(_missing), reason=f"headless browser tests need {', '.join(_missing)}")]


def browser_test(fn):
    for mark in browser:
        fn = mark(fn)
    return fn

PAGE = ('<!DOCTYPE html><html><head><meta charset="utf-8"><title>p</title></head>'
        '<body><article><p>public words of a blog post</p></article></body></html>')


def blog(faults: dict):
    table = Faults(faults)

    def route(req):
        f = table.match(req.path, req.split.path)
        page = Reply(200, PAGE)
        return page if f is None else apply(f, req.path, lambda: page, "", req.headers)
    return LoopbackServer(route)


@pytest.fixture(scope="module")
def secret():
    with LoopbackServer(lambda req: Reply(200, "<html><body>TOP-SECRET-METADATA</body></html>")) as s:
        yield s


def only(*servers):
    """allow_private for these loopback servers only: everything else private is refused."""
    ports = {s.port for s in servers}
    return lambda url: urllib.parse.urlsplit(url).port in ports


# --------------------------------------------------------------------------- the proxy alone

def test_proxy_refuses_private_and_records_public(secret):
    import requests

    with blog({}) as site, GuardingProxy(allow_private=only(site)) as proxy:
        proxies = {"http": f"http://127.0.0.1:{proxy.port}"}
        ok = requests.get(site.url + "page", proxies=proxies, timeout=5)
        no = requests.get(secret.url + "x", proxies=proxies, timeout=5)
        bad = requests.get(f"http://127.0.0.1:{site.port}/\\@x", proxies=proxies, timeout=5)
        rec = proxy.take()
    assert ok.status_code == 200 and "public words" in ok.text
    assert no.status_code == 403 and "SECRET" not in no.text and secret.hits["/x"] == 0
    assert bad.status_code in (200, 403)  # requests itself may percent-encode the path
    assert [r["url"] for r in rec["resources"]][0] == site.url + "page"
    back = Response.from_dict(rec["resources"][0])
    assert back.status == 200 and b"public words" in back.content
    assert rec["refused"][0]["kind"] == "private_address" and rec["refused"][0]["url"] == secret.url + "x"


def test_proxy_refuses_connect_to_private(secret):
    import socket

    with GuardingProxy(allow_private=False) as proxy:
        with socket.create_connection(("127.0.0.1", proxy.port), timeout=5) as c:
            c.sendall(f"CONNECT 127.0.0.1:{secret.port} HTTP/1.1\r\nHost: 127.0.0.1:{secret.port}\r\n\r\n".encode())
            answer = c.recv(200)
    assert answer.startswith(b"HTTP/1.1 403")


def test_a_client_that_hung_up_leaves_no_traceback_but_a_bug_does(capsys):
    """Chromium gives up on a refused CONNECT before the answer: not a traceback in the log."""
    from tasks.fetch.proxy import _Server

    server = object.__new__(_Server)
    try:
        raise ConnectionResetError(104, "Connection reset by peer")
    except ConnectionResetError:
        server.handle_error(None, ("127.0.0.1", 1))
    assert capsys.readouterr().err == ""
    try:
        raise ValueError("a bug of the proxy's")
    except ValueError:
        server.handle_error(None, ("127.0.0.1", 1))
    assert "a bug of the proxy's" in capsys.readouterr().err


# --------------------------------------------------------------------------- real Chromium

@pytest.fixture(scope="module")
def guarded_pool(secret):
    if _missing:
        pytest.skip(f"headless browser tests need {', '.join(_missing)}")
    holder = {"allow": lambda url: False}
    p = BrowserPool(size=1, max_pages=50, page_load_timeout=6, script_timeout=4, remote_url="",
                    allow_private=lambda url: holder["allow"](url), max_dom_bytes=5_000_000)
    p.holder = holder
    yield p
    p.close()


@browser_test
@pytest.mark.parametrize("target", ["secret", "metadata", "localhost-name", "backslash"])
def test_browser_requests_to_private_addresses_are_refused(guarded_pool, secret, target):
    pytest.importorskip("selenium")
    urls = {"secret": secret.url + "latest/meta-data",
            "metadata": "http://169.254.169.254/latest/meta-data",
            "localhost-name": f"http://localhost:{secret.port}/latest/meta-data",
            "backslash": f"http://127.0.0.1:{secret.port}\\@1.1.1.1/latest/meta-data"}
    before = sum(secret.hits.values())
    with blog({"/post": fault("probe", target=urls[target])}) as site:
        guarded_pool.holder["allow"] = only(site)
        out = guarded_pool.render(site.url + "post", max_clicks=0)
    assert "public words" in out["html"]
    assert "TOP-SECRET" not in out["html"] and "LEAK:TOP" not in out["html"]
    assert "data-bh-frame-src" not in out["html"]  # a refused comment frame is not inlined at all
    assert sum(secret.hits.values()) == before, "the browser reached the private server"
    assert any(r["url"].startswith(site.url + "post") for r in out["resources"])
    assert not any("169.254" in r["url"] or f":{secret.port}" in r["url"] for r in out["resources"])


def refuses_the_page_itself(pool, secret) -> None:
    """A page the guard refuses is a RenderError("network") and never reaches its server
    (a local browser's pool here, a Grid's in test_grid_guard)."""
    pool.holder["allow"] = lambda url: False
    with pytest.raises(RenderError) as e:
        pool.render(secret.url + "top", max_clicks=0)
    assert e.value.kind == "network" and "guard refused" in str(e.value)
    assert secret.hits["/top"] == 0


@browser_test
def test_browser_page_itself_refused(guarded_pool, secret):
    refuses_the_page_itself(guarded_pool, secret)


@browser_test
def test_redirect_inside_the_browser_is_checked_again(guarded_pool, secret):
    routes = {"/post": Reply(200, PAGE.replace("</body>", '<iframe src="/hop?disqus.com/embed/comments"></iframe></body>')),
              "/hop": Reply(302, "", headers={"Location": secret.url + "after-redirect"})}
    with LoopbackServer(routes) as site:
        guarded_pool.holder["allow"] = only(site)
        out = guarded_pool.render(site.url + "post", max_clicks=0)
    assert secret.hits["/after-redirect"] == 0 and "TOP-SECRET" not in out["html"]
    assert any(r["status"] == 302 for r in out["resources"])


@browser_test
def test_rendered_dom_size_is_capped(guarded_pool):
    with blog({"/bomb": fault("dom_bomb", size=12_000_000)}) as site:
        guarded_pool.holder["allow"] = only(site)
        with pytest.raises(RenderError) as e:
            guarded_pool.render(site.url + "bomb", max_clicks=0)
        assert e.value.kind == "too_large"
        assert "public words" in guarded_pool.render(site.url + "fine", max_clicks=0)["html"]  # still usable


@browser_test
def test_renderer_memory_is_bounded():
    """The process watch alone (the in-page guard's bounds out of reach): a renderer growing
    past `max_renderer_growth` while the page loads is stopped, the next page renders."""
    if _missing:
        pytest.skip("no browser")
    with blog({"/bomb": fault("dom_bomb", size=400_000_000)}) as site:
        with BrowserPool(size=1, page_load_timeout=20, script_timeout=20, remote_url="",
                         allow_private=only(site), max_renderer_bytes=1_500_000_000,
                         max_renderer_growth=300_000_000, max_dom_bytes=10**10, max_dom_nodes=10**9) as p:
            with pytest.raises(RenderError) as e:
                p.render(site.url + "bomb", max_clicks=0)
            assert e.value.kind == "too_large" and "while the page loaded" in e.value.message, e.value
            assert "public words" in p.render(site.url + "ok", max_clicks=0)["html"]


def _tree_pss(pids) -> int:
    import psutil

    total = 0
    for pid in pids:
        try:
            total += psutil.Process(pid).memory_full_info().pss
        except psutil.Error:
            pass
    return total


@browser_test
@pytest.mark.parametrize("bomb", [{"size": 40_000_000}, {"size": 0, "nodes": 2_000_000}],
                         ids=["40MB-of-text", "2M-nodes"])
def test_a_growing_dom_is_stopped_while_the_page_loads(bomb):
    """Issue 34: a script building a 40 MB DOM (or two million nodes) is stopped by the in-page
    guard before the page is laid out: `too_large`, the browser's memory (PSS of its processes,
    sampled while it renders) at most 150 MiB above what an ordinary page took, and the
    session renders the next page."""
    import threading

    if _missing:
        pytest.skip("no browser")
    with blog({"/bomb": fault("dom_bomb", **bomb)}) as site, \
            BrowserPool(size=1, remote_url="", allow_private=only(site)) as p:
        peak, stop = [0], threading.Event()

        def sample():
            while not stop.is_set():
                peak[0] = max(peak[0], _tree_pss(p.browser_pids()))
                stop.wait(0.05)

        p.render(site.url + "ok", max_clicks=0)
        t = threading.Thread(target=sample, daemon=True)
        t.start()
        try:
            p.render(site.url + "ok2", max_clicks=0)
            ordinary, peak[0] = peak[0], 0
            with pytest.raises(RenderError) as e:
                p.render(site.url + "bomb", max_clicks=0)
            bombed = peak[0]
        finally:
            stop.set()
            t.join()
        assert e.value.kind == "too_large" and "while it loaded" in e.value.message, e.value
        assert bombed - ordinary < 150 * 2**20, (ordinary >> 20, bombed >> 20)
        assert "public words" in p.render(site.url + "ok", max_clicks=0)["html"]
