"""A remote Selenium Grid's browser obeys the guard too (tasks/fetch/grid.py): its requests go
through a GuardingProxy listening where the Grid reaches it, which serves the Grid's
addresses only; a Grid without BLOGHARVEST_PROXY_ADVERTISE renders nothing (fail closed).

The Grid is real: Debian's chromedriver started as a standalone WebDriver server on a free
port, used as SELENIUM_REMOTE_URL; its Chromium is driven over HTTP exactly as a Grid's is."""
from __future__ import annotations

import socket
import subprocess

import pytest

from tasks.fetch.browser import BrowserPool, GridUnguarded
from tasks.fetch.grid import ENV_ADVERTISE, ENV_CLIENTS, ENV_PORTS, ENV_UNGUARDED, GridClients, Listen, grid_listen
from tasks.fetch.grid import _ports, _split_host_port, route_address
from tasks.fetch.proxy import GuardingProxy
from tests.farm.faults import fault
from tests.httpd import free_port
from tests.tasks.fetch.test_browser_guard import _missing, blog, browser_test, only, refuses_the_page_itself


@pytest.fixture(scope="module")
def secret():
    from tests.httpd import LoopbackServer, Reply

    with LoopbackServer(lambda req: Reply(200, "<html><body>TOP-SECRET-METADATA</body></html>")) as s:
        yield s


@pytest.fixture(scope="module")
def grid():
    """chromedriver as a standalone WebDriver server: the Selenium Grid of these tests."""
    if _missing:
        pytest.skip(f"remote browser tests need {', '.join(_missing)}")
    pytest.importorskip("selenium")
    port = free_port()
    p = subprocess.Popen(["chromedriver", f"--port={port}"], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    try:
        for line in p.stdout:  # it says so once it listens
            if "started successfully" in line:
                break
        else:
            pytest.fail(f"chromedriver did not start (exit {p.wait()})")
        yield f"http://127.0.0.1:{port}"
    finally:
        p.terminate()
        p.wait(timeout=10)


@pytest.fixture(autouse=True)
def _no_grid_settings(monkeypatch):
    """The test's own settings only: none of the machine's."""
    for name in ("SELENIUM_REMOTE_URL", ENV_ADVERTISE, ENV_PORTS, ENV_CLIENTS, ENV_UNGUARDED):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def grid_pool(grid):
    holder = {"allow": lambda url: False}
    p = BrowserPool(size=1, max_pages=50, page_load_timeout=6, script_timeout=4, remote_url=grid,
                    proxy_advertise="127.0.0.1", allow_private=lambda url: holder["allow"](url))
    p.holder = holder
    yield p
    p.close()


def _free_range(n: int) -> int:
    """The first of `n` consecutive free ports below the ephemeral range (where the other
    sockets of a busy test run take theirs)."""
    import random

    for _ in range(200):
        lo = random.randrange(20000, 32000 - n)
        try:
            for port in range(lo, lo + n):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", port))
            return lo
        except OSError:
            continue
    raise RuntimeError("no free port range")


def _probe_urls(secret) -> dict:
    return {"secret": secret.url + "latest/meta-data",
            "metadata": "http://169.254.169.254/latest/meta-data",
            "localhost-name": f"http://localhost:{secret.port}/latest/meta-data"}


# --------------------------------------------------------------------------- through the Grid

@browser_test
@pytest.mark.parametrize("target", ["secret", "metadata", "localhost-name"])
def test_grid_browser_requests_to_private_addresses_are_refused(grid_pool, secret, target):
    """The probe page's iframe, script, image and fetch() aim at an address the guard
    refuses; rendered on the Grid, none reaches it, and the page came through the proxy."""
    before = sum(secret.hits.values())
    with blog({"/post": fault("probe", target=_probe_urls(secret)[target])}) as site:
        grid_pool.holder["allow"] = only(site)
        out = grid_pool.render(site.url + "post", max_clicks=0)
    assert "public words" in out["html"]
    assert "TOP-SECRET" not in out["html"] and "data-bh-frame-src" not in out["html"]
    assert sum(secret.hits.values()) == before, "the Grid's browser reached the private server"
    assert any(r["url"].startswith(site.url + "post") for r in out["resources"])  # via the proxy
    assert any(_probe_urls(secret)[target].split("/latest")[0] in r["url"] for r in out["refused"])


@browser_test
def test_grid_page_itself_refused(grid_pool, secret):
    refuses_the_page_itself(grid_pool, secret)


@browser_test
def test_an_unguarded_grid_does_reach_the_private_server(grid, secret):
    """The control: the same page on the same Grid, explicitly let render unguarded
    (BLOGHARVEST_UNGUARDED_GRID=1), reaches the private server. What the guard prevents."""
    before = sum(secret.hits.values())
    with blog({"/post": fault("probe", target=secret.url + "latest/meta-data")}) as site, \
            BrowserPool(size=1, page_load_timeout=6, script_timeout=4, remote_url=grid, unguarded_grid=True,
                        allow_private=only(site)) as p:
        out = p.render(site.url + "post", max_clicks=0)
    assert sum(secret.hits.values()) > before
    assert out["resources"] == [] and out["refused"] == []  # no proxy saw anything


@browser_test
def test_settings_from_the_environment_and_auto(grid, secret, monkeypatch):
    """SELENIUM_REMOTE_URL and BLOGHARVEST_PROXY_ADVERTISE=auto from the environment: the
    proxy listens on this host's address on the route to the Grid, in the port range given."""
    lo = _free_range(4)
    monkeypatch.setenv("SELENIUM_REMOTE_URL", grid)
    monkeypatch.setenv(ENV_ADVERTISE, "auto")
    monkeypatch.setenv(ENV_PORTS, f"{lo}-{lo + 3}")
    with blog({"/post": fault("probe", target=secret.url + "env")}) as site, \
            BrowserPool(size=1, page_load_timeout=6, script_timeout=4, allow_private=only(site)) as p:
        out = p.render(site.url + "post", max_clicks=0)
        [s] = list(p._live)
        assert s.proxy.listen.advertise == "127.0.0.1" and lo <= s.proxy.port <= lo + 3
        assert f"--proxy-server=http://127.0.0.1:{s.proxy.port}" in s.proxy.flags
    assert secret.hits["/env"] == 0 and "public words" in out["html"]


# --------------------------------------------------------------------------- fail closed

@browser_test
@pytest.mark.parametrize("how", ["arguments", "environment"])
def test_a_grid_without_the_advertise_setting_renders_nothing(grid, monkeypatch, how):
    if how == "environment":
        monkeypatch.setenv("SELENIUM_REMOTE_URL", grid)
        kw = {}
    else:
        kw = {"remote_url": grid, "proxy_advertise": None, "unguarded_grid": False}
    with blog({}) as site, BrowserPool(size=1, allow_private=only(site), **kw) as p:
        for _ in range(2):  # every page, not only the first
            with pytest.raises(GridUnguarded) as e:
                p.render(site.url + "post", max_clicks=0)
            assert e.value.kind == "unavailable" and e.value.warning == "unguarded-grid"
            assert ENV_ADVERTISE in e.value.message and ENV_UNGUARDED in e.value.message
        assert p.started == 0 and site.hits["/post"] == 0  # no session opened, nothing fetched


# --------------------------------------------------------------------------- the proxy's clients

def _get_via(proxy_port: int, url: str, source: str) -> bytes:
    """GET `url` through the proxy from the local address `source`; what came back."""
    with socket.socket() as c:
        c.settimeout(5)
        c.bind((source, 0))
        c.connect(("127.0.0.1", proxy_port))
        try:
            c.sendall(f"GET {url} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
            chunks = []
            while chunk := c.recv(65536):
                chunks.append(chunk)
        except ConnectionResetError:
            pass
        return b"".join(chunks)


def test_the_proxy_serves_the_grid_and_nobody_else():
    """Listening for a Grid at 127.0.0.1, the proxy serves 127.0.0.1 and closes a connection
    from 127.0.0.2 (another host, as far as it can tell) unread, CONNECT included."""
    with blog({}) as site, GuardingProxy(only(site), listen=grid_listen("http://127.0.0.1:4444", "127.0.0.1")) as p:
        ok = _get_via(p.port, site.url + "ok", "127.0.0.1")
        no = _get_via(p.port, site.url + "no", "127.0.0.2")
        with socket.socket() as c:
            c.bind(("127.0.0.2", 0))
            c.connect(("127.0.0.1", p.port))
            c.sendall(f"CONNECT 127.0.0.1:{site.port} HTTP/1.1\r\n\r\n".encode())
            try:
                tunnel = c.recv(100)
            except ConnectionResetError:
                tunnel = b""
        assert p.rejected == 2
    assert ok.startswith(b"HTTP/1.1 200") and b"public words" in ok
    assert no == b"" and tunnel == b"" and site.hits["/no"] == 0


def test_extra_clients_are_let_in(monkeypatch):
    monkeypatch.setenv(ENV_CLIENTS, "127.0.0.2/32, 10.1.0.0/16")
    with blog({}) as site, GuardingProxy(only(site), listen=grid_listen("http://127.0.0.1:4444", "127.0.0.1")) as p:
        assert _get_via(p.port, site.url + "x", "127.0.0.2").startswith(b"HTTP/1.1 200")
        assert _get_via(p.port, site.url + "y", "127.0.0.3") == b""
    clients = GridClients("127.0.0.1", 4444, ("10.1.0.0/16",))
    assert clients("10.1.2.3") and clients("::ffff:127.0.0.1") and not clients("10.2.0.1")


def test_a_loopback_proxy_serves_anyone_who_reaches_loopback():
    """The local default is unchanged: no client list (only this host reaches loopback)."""
    with blog({}) as site, GuardingProxy(only(site)) as p:
        assert p.listen == Listen() and p.flags[0] == f"--proxy-server=http://127.0.0.1:{p.port}"
        assert _get_via(p.port, site.url + "x", "127.0.0.2").startswith(b"HTTP/1.1 200")


def test_proxies_share_a_port_range_one_port_each():
    lo = _free_range(2)
    listen = Listen(ports=(lo, lo + 1))
    with GuardingProxy(False, listen=listen) as a, GuardingProxy(False, listen=listen) as b:
        assert {a.port, b.port} == {lo, lo + 1}
        with pytest.raises(OSError, match="no free port"):
            GuardingProxy(False, listen=listen).start()


def test_settings_are_parsed():
    assert _split_host_port("10.0.0.5") == ("10.0.0.5", None)
    assert _split_host_port("render-worker:9300") == ("render-worker", 9300)
    assert _split_host_port("fd00::5") == ("fd00::5", None)
    assert _split_host_port("[fd00::5]:9300") == ("fd00::5", 9300)
    assert _ports("9300-9331", None) == (9300, 9331) and _ports(None, 9400) == (9400, 9400)
    assert _ports("", None) == (0, 0) and _ports("9300", None) == (9300, 9300)
    with pytest.raises(ValueError):
        _ports("9331-9300", None)
    assert route_address("127.0.0.1", 4444) == "127.0.0.1"
    listen = grid_listen("http://127.0.0.1:4444", "[::1]:9300", environ={})
    assert listen.bind == "::1" and listen.ports == (9300, 9300)
    from tasks.fetch.proxy import chromium_flags

    assert chromium_flags(9300, "::1")[0] == "--proxy-server=http://[::1]:9300"
    with pytest.raises(OSError, match="resolves to no address"):
        grid_listen("http://grid.invalid:4444", "127.0.0.1", environ={})
