"""The guard's one URL parser, connection pinning, the environment's proxies, and the client's
failures that must be a page's error (issue 19): each against the hostile farm faults."""
from __future__ import annotations

import urllib.parse

import pytest

from tasks.fetch.charset import decode, detect_encoding
from tasks.fetch.guard import check_address, normalize_url, parse_url
from tasks.fetch.http import FetchError, fetch
from tests.farm.faults import Faults, apply, fault
from tests.httpd import LoopbackServer, Reply


def hostile(kind: str, **params):
    """A loopback site serving one page under a hostile fault at /x (and a plain page at /)."""
    page = Reply(200, '<html><head><meta charset="utf-8"></head><body><p>hello world</p></body></html>')
    faults = Faults({"/x": fault(kind, **params)})

    def route(req):
        f = faults.match(req.path, req.split.path)
        if f is None:
            return page
        return apply(f, req.path, lambda: page, "", req.headers)
    return LoopbackServer(route)


# --- one parser -------------------------------------------------------------------------

@pytest.mark.parametrize("url", [
    "http://127.0.0.1:8080\\@1.1.1.1/", "http://1.1.1.1\\@127.0.0.1/", "http:\\\\127.0.0.1/",
    "http://user:pw@1.1.1.1/", "http://1.1.1.1@127.0.0.1/", "http://@1.1.1.1/",
    "http://1.1.1.1:80:80/", "http://1.1.1.1:99999/", "http://1.1.1.1:8o/", "http://exa mple.org/",
    "http://a.b%2F@127.0.0.1/", "http://ex%00ample.org/", "http://[::1/", "http://[fe80::1%25eth0]/",
    "http://1.2.3.4.5/", "http://256.1.1.1/", "http://0x100000000/", "http://example.org\t/",
])
def test_urls_parsers_disagree_on_are_refused(url):
    with pytest.raises(FetchError) as e:
        check_address(url, allow_private=True)  # refused whatever the address policy
    assert e.value.kind == "bad_url", url


def test_backslash_userinfo_never_reaches_the_address_the_guard_did_not_check():
    """urllib.parse reads `127.0.0.1:PORT\\@1.1.1.1` as host 1.1.1.1, urllib3 as 127.0.0.1."""
    with LoopbackServer({"/": Reply(200, "internal")}) as s:
        url = f"http://127.0.0.1:{s.port}\\@1.1.1.1/"
        public_only = lambda u: False  # noqa: E731
        with pytest.raises(FetchError) as e:
            fetch(url, allow_private=public_only, timeout=3)
        assert e.value.kind == "bad_url" and "backslash" in e.value.message
        assert sum(s.hits.values()) == 0


@pytest.mark.parametrize("url,host", [
    ("http://2130706433/", "127.0.0.1"), ("http://0x7f.1/", "127.0.0.1"), ("http://127.1/", "127.0.0.1"),
    ("http://0177.0.0.1/", "127.0.0.1"), ("http://127.0.0.1./", "127.0.0.1"), ("http://EXAMPLE.org./", "example.org"),
    ("http://%31%32%37.0.0.1/", "127.0.0.1"), ("http://bücher.example/", "xn--bcher-kva.example"),
    ("http://[::ffff:7f00:1]/", "::ffff:7f00:1"),
])
def test_hosts_are_canonical_whatwg_style(url, host):
    assert parse_url(url).host == host


def test_canonical_url_is_what_is_requested():
    assert normalize_url("HTTP://Example.ORG:80/a b/ü?q=a b\\c#frag") == \
        "http://example.org/a%20b/%C3%BC?q=a%20b%5Cc"
    assert normalize_url("https://example.org:8443") == "https://example.org:8443/"


def test_too_long_hostname_is_a_bad_url_not_an_internal_error():
    long_label = "a" * 64 + ".example.org"
    long_name = ".".join(["abcdefghij"] * 30) + ".org"
    for url in (f"http://{long_label}/", f"http://{long_name}/"):
        with pytest.raises(FetchError) as e:
            fetch(url, allow_private=False, timeout=3)
        assert e.value.kind == "bad_url", url
        assert not e.value.transient


def test_odd_ipv4_spellings_of_loopback_are_refused_not_resolved():
    for url in ("http://0x7f000001/", "http://017700000001/", "http://127.000.000.001/"):
        with pytest.raises(FetchError) as e:
            check_address(url, allow_private=False)
        assert e.value.kind == "private_address" and "127.0.0.1" in e.value.message


# --- environment proxies ---------------------------------------------------------------

def test_proxy_from_the_environment_is_not_used(monkeypatch):
    with LoopbackServer(lambda req: Reply(200, "proxied")) as proxy, \
            LoopbackServer({"/": Reply(200, "direct")}) as site:
        for var in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY"):
            monkeypatch.setenv(var, proxy.url)
        for var in ("NO_PROXY", "no_proxy"):
            monkeypatch.delenv(var, raising=False)
        r = fetch(site.url, allow_private=True, timeout=3)
    assert r.text == "direct" and sum(proxy.hits.values()) == 0


# --- failures that are the page's error -----------------------------------------------

def test_malformed_location_is_a_fetch_error():
    with hostile("bad_location") as s:
        with pytest.raises(FetchError) as e:
            fetch(s.url + "x", allow_private=True, timeout=3)
    assert e.value.kind == "bad_url" and not e.value.transient


def test_too_many_headers_is_not_transient():
    with hostile("many_headers", count=150) as s:
        with pytest.raises(FetchError) as e:
            fetch(s.url + "x", allow_private=True, timeout=3)
    assert e.value.kind == "bad_response" and not e.value.transient, e.value


@pytest.mark.parametrize("charset", ["rot13", "base64", "hex", "zlib", "utf-7", "UTF7", "punycode",
                                     "unicode_escape", "idna"])
def test_only_text_encodings_are_accepted(charset):
    with hostile("charset", charset=charset) as s:
        r = fetch(s.url + "x", allow_private=True, timeout=3)
    assert r.encoding == "utf-8" and "hello world" in r.text
    assert detect_encoding(b"+ADw-script+AD4-", f"text/html; charset={charset}") != "utf-7"
    assert decode(b"hello", charset) == "hello"


def test_utf7_is_never_decoded():
    payload = b"<html><head><meta charset='utf-7'></head><body>+ADw-script+AD4-alert(1)+ADw-/script+AD4-</body></html>"
    assert "<script>" not in decode(payload)
    assert detect_encoding(payload, "text/html; charset=utf-7") != "utf-7"


def test_urljoin_of_relative_redirect_is_checked_again():
    """A relative Location is joined to the canonical URL and parsed again by the guard."""
    with LoopbackServer({"/a": Reply(302, "", headers={"Location": "//user@127.0.0.1/"})}) as s:
        with pytest.raises(FetchError) as e:
            fetch(s.url + "a", allow_private=True, timeout=3)
    assert e.value.kind == "bad_url" and "userinfo" in e.value.message
    assert urllib.parse.urlsplit(e.value.url).hostname == "127.0.0.1" and s.hits["/a"] == 1
