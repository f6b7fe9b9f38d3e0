"""workers.fetch.validators on the test Redis: what a page was served with is kept for the
next update crawl's conditional request, and dropped when the page failed after its fetch."""
from __future__ import annotations

from tasks.fetch.http import Response
from workers.fetch import validators
from workers.traverse import page_failed


def _served(url: str, **headers) -> Response:
    return Response(url=url, status=200, reason="OK", headers=list(headers.items()), content=b"<html></html>",
                    content_type="text/html", encoding="utf-8")


def test_validators_are_kept_and_sent_back(rt):
    cid = rt.state.create_crawl("http://blog.example/", None, {})
    url = "http://blog.example/2020/01/01/post/"
    validators.keep(rt.state.r, cid, url, _served(url, ETag='"abc"', **{"Last-Modified": "Wed, 01 Jan 2020 10:00:00 GMT"}))
    assert validators.request_headers(rt.state.r, cid, url) == {
        "If-None-Match": '"abc"', "If-Modified-Since": "Wed, 01 Jan 2020 10:00:00 GMT"}
    validators.keep(rt.state.r, cid, url + "x", _served(url + "x", ETag="a" * (validators.MAX_ETAG + 1)))
    assert validators.request_headers(rt.state.r, cid, url + "x") is None  # too long an ETag: not kept


def test_a_page_that_failed_after_its_fetch_is_read_whole_next_time(rt):
    """Its validators kept, an update crawl would take a 304 for "read already" and never read
    the page again, though no record came of it."""
    cid = rt.state.create_crawl("http://blog.example/", None, {})
    url = "http://blog.example/2020/01/02/other/"
    validators.keep(rt.state.r, cid, url, _served(url, ETag='"def"'))
    assert validators.request_headers(rt.state.r, cid, url)
    page_failed(rt, cid, url, "timeout", "page processing exceeded its time limit")
    assert validators.request_headers(rt.state.r, cid, url) is None
    assert any(e["url"] == url and e["kind"] == "timeout" for e in rt.state.errors(cid))
