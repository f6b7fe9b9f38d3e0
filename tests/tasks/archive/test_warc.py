"""WARC records of real loopback fetches, read back with warcio and its command line."""
from __future__ import annotations

import base64
import gzip
import hashlib
import json
import os
import subprocess
import sys
import zlib

import pytest
from warcio.archiveiterator import ArchiveIterator

from tasks.archive import warc
from tasks.fetch.http import fetch
from tests.httpd import LoopbackServer, Reply

PAGE = "<html><head><title>Un été</title></head><body><article>Déjà vu, café crème.</article></body></html>"


@pytest.fixture(scope="module")
def fetched():
    routes = {"/post": Reply(200, PAGE, headers={"Set-Cookie": "a=1", "X-Extra": "yes"}),
              "/gz": Reply(200, gzip.compress(PAGE.encode() * 20), headers={"Content-Encoding": "gzip"}),
              "/old": Reply(301, "", headers={"Location": "/post"}),
              "/img.png": Reply(200, b"\x89PNG\r\n\x1a\n" + bytes(range(256)), content_type="image/png")}
    with LoopbackServer(routes) as s:
        return [fetch(s.url + p, allow_private=True) for p in ("post", "gz", "old", "img.png")]


def sha1_b32(data: bytes) -> str:
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode()


def one_gzip_member(data: bytes) -> bool:
    d = zlib.decompressobj(zlib.MAX_WBITS | 16)
    d.decompress(data)
    return d.eof and d.unused_data == b""


def read_all(path: str) -> list:
    out = []
    with open(path, "rb") as f:
        for rec in ArchiveIterator(f):
            out.append({"type": rec.rec_type, "headers": dict(rec.rec_headers.headers),
                        "version": rec.rec_headers.protocol, "http": rec.http_headers,
                        "payload": rec.content_stream().read()})
    return out


def test_each_builder_is_one_gzip_member(fetched):
    r = fetched[0]
    for data in (warc.warcinfo_record({"operator": "test"}), warc.request_record(r), warc.response_record(r),
                 warc.resource_record(r.url, PAGE), warc.metadata_record(r.url, {"a": 1}, warc.response_record_id(r))):
        assert one_gzip_member(data)


def test_records_are_deterministic_and_accept_dicts(fetched):
    r = fetched[1]
    assert warc.response_record(r) == warc.response_record(r.to_dict())
    assert warc.request_record(r) == warc.request_record(json.loads(json.dumps(r.to_dict())))
    assert warc.record_ids(r)[0] != warc.record_ids(r)[1]
    assert warc.record_ids(fetched[0]) != warc.record_ids(fetched[2])  # same URL fetched twice


def test_round_trip_through_warcio(tmp_path, fetched):
    roller = warc.WarcRoller(str(tmp_path), prefix="crawl", info={"operator": "tests", "isPartOf": "crawl-1"})
    post_records = {}
    for r in fetched:
        roller.write(warc.request_record(r), warc.response_record(r))
        meta = {"kind": "post", "url": r.url, "title": "Un été"}
        roller.write(warc.metadata_record(r.url, meta, warc.response_record_id(r)))
        post_records[warc.response_record_id(r)] = meta
    roller.write(warc.resource_record(fetched[0].url, PAGE + "<!-- rendered -->"))
    assert len(roller.paths) == 1
    path = roller.path
    assert os.path.basename(path).startswith("crawl-") and path.endswith(".warc.gz")

    recs = read_all(path)
    assert [x["type"] for x in recs] == ["warcinfo"] + ["request", "response", "metadata"] * 4 + ["resource"]
    assert all(x["version"] == "WARC/1.1" for x in recs)
    info = recs[0]["payload"].decode()
    assert "operator: tests" in info and "isPartOf: crawl-1" in info
    assert recs[0]["headers"]["WARC-Filename"] == os.path.basename(path)

    ids = [x["headers"]["WARC-Record-ID"] for x in recs]
    assert len(set(ids)) == len(ids)
    by_id = {x["headers"]["WARC-Record-ID"]: x for x in recs}
    for i, r in enumerate(fetched):
        req, resp, meta = recs[1 + 3 * i: 4 + 3 * i]
        # request <-> response, both ways
        assert req["headers"]["WARC-Concurrent-To"] == resp["headers"]["WARC-Record-ID"]
        assert resp["headers"]["WARC-Concurrent-To"] == req["headers"]["WARC-Record-ID"]
        assert req["headers"]["WARC-Target-URI"] == resp["headers"]["WARC-Target-URI"] == r.url
        assert resp["headers"]["WARC-Date"] == r.fetched_at
        # the archived response is the fetched one, and self-consistent
        assert resp["payload"] == r.content
        assert resp["headers"]["WARC-Payload-Digest"] == sha1_b32(r.content)
        http = resp["http"]
        assert http.protocol == "HTTP/1.1" and http.get_statuscode() == "200"
        assert http.get_header("Content-Length") == str(len(r.content))
        assert http.get_header("Content-Encoding") is None and http.get_header("Transfer-Encoding") is None
        assert http.get_header("Content-Type") == r.header("Content-Type")
        assert req["http"].protocol == "GET" and req["http"].get_header("Host") == r.request_headers[0][1]
        # metadata points at its response and carries the post record, on a URN that
        # replay never looks up (on the page's URL it shadowed the response in pywb)
        assert meta["headers"]["WARC-Refers-To"] == resp["headers"]["WARC-Record-ID"]
        assert meta["headers"]["WARC-Concurrent-To"] == resp["headers"]["WARC-Record-ID"]
        assert meta["headers"]["WARC-Target-URI"] == "urn:blogharvest:record:" + r.url
        assert meta["headers"]["Content-Type"] == "application/json"
        assert json.loads(meta["payload"]) == post_records[meta["headers"]["WARC-Refers-To"]]
        assert by_id[meta["headers"]["WARC-Refers-To"]]["type"] == "response"
    assert recs[2]["http"].get_header("X-Extra") == "yes" and recs[2]["http"].get_header("Set-Cookie") == "a=1"
    assert fetched[2].redirects and recs[7]["headers"]["WARC-Target-URI"].endswith("/post")
    assert recs[-1]["payload"].endswith(b"<!-- rendered -->")
    assert recs[-1]["headers"]["WARC-Target-URI"] == "urn:blogharvest:dom:" + fetched[0].url
    assert recs[-1]["headers"]["Content-Type"].startswith("text/html")


def test_warcio_command_line_index_and_check(tmp_path, fetched):
    roller = warc.WarcRoller(str(tmp_path))
    for r in fetched:
        roller.write(warc.request_record(r), warc.response_record(r))
    roller.write(warc.metadata_record(fetched[0].url, "{}", warc.response_record_id(fetched[0])))
    index = subprocess.run([sys.executable, "-m", "warcio.cli", "index", roller.path],
                           capture_output=True, text=True, check=True).stdout
    lines = [json.loads(line) for line in index.splitlines()]
    assert [x["warc-type"] for x in lines] == ["warcinfo"] + ["request", "response"] * 4 + ["metadata"]
    offsets = [int(x["offset"]) for x in lines]
    assert offsets == sorted(offsets) and offsets[0] == 0
    check = subprocess.run([sys.executable, "-m", "warcio.cli", "check", "-v", roller.path],
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.count("digest pass") == len(lines) and "fail" not in check.stdout


def test_roller_rolls_past_max_bytes(tmp_path, fetched):
    pair = warc.request_record(fetched[0]) + warc.response_record(fetched[0])
    roller = warc.WarcRoller(str(tmp_path), prefix="roll", max_bytes=len(pair) * 2 + 600)
    for r in fetched * 2:
        roller.write(warc.request_record(r), warc.response_record(r))
    assert len(roller.paths) >= 3 and len(set(roller.paths)) == len(roller.paths)
    total = []
    for path in roller.paths:
        recs = read_all(path)
        assert recs[0]["type"] == "warcinfo" and recs[0]["headers"]["WARC-Filename"] == os.path.basename(path)
        assert [x["type"] for x in recs[1:]] == ["request", "response"] * ((len(recs) - 1) // 2)  # pairs not split
        assert len(recs) > 1
        total += [x["headers"]["WARC-Target-URI"] for x in recs if x["type"] == "response"]
        size = os.path.getsize(path)
        assert size <= roller.max_bytes or len(recs) == 3  # only a lone oversized pair may exceed
    assert total == [r.url for r in fetched * 2]


def test_two_rollers_in_one_directory_never_share_a_file(tmp_path, fetched):
    a = warc.WarcRoller(str(tmp_path), prefix="same")
    b = warc.WarcRoller(str(tmp_path), prefix="same")
    a.write(warc.response_record(fetched[0]))
    b.write(warc.response_record(fetched[1]))
    assert a.path != b.path
    assert [x["type"] for x in read_all(a.path)] == [x["type"] for x in read_all(b.path)] == ["warcinfo", "response"]


def test_revisit_record_points_at_the_first_capture(tmp_path, fetched):
    first, again = fetched[0], fetched[2]  # /post fetched twice (the second through a redirect)
    assert first.content == again.content and first.fetched_at != again.fetched_at
    original = {"id": warc.response_record_id(first), "target": first.url, "date": first.fetched_at}
    roller = warc.WarcRoller(str(tmp_path))
    roller.write(warc.request_record(first), warc.response_record(first))
    roller.write(warc.revisit_request_record(again), warc.revisit_record(again, original))
    recs = read_all(roller.path)
    assert [x["type"] for x in recs] == ["warcinfo", "request", "response", "request", "revisit"]
    req, rev = recs[3]["headers"], recs[4]["headers"]
    assert rev["WARC-Record-ID"] == warc.revisit_record_id(again) != warc.response_record_id(again)
    assert rev["WARC-Refers-To"] == recs[2]["headers"]["WARC-Record-ID"]
    assert rev["WARC-Refers-To-Target-URI"] == first.url and rev["WARC-Refers-To-Date"] == first.fetched_at
    assert rev["WARC-Profile"].endswith("/revisit/identical-payload-digest")
    assert rev["WARC-Payload-Digest"] == recs[2]["headers"]["WARC-Payload-Digest"] == warc.payload_digest(again)
    assert req["WARC-Concurrent-To"] == rev["WARC-Record-ID"] and rev["WARC-Concurrent-To"] == req["WARC-Record-ID"]
    assert recs[4]["payload"] == b"" and recs[4]["http"].get_statuscode() == "200"
    check = subprocess.run([sys.executable, "-m", "warcio.cli", "check", roller.path], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr


def test_browser_resources_become_request_response_pairs(tmp_path):
    """What a renderer hands over per page (url, status, headers, body) is archived as fetched."""
    items = [{"url": "http://blog.example/api/comments?post=7", "status": 200,
              "headers": [["Content-Type", "application/json"], ["Content-Encoding", "gzip"]],
              "body": '{"comments": [{"author": "Zoë"}]}'},
             {"url": "http://blog.example/app.js", "status": 200, "headers": {"Content-Type": "text/javascript"},
              "body": b"render()", "method": "GET", "fetched_at": "2026-01-02T03:04:05.000000Z"},
             {"url": "http://blog.example/missing.css", "status": 404, "reason": "Not Found",
              "headers": [], "body_b64": base64.b64encode(b"nope").decode()}]
    roller = warc.WarcRoller(str(tmp_path))
    roller.write(warc.resources_records(items, date="2026-01-01T00:00:00.000000Z"))
    recs = read_all(roller.path)
    assert [x["type"] for x in recs] == ["warcinfo"] + ["request", "response"] * 3
    responses = recs[2::2]
    assert [x["headers"]["WARC-Target-URI"] for x in responses] == [i["url"] for i in items]
    assert json.loads(responses[0]["payload"]) == {"comments": [{"author": "Zoë"}]}
    assert responses[0]["http"].get_header("Content-Encoding") is None  # the body given is decoded
    assert responses[1]["payload"] == b"render()" and responses[1]["headers"]["WARC-Date"] == items[1]["fetched_at"]
    assert responses[0]["headers"]["WARC-Date"] == "2026-01-01T00:00:00.000000Z"
    assert responses[2]["http"].get_statuscode() == "404" and responses[2]["payload"] == b"nope"
    assert recs[1]["http"].get_header("Host") == "blog.example"
    check = subprocess.run([sys.executable, "-m", "warcio.cli", "check", roller.path], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
