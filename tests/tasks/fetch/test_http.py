"""fetch(): real HTTP against the loopback server, every failure kind, and the SSRF guard."""
from __future__ import annotations

import gzip
import json
import socket
import threading
import time
import urllib.parse

import pytest

from tasks.fetch.charset import detect_encoding
from tasks.fetch.http import (FetchError, Response, blocked_ip, check_address,
                         fetch, looks_binary, make_session, parse_retry_after)
from tests.httpd import LoopbackServer, Reply
from tests.workers.report import note

OPEN = dict(allow_private=True)


def trickle(stop: threading.Event, chunk=b"x", every=0.05):
    """A body that never ends: one byte every `every` seconds until the test is over."""
    while not stop.wait(every):
        yield chunk


@pytest.fixture
def stop():
    ev = threading.Event()
    yield ev
    ev.set()


# --- plain fetches -------------------------------------------------------------


def test_ok_fields_and_roundtrip():
    page = "<html><head><title>t</title></head><body><p>héllo wörld</p></body></html>"
    with LoopbackServer({"/p": Reply(200, page, headers={"X-Twice": "a"})}) as s:
        r = fetch(s.url + "p", **OPEN)
    assert (r.status, r.reason, r.url, r.redirects) == (200, "OK", s.url + "p", [])
    assert r.content_type == "text/html" and r.encoding == "utf-8"
    assert r.text == page and r.content == page.encode()
    assert r.header("content-type") == "text/html; charset=utf-8" and r.header("x-twice") == "a"
    assert r.request_headers[0] == ("Host", f"127.0.0.1:{s.port}")
    assert dict(r.request_headers)["User-Agent"].startswith("Mozilla/5.0 (compatible; blogharvest")
    assert r.protocol == "HTTP/1.1" and r.elapsed > 0 and r.fetched_at.endswith("Z")
    assert not r.looks_binary
    back = Response.from_dict(json.loads(json.dumps(r.to_dict())))
    assert back == r


def test_gzip_body_is_decoded_and_size_limit_applies_to_decoded_bytes():
    body = b"<p>" + b"a" * 50_000 + b"</p>"
    packed = gzip.compress(body)
    with LoopbackServer({"/z": Reply(200, packed, headers={"Content-Encoding": "gzip"})}) as s:
        assert fetch(s.url + "z", **OPEN).content == body
        with pytest.raises(FetchError) as e:
            fetch(s.url + "z", max_bytes=len(packed) + 100, **OPEN)  # a small gzip bomb
    assert e.value.kind == "too_large"


@pytest.mark.parametrize("status,transient", [(404, False), (410, False), (500, True), (429, True)])
def test_http_error_status(status, transient):
    with LoopbackServer({"/": Reply(status, "nope")}) as s:
        with pytest.raises(FetchError) as e:
            fetch(s.url, **OPEN)
    err = e.value
    assert (err.kind, err.status, err.transient, err.retry_after) == ("http_status", status, transient, None)
    assert str(err).startswith(f"http_status: HTTP {status}") and "\n" not in str(err)
    assert err.to_dict()["transient"] is transient and FetchError.from_dict(err.to_dict()).status == status


def test_503_retry_after_delta_and_date():
    future = time.time() + 3600
    date = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(future))
    with LoopbackServer({"/a": Reply(503, "busy", headers={"Retry-After": "120"}),
                         "/b": Reply(503, "busy", headers={"Retry-After": date})}) as s:
        with pytest.raises(FetchError) as a:
            fetch(s.url + "a", **OPEN)
        with pytest.raises(FetchError) as b:
            fetch(s.url + "b", **OPEN)
    assert a.value.retry_after == 120 and a.value.transient and "retry after 120 s" in str(a.value)
    assert 3500 < b.value.retry_after <= 3600
    assert parse_retry_after("garbage") is None and parse_retry_after(None) is None


# --- deadlines -----------------------------------------------------------------


def test_trickling_body_times_out_at_the_deadline(stop):
    with LoopbackServer({"/": Reply(200, trickle(stop))}) as s:
        t0 = time.monotonic()
        with pytest.raises(FetchError) as e:
            fetch(s.url, timeout=1.0, **OPEN)
        took = time.monotonic() - t0
    assert e.value.kind == "timeout" and e.value.transient
    assert 0.9 < took < 2.0  # the deadline, not the (reset-on-every-byte) socket timeout


def test_silent_server_times_out(stop):
    def hang(req):
        stop.wait(30)  # never answers while the test runs
        return Reply(200, "late")

    with LoopbackServer(hang) as s:
        t0 = time.monotonic()
        with pytest.raises(FetchError) as e:
            fetch(s.url, timeout=0.8, **OPEN)
        assert e.value.kind == "timeout" and time.monotonic() - t0 < 2.0
        stop.set()


def test_delayed_body_after_headers_times_out():
    with LoopbackServer({"/": Reply(200, b"x" * 10, delay=30)}) as s:
        t0 = time.monotonic()
        with pytest.raises(FetchError) as e:
            fetch(s.url, timeout=0.8, **OPEN)
    assert e.value.kind == "timeout" and time.monotonic() - t0 < 2.0


def test_deadline_covers_all_hops_of_a_shared_session(stop):
    session = make_session()
    with LoopbackServer({"/ok": Reply(200, "fine"), "/slow": Reply(200, trickle(stop))}) as s:
        assert fetch(s.url + "ok", session=session, **OPEN).text == "fine"  # keep-alive connection
        with pytest.raises(FetchError) as e:
            fetch(s.url + "slow", session=session, timeout=0.8, **OPEN)
        assert e.value.kind == "timeout"
        assert fetch(s.url + "ok", session=session, **OPEN).text == "fine"  # session still usable


# --- redirects -----------------------------------------------------------------


def test_redirect_chain_followed():
    routes = {"/a": Reply(301, "", headers={"Location": "/b"}),
              "/b": Reply(302, "", headers={"Location": "c?x=1"}),
              "/c?x=1": Reply(303, "", headers={"Location": "/final#frag"}),
              "/final": Reply(200, "done")}
    with LoopbackServer(routes) as s:
        r = fetch(s.url + "a", **OPEN)
    assert r.url == s.url + "final" and r.text == "done"
    assert r.redirects == [s.url + "a", s.url + "b", s.url + "c?x=1"]


def test_redirect_loop_detected():
    routes = {"/a": Reply(302, "", headers={"Location": "/b"}),
              "/b": Reply(302, "", headers={"Location": "/a"})}
    with LoopbackServer(routes) as s:
        with pytest.raises(FetchError) as e:
            fetch(s.url + "a", **OPEN)
        assert s.hits["/a"] == 1 and s.hits["/b"] == 1
    assert e.value.kind == "redirect_loop" and not e.value.transient


def test_too_many_redirects():
    def hop(req):
        n = int(req.split.path.strip("/") or 0)
        return Reply(302, "", headers={"Location": f"/{n + 1}"})

    with LoopbackServer(hop) as s:
        with pytest.raises(FetchError) as e:
            fetch(s.url + "0", max_redirects=3, **OPEN)
        assert e.value.kind == "too_many_redirects"
        assert sum(s.hits.values()) == 4  # the first request and three redirects


# --- size ----------------------------------------------------------------------


def test_content_length_too_large_refused_before_reading():
    with LoopbackServer({"/": Reply(200, b"a" * 5000)}) as s:
        with pytest.raises(FetchError) as e:
            fetch(s.url, max_bytes=1000, **OPEN)
        assert fetch(s.url, max_bytes=5000, **OPEN).content == b"a" * 5000
    assert e.value.kind == "too_large" and "Content-Length 5000" in e.value.message


def test_streamed_body_without_length_too_large(stop):
    endless = trickle(stop, chunk=b"y" * 65536, every=0.001)
    with LoopbackServer({"/": Reply(200, endless)}) as s:
        t0 = time.monotonic()
        with pytest.raises(FetchError) as e:
            fetch(s.url, max_bytes=1_000_000, **OPEN)
    assert e.value.kind == "too_large" and "body exceeds" in e.value.message
    assert time.monotonic() - t0 < 5


# --- charset and binary --------------------------------------------------------

FRENCH = "Un été à Paris : « café crème », déjà vu, où êtes-vous ? " * 20


def test_wrong_header_charset_loses_to_meta():
    body = f'<html><head><meta charset="windows-1252"></head><body>{FRENCH} “quoted”</body></html>'
    with LoopbackServer({"/": Reply(200, body.encode("cp1252"), content_type="text/html; charset=utf-8")}) as s:
        r = fetch(s.url, **OPEN)
    assert r.encoding == "cp1252" and FRENCH in r.text and "“quoted”" in r.text


def test_unknown_header_charset_and_http_equiv():
    body = ('<html><head><meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-15">'
            f'</head><body>{FRENCH} €</body></html>')
    with LoopbackServer({"/": Reply(200, body.encode("iso8859-15"), content_type="text/html; charset=x-bogus")}) as s:
        r = fetch(s.url, **OPEN)
    assert r.encoding == "iso8859-15" and r.text.endswith("€</body></html>")


def test_missing_charset_is_detected():
    utf = f"<p>{FRENCH}</p>".encode()
    latin = f"<p>{FRENCH}</p>".encode("cp1252")
    with LoopbackServer({"/u": Reply(200, utf, content_type="text/html"),
                         "/l": Reply(200, latin, content_type="text/html")}) as s:
        assert fetch(s.url + "u", **OPEN).text == f"<p>{FRENCH}</p>"
        r = fetch(s.url + "l", **OPEN)
    assert r.encoding != "utf-8" and "été à Paris" in r.text


def test_xml_declaration_and_bom():
    xml = f'<?xml version="1.0" encoding="ISO-8859-1"?><rss><title>{FRENCH}</title></rss>'.encode("latin-1")
    assert detect_encoding(xml, "application/rss+xml") == "cp1252"
    assert detect_encoding(b"\xef\xbb\xbf<p>x</p>", "text/html; charset=latin-1") == "utf-8"
    utf16 = "\ufeff<p>héllo</p>".encode("utf-16-le")
    assert detect_encoding(utf16, None) == "utf-16" and not looks_binary(utf16, "utf-16")


def test_text_never_raises_on_garbage():
    r = Response(url="u", status=200, reason="OK", headers=[], content=b"\xff\xfe\xfa abc \x80",
                 content_type="text/html", encoding="utf-8")
    assert "abc" in r.text


def test_binary_served_as_html():
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4
    noise = bytes((i * 7919) % 256 for i in range(4000))
    with LoopbackServer({"/png": Reply(200, png), "/noise": Reply(200, noise),
                         "/html": Reply(200, f"<p>{FRENCH}</p>\n\t<br>\r\n")}) as s:
        assert fetch(s.url + "png", **OPEN).looks_binary
        assert fetch(s.url + "noise", **OPEN).looks_binary
        assert not fetch(s.url + "html", **OPEN).looks_binary


# --- connection errors -----------------------------------------------------------


def test_connection_refused_is_transient():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # bound, not listening: connections are refused
        with pytest.raises(FetchError) as e:
            fetch(f"http://127.0.0.1:{port}/", timeout=3, **OPEN)
    assert e.value.kind == "connection" and e.value.transient


@pytest.mark.parametrize("url", ["ftp://example.org/x", "file:///etc/passwd", "javascript:alert(1)", "gopher://a.b/"])
def test_bad_scheme(url):
    with pytest.raises(FetchError) as e:
        fetch(url, **OPEN)
    assert e.value.kind == "bad_scheme" and not e.value.transient


def test_redirect_to_bad_scheme_refused():
    with LoopbackServer({"/": Reply(302, "", headers={"Location": "file:///etc/passwd"})}) as s:
        with pytest.raises(FetchError) as e:
            fetch(s.url, **OPEN)
    assert e.value.kind == "bad_scheme"


# --- SSRF guard ------------------------------------------------------------------


@pytest.mark.parametrize("address", [
    "127.0.0.1", "127.8.9.10", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
    "169.254.169.254", "169.254.0.1", "100.64.0.1", "100.127.255.254", "0.0.0.0", "224.0.0.1",
    "239.255.255.250", "240.0.0.1", "255.255.255.255", "::1", "::", "fe80::1", "fc00::1", "fd12:3456::1",
    "::ffff:127.0.0.1", "::ffff:8.8.8.8", "ff02::1", "2002:7f00:1::", "64:ff9b::a00:1", "2001:db8::1",
])
def test_check_address_refuses(address):
    assert blocked_ip(address)
    host = f"[{address}]" if ":" in address else address
    with pytest.raises(FetchError) as e:
        check_address(f"http://{host}:8080/x", allow_private=False)
    assert e.value.kind == "private_address"


@pytest.mark.parametrize("address", ["8.8.8.8", "93.184.216.34", "1.1.1.1", "2606:4700:4700::1111"])
def test_check_address_accepts_public_literals(address):
    assert blocked_ip(address) is None
    host = f"[{address}]" if ":" in address else address
    check_address(f"https://{host}/", allow_private=False)


@pytest.mark.parametrize("url", ["http://localhost/", "http://metadata.google.internal/computeMetadata/v1/",
                                 "http://foo.localhost/", "http://redis:6379/", "http://printer.local/",
                                 "http://2130706433/", "http://0x7f.1/", "http://127.1/"])
def test_check_address_refuses_names_and_odd_ipv4_forms(url):
    with pytest.raises(FetchError) as e:
        check_address(url, allow_private=False)
    assert e.value.kind == "private_address"


def test_loopback_refused_by_default_without_env(monkeypatch):
    monkeypatch.delenv("BLOGHARVEST_ALLOW_PRIVATE", raising=False)
    with LoopbackServer({"/": Reply(200, "secret")}) as s:
        with pytest.raises(FetchError) as e:
            fetch(s.url)
        with pytest.raises(FetchError):
            fetch(s.url, allow_private=False)
        assert sum(s.hits.values()) == 0
        monkeypatch.setenv("BLOGHARVEST_ALLOW_PRIVATE", "1")
        assert fetch(s.url).text == "secret"
        with pytest.raises(FetchError):
            fetch(s.url, allow_private=False)  # an explicit False wins over the environment
    assert e.value.kind == "private_address"
    note("SSRF: loopback", "fetch a loopback server without, then with BLOGHARVEST_ALLOW_PRIVATE=1",
         "refused before any request; allowed with the variable", f"{e.value.kind}: {e.value.message}")


def test_redirect_from_allowed_host_to_private_address_refused():
    with LoopbackServer({"/secret": Reply(200, "redis")}) as inner:
        routes = {"/to-inner": Reply(302, "", headers={"Location": inner.url + "secret"}),
                  "/to-metadata": Reply(302, "", headers={"Location": "http://169.254.169.254/latest/meta-data/"}),
                  "/to-localhost": Reply(302, "", headers={"Location": "http://localhost:%d/secret" % inner.port})}
        with LoopbackServer(routes) as outer:
            only_outer = lambda url: urllib.parse.urlsplit(url).port == outer.port  # noqa: E731
            for path in routes:
                with pytest.raises(FetchError) as e:
                    fetch(outer.url + path.lstrip("/"), allow_private=only_outer, timeout=3)
                assert e.value.kind == "private_address", path
                assert e.value.url != outer.url + path.lstrip("/")  # refused at the hop, not the start
            assert inner.hits["/secret"] == 0
            both = lambda url: urllib.parse.urlsplit(url).port in (outer.port, inner.port)  # noqa: E731
            assert fetch(outer.url + "to-inner", allow_private=both).text == "redis"
    note("SSRF: after redirects", "an allowed host 302s to loopback, 169.254.169.254 and localhost",
         "each refused at the hop", f"private_address at the hop x3; inner server hit {inner.hits['/secret']}"
         " times before it was allowed")


def test_dns_rebinding_defeated_by_pinning(monkeypatch):
    """The name resolves to a public address when checked, to loopback on a second lookup:
    the connection goes to the checked address (pinned), no second lookup happens. DNS and
    the outbound connect are the things simulated (no test reaches the internet)."""
    import urllib3.util.connection as uconn

    real = socket.getaddrinfo
    calls, connected = [], []

    def rebinding(host, port, *a, **kw):
        if host != "rebind.example":
            return real(host, port, *a, **kw)
        calls.append(host)
        target = "93.184.216.34" if len(calls) == 1 else "127.0.0.1"
        return real(target, port, *a, **kw)

    real_connect = uconn.create_connection

    def connect(address, *a, **kw):
        connected.append(address[0])
        if address[0] == "93.184.216.34":
            raise OSError("network unreachable (simulated)")
        return real_connect(address, *a, **kw)

    with LoopbackServer({"/": Reply(200, "internal")}) as s:
        monkeypatch.setattr(socket, "getaddrinfo", rebinding)
        monkeypatch.setattr(uconn, "create_connection", connect)
        with pytest.raises(FetchError) as e:
            fetch(f"http://rebind.example:{s.port}/", allow_private=False, timeout=3)
        assert s.hits["/"] == 0
    assert connected == ["93.184.216.34"] and len(calls) == 1, (connected, calls)
    assert e.value.kind == "connection"
    note("SSRF: name resolving to loopback (DNS rebinding)", "a name resolves public when checked, "
         "127.0.0.1 on a second lookup", "the socket goes to the checked address; no second lookup",
         f"connected to {connected}; lookups {len(calls)}")


def test_utf8_body_declared_latin1_in_header_is_read_as_utf8():
    """The farm's `wrong_charset` lie: the header says iso-8859-1, the bytes (and <meta>) are UTF-8."""
    body = f'<html><head><meta charset="utf-8"></head><body>{FRENCH} Café</body></html>'.encode()
    with LoopbackServer({"/": Reply(200, body, content_type="text/html; charset=iso-8859-1"),
                         "/nometa": Reply(200, body.replace(b'<meta charset="utf-8">', b""),
                                          content_type="text/html; charset=ISO-8859-1")}) as s:
        for path in ("", "nometa"):
            r = fetch(s.url + path, **OPEN)
            assert r.encoding == "utf-8" and FRENCH in r.text and "CafÃ©" not in r.text, path
    # a real Latin-1 page (bytes that are not UTF-8) keeps its declared charset
    assert detect_encoding(f"{FRENCH} Café".encode("latin-1"), "text/html; charset=iso-8859-1") == "cp1252"
    assert detect_encoding("Привет мир".encode("koi8-r"), "text/html; charset=koi8-r") == "koi8-r"
