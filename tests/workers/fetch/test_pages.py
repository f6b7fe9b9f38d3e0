"""The crawl's page cache on a real Redis and loopback HTTP (workers/fetch/pages.py): a page the
blog answered 404 or 410 is asked once a crawl, whichever stages read it after."""
from __future__ import annotations

import pytest

from tasks.fetch.errors import FetchError
from tests.httpd import LoopbackServer, Reply
from workers.fetch.pages import cached, page_at


def test_a_page_gone_is_asked_once_a_crawl(rt, monkeypatch):
    monkeypatch.setenv("BLOGHARVEST_ALLOW_PRIVATE", "1")
    routes = {"/gone/": Reply(404, "not here"), "/moved-away/": Reply(410, "gone"), "/private/": Reply(403, "forbidden"),
              "/post/": Reply(200, "<html><body><p>A post.</p></body></html>")}
    with LoopbackServer(routes) as s:
        cid = rt.state.create_crawl(s.url + "/", None, {})
        for path, status in (("/gone/", 404), ("/moved-away/", 410)):
            for _ in range(3):  # training, the traversal, the comment sample ...
                with pytest.raises(FetchError) as e:
                    page_at(rt, cid, s.url + path)
                assert e.value.status == status and not e.value.transient
            assert s.hits[path] == 1
            assert cached(rt, cid, s.url + path) is None  # (no page: the stages that only look see none)
        for _ in range(2):  # another refusal is no page gone: asked again
            with pytest.raises(FetchError):
                page_at(rt, cid, s.url + "/private/")
        assert s.hits["/private/"] == 2
        assert page_at(rt, cid, s.url + "/post/") is not None and page_at(rt, cid, s.url + "/post/") is not None
        assert s.hits["/post/"] == 1
        other = rt.state.create_crawl(s.url + "/", None, {})  # another crawl asks again
        with pytest.raises(FetchError):
            page_at(rt, other, s.url + "/gone/")
        assert s.hits["/gone/"] == 2
