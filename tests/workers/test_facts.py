"""A process's copies of a crawl's seldom-written facts (workers/facts.py, issue 33), on a real
redis-server: what a page reads comes from the copy while its token is Redis's, and a write by
another process (its own State, its own pool) is seen on the next page."""
from __future__ import annotations

from tests.workers.own_state import calls_delta as _delta, command_calls as _calls, own_state as _state, running_crawl as _crawl
from workers import state as state_module
from workers.state import Keys


def test_a_pages_facts_come_from_the_copy_and_another_processs_writes_are_seen(quiet_redis, monkeypatch):
    monkeypatch.setattr(state_module, "BLOG_TTL", 1e9)  # the blog hash's own reuse is not what is counted
    reader, writer = _state(quiet_redis), _state(quiet_redis)
    o = "http://facts-test-1.example"
    cid = _crawl(writer, o + "/")
    writer.save_blog(cid, home=o + "/")
    writer.save_entries(cid, [{"url": o + "/p1", "title": "one"}])
    writer.mark_sources(cid, [o + "/p1"], "feed")
    writer.add_sitemaps(cid, {o + "/sitemap.xml": {"guessed": False, "next": None}})
    writer.cache_page(cid, o + "/p1", {"url": o + "/p1", "html": "<p>1</p>"})

    first = reader.page_context(cid, o + "/p1")
    assert first["entry"]["title"] == "one" and first["source"] == "feed" and first["page"]["html"] == "<p>1</p>"
    assert reader.page_context(cid, o + "/sitemap.xml")["sitemap"] == {"guessed": False, "next": None}

    before = _calls(reader.r)
    other = reader.page_context(cid, o + "/p2")
    calls = _delta(before, _calls(reader.r))
    assert other["entry"] is None and other["source"] == "links" and other["sitemap"] is None
    assert other["page"] is None and other["cut"] == {}
    # done, crawl (state and tokens), attempts, what a deferral fetched: none of the facts
    assert calls["HMGET"] == 1 and calls["HGETALL"] == 1, calls
    assert not {"HGET", "HKEYS", "MULTI", "EXEC"} & set(calls), calls

    writer.mark_sources(cid, [o + "/p2"], "sitemap")
    writer.save_entries(cid, [{"url": o + "/p2", "title": "two"}])
    writer.cache_page(cid, o + "/p2", {"url": o + "/p2", "html": "<p>2</p>"})
    again = reader.page_context(cid, o + "/p2")
    assert again["source"] == "sitemap" and again["entry"]["title"] == "two" and again["page"]["html"] == "<p>2</p>"


def test_a_part_of_the_site_cut_by_a_page_is_seen_by_every_process_on_its_next_page(quiet_redis):
    reader, writer = _state(quiet_redis), _state(quiet_redis)
    o = "http://facts-test-2.example"
    cid = _crawl(writer, o + "/")
    writer.save_blog(cid, home=o + "/")
    writer.enqueue(cid, {o + "/tag/a/": 1.0})
    assert reader.page_context(cid, o + "/x")["cut"] == {}
    page, = writer.dispatch(cid, 1, 100)
    got = writer.end_page(cid, page, estimates={o + "/tag/a/page/2/": 1.0},
                          trap={"family": "tag", "limit": 1, "kin": [1], "post": []})
    assert got["cut"] == 1
    assert reader.page_context(cid, o + "/y")["cut"] == {"tag": "1"}


def test_a_crawl_without_tokens_is_read_per_page_and_a_late_write_makes_no_crawl_hash(quiet_redis):
    """A crawl made before the tokens (none in its hash) is read per page: a write that does not
    renew a token is seen. A write for a crawl whose hash is gone (expired) does not make one."""
    st = _state(quiet_redis)
    o = "http://facts-test-3.example"
    cid = _crawl(st, o + "/")
    st.save_blog(cid, home=o + "/")
    k = Keys(cid)
    st.r.hdel(k.crawl, *[f"facts:{kind}" for kind in ("cut", "sitemaps", "sources", "entries", "pages")])
    assert st.page_context(cid, o + "/p")["source"] == "links"
    st.r.hset(k.sources, o + "/p", "feed")  # as older code wrote it: no token
    st.r.hset(k.cut, "tag", "3")
    got = st.page_context(cid, o + "/p")
    assert got["source"] == "feed" and got["cut"] == {"tag": "3"}

    gone = "abcdef123456-nocrawlhash"
    st.mark_sources(gone, [o + "/q"], "sitemap")
    st.save_entries(gone, [{"url": o + "/q"}])
    assert not st.r.exists(Keys(gone).crawl)


def test_a_page_a_chain_kept_reads_no_deferred_memory_a_message_does(quiet_redis, monkeypatch):
    """A deferred page comes back as a message of its own (the due set), never as a page a
    chain kept from a page's end: only the former asks for what its deferred run fetched."""
    monkeypatch.setattr(state_module, "BLOG_TTL", 1e9)  # (the blog hash's reuse is not what is counted)
    st = _state(quiet_redis)
    o = "http://facts-test-4.example"
    cid = _crawl(st, o + "/")
    st.save_blog(cid, home=o + "/")
    st.r.hset(Keys(cid).fetched(o + "/p"), "GET " + o + "/p", "{}")
    assert st.page_context(cid, o + "/p")["fetched"] == {"GET " + o + "/p": "{}"}
    before = _calls(st.r)
    assert st.page_context(cid, o + "/q", kept=True)["fetched"] == {}
    assert "HGETALL" not in _delta(before, _calls(st.r))
