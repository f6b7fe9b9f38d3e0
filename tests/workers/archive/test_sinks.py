"""Sinks: the worker's WARC files and captures, one WARC file assembled from parts, the
records stream (export, consumer groups), and the record's JSON Schema."""
from __future__ import annotations

import copy
import glob
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import jsonschema
import pytest
import redis
from warcio.archiveiterator import ArchiveIterator

from tasks.archive import warc
from tasks.fetch.http import fetch
from tasks.archive.records import post_record
from workers.archive import sinks
from workers.fetch.downloader import Downloader
from workers.settings import Settings
from workers.state import STREAM, State
from tests.httpd import LoopbackServer, Reply

ROOT = Path(__file__).resolve().parents[3]
SCHEMA = json.loads((ROOT / "workers" / "record.schema.json").read_text())


def page(n: int) -> str:
    return f"<html><head><title>Post {n}</title></head><body><article>Body of post {n}.</article></body></html>"


@pytest.fixture
def site():
    routes = {f"/post/{n}/": Reply(200, page(n)) for n in range(1, 5)}
    routes["/robots.txt"] = Reply(200, "User-agent: *\nDisallow:\n", content_type="text/plain")
    routes["/img.png"] = Reply(200, b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8, content_type="image/png")
    routes["/old/1/"] = Reply(301, "", headers={"Location": "/post/1/"})
    with LoopbackServer(routes) as s:
        s.table = routes  # live: a test may change a page
        yield s


def read_warc(path) -> list[dict]:
    out = []
    with open(path, "rb") as f:
        for rec in ArchiveIterator(f):
            h = rec.rec_headers
            out.append({"type": rec.rec_type, "id": h.get_header("WARC-Record-ID"),
                        "uri": h.get_header("WARC-Target-URI"), "refers": h.get_header("WARC-Refers-To"),
                        "http": rec.http_headers.get_statuscode() if rec.http_headers and rec.rec_type != "request" else None,
                        "payload": rec.content_stream().read()})
    return out


# ------------------------------------------------------------------ a worker's WARC files

def test_recorder_writes_every_fetch_and_notes_its_capture(state, site, tmp_path):
    s = Settings(warc_dir=str(tmp_path), allow_private=True)
    dl = Downloader(state, s, recorder=sinks.warc_recorder(s, state))
    fetched = [dl.get(site.url + p) for p in ("post/1/", "post/2/", "img.png", "old/1/")]
    files = glob.glob(str(tmp_path / "*.warc.gz"))
    assert len(files) == 1 and os.path.basename(files[0]).startswith(f"blogharvest-")
    recs = read_warc(files[0])
    assert recs[0]["type"] == "warcinfo" and b"robots: obey" in recs[0]["payload"]
    responses = [r for r in recs if r["type"] == "response"]
    # the redirect of old/1/ as served, then where it led: replay of the linked URL redirects too
    assert [r["uri"] for r in responses] == [site.url + p for p in
                                             ("robots.txt", "post/1/", "post/2/", "img.png", "old/1/", "post/1/")]
    assert responses[4]["payload"] == b"" and responses[4]["http"] == "301"
    assert sum(r["type"] == "request" for r in recs) == len(responses)
    for resp in fetched:
        assert warc.response_record_id(resp) in {r["id"] for r in responses}
    # the latest capture of a URL is what a metadata record will refer to (redirect: the final URL)
    assert sinks.captured(state, site.url + "post/1/") == warc.response_record_id(fetched[3])
    assert sinks.captured(state, site.url + "post/2/") == warc.response_record_id(fetched[1])
    assert sinks.captured(state, site.url + "post/3/") is None and sinks.captured(state, site.url + "old/1/") is None
    assert 0 < state.r.ttl(sinks.capture_key(site.url + "post/2/")) <= sinks.CAPTURE_TTL


def test_update_fetches_write_revisits_of_an_unchanged_payload(state, site, tmp_path):
    """revisit=True (update crawls): the same payload as the URL's last capture is a revisit
    record pointing at that capture; a changed payload is a new response."""
    s = Settings(warc_dir=str(tmp_path), allow_private=True)
    dl = Downloader(state, s, recorder=sinks.warc_recorder(s, state))
    url = site.url + "post/3/"
    first = dl.get(url)
    again = dl.get(url, revisit=True)
    plain = dl.get(url)  # a new crawl: a whole response again
    site.table["/post/3/"] = Reply(200, page(3) + "<!-- edited -->")
    changed = dl.get(url, revisit=True)
    recs = [r for r in read_warc(glob.glob(str(tmp_path / "*.warc.gz"))[0]) if r["uri"] == url]
    assert [r["type"] for r in recs] == ["request", "response", "request", "revisit", "request", "response",
                                         "request", "response"]
    assert recs[3]["refers"] == warc.response_record_id(first) and recs[3]["payload"] == b""
    assert recs[7]["payload"] == changed.content and changed.content != again.content
    assert sinks.captured(state, url) == warc.response_record_id(changed)
    dl.get(url, revisit=True)  # unchanged since the edit: a revisit of the edited capture
    last = read_warc(glob.glob(str(tmp_path / "*.warc.gz"))[0])[-1]
    assert last["type"] == "revisit" and last["refers"] == warc.response_record_id(changed)


def test_one_roller_per_process_and_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("BLOGHARVEST_WARC_MAX_BYTES", "12345")
    a = sinks.warc_roller(Settings(warc_dir=str(tmp_path / "w")))
    assert a is sinks.warc_roller(Settings(warc_dir=str(tmp_path / "w"))) and a.max_bytes == 12345
    assert sinks.warc_roller(Settings(warc_dir=str(tmp_path / "other"))) is not a
    assert sinks.warc_roller(Settings(warc_dir=None)) is None and sinks.warc_recorder(Settings(warc_dir=None)) is None
    assert f"-{os.getpid()}" in a.prefix


# ------------------------------------------------------------------ crawl --warc: one file from parts

def test_assemble_warc_from_worker_parts(state, site, tmp_path):
    parts = tmp_path / "parts"
    a = warc.WarcRoller(str(parts), prefix="blogharvest-a-1", info={"hostname": "a"})
    b = warc.WarcRoller(str(parts), prefix="blogharvest-b-2", info={"hostname": "b"})
    get = lambda p: fetch(site.url + p, allow_private=True)
    robots, p1, p2, img = get("robots.txt"), get("post/1/"), get("post/2/"), get("img.png")
    p3, p4 = get("post/3/"), get("post/4/")
    for r in (robots, p1, p2):
        a.write(warc.request_record(r), warc.response_record(r))
    rec1, rec2, rec3 = (post_record(r.url, site.url, {"title": f"Post {n}"}) for n, r in ((1, p1), (2, p2), (3, p3)))
    a.write(warc.metadata_record(p1.url, rec1, warc.response_record_id(p1)))
    for r in (p3, img):
        b.write(warc.request_record(r), warc.response_record(r))
    b.write(warc.resource_record(p3.url, page(3) + "<!-- rendered -->", refers_to_record_id=warc.response_record_id(p3)))
    b.write(warc.response_record(p4)[:-40])  # a worker killed in the middle of a record
    state.r.hset(sinks.capture_key(p2.url), "id", warc.response_record_id(p2))  # noted by the worker that fetched it
    # p3's capture was never noted in Redis: found in the parts by its URL

    out = tmp_path / "crawl.warc.gz"
    summary = sinks.assemble_warc(str(parts), str(out), [rec1, rec2, rec3], state, ["crawl-x", "crawl-y"])

    index = subprocess.run([sys.executable, "-m", "warcio.cli", "index", "-f", "warc-type,warc-target-uri",
                            str(out)], capture_output=True, text=True, check=True).stdout
    kinds = [json.loads(line)["warc-type"] for line in index.splitlines()]
    assert kinds[0] == "warcinfo" and kinds.count("warcinfo") == 1
    recs = read_warc(out)
    assert [r["type"] for r in recs] == kinds  # warcio read the whole file, damaged part and all
    assert b"isPartOf: crawl-x crawl-y" in recs[0]["payload"]
    responses = {r["uri"]: r["id"] for r in recs if r["type"] == "response"}
    assert set(responses) == {robots.url, p1.url, p2.url, p3.url, img.url}
    assert kinds.count("response") == 5 and kinds.count("request") == 5  # the cut-off record left out
    by_id = {r["id"]: r for r in recs}
    metadata = {json.loads(r["payload"])["url"]: r for r in recs if r["type"] == "metadata"}
    assert set(metadata) == {p1.url, p2.url, p3.url}
    for url, m in metadata.items():
        assert m["refers"] == responses[url] and by_id[m["refers"]]["uri"] == url
        assert m["uri"] == "urn:blogharvest:record:" + url  # never shadows the page in replay
    assert json.loads(metadata[p2.url]["payload"]) == rec2
    # every post's page, captured in the file, for a WACZ's pages.jsonl
    assert [(p["url"], p["title"]) for p in summary["pages"]] == [(p1.url, "Post 1"), (p2.url, "Post 2"),
                                                                   (p3.url, "Post 3")]
    assert summary["pages"][0]["ts"] == p1.fetched_at and summary["uncaptured"] == []
    resource = [r for r in recs if r["type"] == "resource"]
    assert len(resource) == 1 and resource[0]["refers"] == responses[p3.url]
    assert summary["responses"] == 5 and summary["added_metadata"] == 2 and summary["metadata"] == 3
    assert len(summary["damaged"]) == 1 and summary["records"] == len(recs)
    assert not parts.exists() and not (tmp_path / "crawl.warc.gz.part").exists()
    check = subprocess.run([sys.executable, "-m", "warcio.cli", "check", str(out)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr


def test_assemble_warc_without_parts_still_describes_the_records(state, tmp_path):
    recs = [post_record(f"http://blog.example/p/{n}", "http://blog.example/", {"title": str(n)}) for n in range(3)]
    out = tmp_path / "only-metadata.warc.gz"
    summary = sinks.assemble_warc(None, str(out), recs, state, ["c"])
    got = read_warc(out)
    assert [r["type"] for r in got] == ["warcinfo"] + ["metadata"] * 3
    assert [json.loads(r["payload"]) for r in got[1:]] == recs and summary["responses"] == 0


# ------------------------------------------------------------------ the stream

@pytest.fixture
def stream_state(redis_server):
    """A State on a database of its own: the stream holds only this test's records."""
    m = re.match(r"redis://([^:/]+):(\d+)", redis_server.url)
    client = redis.Redis(host=m.group(1), port=int(m.group(2)), db=7, decode_responses=True)
    client.flushdb()
    yield State(client)
    client.flushdb()
    client.close()


def save(st, crawl_id, n, title="t"):
    rec = post_record(f"http://blog.example/p/{n}", "http://blog.example/", {"title": f"{title} {n}"})
    st.save_record(crawl_id, rec, f"{title}{n}", 1000)
    return rec


def test_records_from_stream_latest_per_post_of_one_crawl(stream_state):
    st = stream_state
    first = [save(st, "aaaa-1", n) for n in range(7)]
    others = [save(st, "bbbb-2", n) for n in range(3)]
    changed = save(st, "aaaa-1", 2, title="edited")
    got = sinks.records_from_stream(st.r, "aaaa-1")
    assert [r["url"] for r in got] == [r["url"] for r in first]
    assert got[2] == changed and got[:2] + got[3:] == first[:2] + first[3:]
    assert [r for _, _, r in sinks.stream_entries(st.r, "bbbb-2", batch=2)] == others
    assert len(list(sinks.stream_entries(st.r, batch=3))) == 11


def doc_consumer() -> dict:
    """The consumer-group example of docs/records.md, as a reader would copy it."""
    text = (ROOT / "docs" / "records.md").read_text()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    namespace = {"__name__": "records_md"}
    exec(compile(code, "docs/records.md", "exec"), namespace)
    return namespace


def test_two_consumers_of_one_group_read_every_record_once(stream_state):
    st, r = stream_state, stream_state.r
    consume = doc_consumer()["consume"]
    assert doc_consumer()["STREAM"] == STREAM
    early = [save(st, "cccc-1", n) for n in range(10)]
    # a consumer that reads three records and dies without acknowledging them
    r.xgroup_create(STREAM, "indexer", id="0")
    dead = r.xreadgroup("indexer", "dead", {STREAM: ">"}, count=3)
    assert len(dead[0][1]) == 3

    handled: dict[str, list[str]] = {"a": [], "b": []}
    done = threading.Event()

    def run(name):
        consume(redis.Redis(connection_pool=r.connection_pool), "indexer", name,
                lambda crawl, record: handled[name].append(record["url"]), stop=done.is_set,
                count=2, block_ms=100, claim_idle_ms=2000)

    threads = [threading.Thread(target=run, args=(n,)) for n in handled]
    for t in threads:
        t.start()
    late = [save(st, "cccc-1", n) for n in range(10, 40)]  # while they run
    want = {rec["url"] for rec in early + late}
    deadline = time.monotonic() + 20
    while len(handled["a"]) + len(handled["b"]) < len(want) and time.monotonic() < deadline:
        time.sleep(0.05)  # polling the condition, with a deadline
    done.set()
    for t in threads:
        t.join(10)
    seen = handled["a"] + handled["b"]
    assert sorted(seen) == sorted(want)  # every record, exactly once across the group
    assert handled["a"] and handled["b"]  # both took part
    assert r.xpending(STREAM, "indexer")["pending"] == 0


# ------------------------------------------------------------------ the record's JSON Schema

def test_records_validate_against_the_schema(stream_state):
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    full = post_record("https://blog.example/2014/03/a-post/", "https://blog.example/",
                       {"title": "A post", "content_text": "Words", "content_html": "<p>Words</p>",
                        "authors": ["Ann", ""], "published": "2014-03-09T10:00:00+00:00"},
                       rules={"title": "//h1", "content": "//*[@class='entry']", "author": None, "date": None},
                       comments=[{"author": "Bob", "published": "2014-03-10", "content_text": "Nice"}],
                       media=[{"url": "https://blog.example/a.png", "sha256": "ab" * 32,
                               "content_type": "image/png", "bytes": 10, "path": f"ab/ab/{'ab' * 32}"}])
    empty = post_record("http://blog.example/p/1", "http://blog.example/", {})
    dated = post_record("http://blog.example/p/2", "http://blog.example/", {"published": "2014-03-09"})
    for rec in (full, empty, dated, save(stream_state, "dddd-1", 1)):
        jsonschema.validate(rec, SCHEMA)
    streamed = [r for _, _, r in sinks.stream_entries(stream_state.r, "dddd-1")]
    jsonschema.validate(streamed[0], SCHEMA)
    jsonschema.validate(dict(full, kind="page", kind_note="listed by none of the blog's listings"), SCHEMA)

    def broken(change):
        rec = copy.deepcopy(full)
        change(rec)
        return rec

    for bad in (broken(lambda r: r.pop("media")), broken(lambda r: r.update(kind="comment")),
                broken(lambda r: r["media"][0].update(sha256="xyz")),
                broken(lambda r: r["media"][0].update(path="/etc/passwd")),
                broken(lambda r: r.update(published="last Tuesday")),
                broken(lambda r: r.update(authors="Ann")), broken(lambda r: r.update(id="short"))):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, SCHEMA)


def test_write_jsonl_is_one_record_a_line(tmp_path):
    recs = [post_record(f"http://blog.example/p/{n}", "http://blog.example/", {"title": f"été {n}"}) for n in range(3)]
    path = tmp_path / "out.jsonl"
    assert sinks.write_jsonl(recs, path) == 3
    assert [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] == recs
    assert not (tmp_path / "out.jsonl.part").exists()


def test_assemble_from_a_shared_directory_keeps_the_crawls_window(state, site, tmp_path):
    """A cluster's shared BLOGHARVEST_WARC_DIR holds every crawl's records: a window of time
    picks this crawl's, and the workers' files stay where they are."""
    from datetime import datetime

    shared = tmp_path / "shared"
    roller = warc.WarcRoller(str(shared), prefix="worker")
    get = lambda p: fetch(site.url + p, allow_private=True)
    before, p1, p2 = get("post/1/"), get("post/2/"), get("post/3/")
    for r in (before, p1, p2):
        roller.write(warc.request_record(r), warc.response_record(r))
    at = lambda r: datetime.fromisoformat(r.fetched_at.replace("Z", "+00:00")).timestamp()
    window = (at(p1) - 0.0001, at(p2) + 0.0001)
    assert at(before) < window[0]
    out = tmp_path / "crawl.warc.gz"
    rec = post_record(p1.url, site.url, {"title": "Post 1"})
    summary = sinks.assemble_warc(str(shared), str(out), [rec], state, ["c"], remove_parts=False, window=window)
    uris = [r["uri"] for r in read_warc(out) if r["type"] == "response"]
    assert uris == [p1.url, p2.url] and summary["pages"][0]["url"] == p1.url
    assert os.listdir(shared) == [os.path.basename(roller.path)]
