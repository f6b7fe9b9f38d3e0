"""Media of posts (downloaded once per URL across workers) and WARC metadata/resource records,
with real Runtimes on the test Redis and a loopback site."""
from __future__ import annotations

import glob
import hashlib
import json
import os
import threading
from pathlib import Path

import jsonschema
import pytest
from warcio.archiveiterator import ArchiveIterator

import workers.runtime
from tasks.archive import warc
from tasks.archive.records import post_record
from tasks.fetch.page import Page
from workers.archive import post as archive
from workers.runtime import Runtime, runtime
from workers.settings import Settings
from tests.httpd import LoopbackServer, Reply

SCHEMA = json.loads((Path(archive.__file__).parents[1] / "record.schema.json").read_text())
MEDIA_ITEM = {**SCHEMA["properties"]["media"]["items"], "$schema": SCHEMA["$schema"]}


def blob(name: str, n: int) -> bytes:
    """Deterministic bytes that differ by name (a different file per URL)."""
    out, seed = b"", name.encode()
    while len(out) < n:
        seed = hashlib.sha256(seed).digest()
        out += seed
    return out[:n]


FILES = {
    "/img/a.png": (blob("a", 5000), "image/png"),
    "/img/a-1024.png": (blob("a1024", 9000), "image/png"),
    "/img/b.jpg": (blob("b", 7000), "image/jpeg"),
    "/audio/ep.mp3": (blob("ep", 20000), "audio/mpeg"),
    "/big.png": (blob("big", 300_000), "image/png"),
    "/octet/clip.mp4": (blob("clip", 4000), "application/octet-stream"),
    "/private/secret.png": (blob("secret", 100), "image/png"),
}
CONTENT = """<div class="entry">
  <p>Words.</p>
  <img src="/img/a.png" srcset="/img/a.png 300w, /img/a-1024.png 1024w">
  <figure><img src="../../img/b.jpg"></figure>
  <img src="/page.html"><img src="/private/secret.png"><img src="/missing.png">
</div>"""


@pytest.fixture
def site():
    def route(req):
        path = req.split.path
        if path in FILES:
            data, ctype = FILES[path]
            return Reply(200, data, content_type=ctype)
        if path == "/slow.png":
            return Reply(200, blob("slow", 6000), content_type="image/png", delay=0.4)
        if path == "/robots.txt":
            return Reply(200, "User-agent: *\nDisallow: /private/\n", content_type="text/plain")
        if path == "/page.html":
            return Reply(200, "<html><body>not a picture</body></html>")
        if path.startswith("/post/"):
            return Reply(200, f"<html><head><title>Post</title></head><body>{CONTENT}</body></html>")
        return Reply(404, "not found")

    with LoopbackServer(route) as s:
        yield s


def make_runtime(redis_server, **kw) -> Runtime:
    return Runtime(Settings(redis_url=redis_server.url, allow_private=True, **kw))


def crawl_of(rt, site) -> str:
    return rt.state.create_crawl(site.url, None, {})


def errors_by_url(rt, cid) -> dict:
    return {e["url"]: e["kind"] for e in rt.state.errors(cid)}


def test_media_for_through_the_worker_runtime(redis_server, site, tmp_path, monkeypatch):
    media_dir = tmp_path / "media"
    monkeypatch.setenv("BLOGHARVEST_MEDIA_DIR", str(media_dir))
    monkeypatch.setattr(workers.runtime, "_runtime", None)  # the worker's runtime, made from this environment
    rt = runtime()
    assert rt.settings.media_dir == str(media_dir) and rt.settings.redis_url == redis_server.url
    cid = crawl_of(rt, site)
    post = site.url + "post/1/"
    entry = {"url": post, "enclosures": [{"url": site.url + "audio/ep.mp3", "type": "audio/mpeg"}]}

    items = archive.media_for(rt, cid, post, {"content_html": CONTENT}, entry)

    assert [i["url"] for i in items] == [site.url + "img/a.png", site.url + "img/a-1024.png",
                                         site.url + "img/b.jpg", site.url + "audio/ep.mp3"]
    for item in items:
        jsonschema.validate(item, MEDIA_ITEM)
        data, ctype = FILES["/" + item["url"].split("/", 3)[3]]
        stored = (media_dir / item["path"]).read_bytes()
        assert stored == data and hashlib.sha256(stored).hexdigest() == item["sha256"]
        assert item["path"] == f"{item['sha256'][:2]}/{item['sha256'][2:4]}/{item['sha256']}"
        assert item["bytes"] == len(data) and item["content_type"] == ctype
    errors = errors_by_url(rt, cid)
    assert errors == {site.url + "page.html": "media_type", site.url + "private/secret.png": "media_robots",
                      site.url + "missing.png": "media_http_status"}
    assert site.hits["/private/secret.png"] == 0

    # another post with the same media: nothing fetched again, failures included
    before = dict(site.hits)
    again = archive.media_for(rt, cid, site.url + "post/2/", {"content_html": CONTENT}, entry)
    assert again == items
    assert dict(site.hits) == before
    record = post_record(post, site.url, {"title": "t", "content_html": CONTENT}, media=items)
    jsonschema.validate(record, SCHEMA)


def test_no_media_dir_means_no_download(redis_server, site):
    rt = make_runtime(redis_server, media_dir=None)
    cid = crawl_of(rt, site)
    assert archive.media_for(rt, cid, site.url + "post/1/", {"content_html": CONTENT},
                             {"enclosures": [{"url": site.url + "audio/ep.mp3"}]}) == []
    assert sum(site.hits.values()) == 0


def test_two_workers_download_one_url_once(redis_server, site, tmp_path):
    media_dir = str(tmp_path / "shared-media")
    a, b = make_runtime(redis_server, media_dir=media_dir), make_runtime(redis_server, media_dir=media_dir)
    assert a.downloader is not b.downloader and a.state.r is not b.state.r
    cid = crawl_of(a, site)
    content = '<p><img src="/slow.png"></p>'
    start = threading.Barrier(2)
    got = {}

    def worker(name, rt):
        start.wait()
        got[name] = archive.media_for(rt, cid, site.url + f"post/{name}/", {"content_html": content}, None)

    threads = [threading.Thread(target=worker, args=(n, rt)) for n, rt in (("a", a), ("b", b))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert site.hits["/slow.png"] == 1
    assert got["a"] == got["b"] and len(got["a"]) == 1
    assert (Path(media_dir) / got["a"][0]["path"]).read_bytes() == blob("slow", 6000)


def test_size_cap_and_type_allow_list(redis_server, site, tmp_path, monkeypatch):
    monkeypatch.setenv("BLOGHARVEST_MEDIA_MAX_BYTES", "100000")
    monkeypatch.setenv("BLOGHARVEST_MEDIA_TYPES", "image/png, video/*")
    rt = make_runtime(redis_server, media_dir=str(tmp_path))
    cid = crawl_of(rt, site)
    content = '<img src="/big.png"><img src="/img/b.jpg"><img src="/img/a.png"><video src="/octet/clip.mp4"></video>'
    items = archive.media_for(rt, cid, site.url + "post/1/", {"content_html": content}, None)
    assert [(i["url"].rsplit("/", 1)[1], i["content_type"]) for i in items] == [
        ("a.png", "image/png"), ("clip.mp4", "video/mp4")]  # octet-stream judged by its name
    errors = errors_by_url(rt, cid)
    assert errors[site.url + "big.png"] == "media_too_large"
    assert errors[site.url + "img/b.jpg"] == "media_type"
    assert not any(p.stat().st_size > 100000 for p in tmp_path.rglob("*") if p.is_file())


def test_a_lost_file_is_fetched_again(redis_server, site, tmp_path):
    rt = make_runtime(redis_server, media_dir=str(tmp_path))
    cid = crawl_of(rt, site)
    content = '<img src="/img/a.png">'
    first = archive.media_for(rt, cid, site.url + "post/1/", {"content_html": content}, None)
    (tmp_path / first[0]["path"]).unlink()
    second = archive.media_for(rt, cid, site.url + "post/1/", {"content_html": content}, None)
    assert second == first and site.hits["/img/a.png"] == 2
    assert (tmp_path / first[0]["path"]).read_bytes() == FILES["/img/a.png"][0]


def read_dir(d) -> list:
    out = []
    for path in sorted(glob.glob(os.path.join(d, "*.warc.gz"))):
        with open(path, "rb") as f:
            for rec in ArchiveIterator(f):
                out.append({"type": rec.rec_type, "id": rec.rec_headers.get_header("WARC-Record-ID"),
                            "uri": rec.rec_headers.get_header("WARC-Target-URI"),
                            "refers": rec.rec_headers.get_header("WARC-Refers-To"),
                            "payload": rec.content_stream().read()})
    return out


def test_metadata_record_refers_to_the_capture_any_worker_made(redis_server, site, tmp_path):
    warc_dir = str(tmp_path / "warc")
    fetcher = make_runtime(redis_server, warc_dir=warc_dir, media_dir=str(tmp_path / "media"))
    other = make_runtime(redis_server, warc_dir=warc_dir)  # the worker that extracts the post
    cid = crawl_of(fetcher, site)
    post = site.url + "post/1/"
    resp = fetcher.downloader.get(post)
    media = archive.media_for(fetcher, cid, post, {"content_html": CONTENT}, None)
    record = post_record(post, site.url, {"title": "Post", "content_html": CONTENT}, media=media)
    page = Page.from_response(resp, post)

    archive.on_record(other, cid, record, page)
    archive.on_rendered(other, cid, post, Page.rendered(post, resp.url, resp.text + "<!-- rendered -->"))

    recs = read_dir(warc_dir)
    by_id = {r["id"]: r for r in recs}
    responses = {r["uri"]: r for r in recs if r["type"] == "response"}
    # every fetched resource: robots.txt, the page, the media (kept or not), each with its request
    assert {site.url + "robots.txt", post, site.url + "img/a.png", site.url + "img/b.jpg",
            site.url + "page.html"} <= set(responses)
    assert sum(r["type"] == "request" for r in recs) == len(responses)
    assert responses[site.url + "img/a.png"]["payload"] == FILES["/img/a.png"][0]
    meta = [r for r in recs if r["type"] == "metadata"]
    assert len(meta) == 1
    assert meta[0]["refers"] == warc.response_record_id(resp) == responses[post]["id"]
    assert by_id[meta[0]["refers"]]["type"] == "response"
    assert json.loads(meta[0]["payload"]) == record
    resource = [r for r in recs if r["type"] == "resource"]
    assert len(resource) == 1 and resource[0]["refers"] == responses[post]["id"]
    assert resource[0]["payload"].endswith(b"<!-- rendered -->")


def test_no_warc_dir_means_no_warc_record(redis_server, site, tmp_path):
    rt = make_runtime(redis_server, warc_dir=None)
    cid = crawl_of(rt, site)
    resp = rt.downloader.get(site.url + "post/1/")
    record = post_record(resp.url, site.url, {"title": "Post"})
    archive.on_record(rt, cid, record, Page.from_response(resp))
    archive.on_rendered(rt, cid, resp.url, Page.rendered(resp.url, resp.url, resp.text))
    assert rt.downloader.recorder is None
    assert not list(tmp_path.rglob("*.warc.gz"))


def test_a_cluster_worker_packages_a_finished_crawl_as_wacz(redis_server, site, tmp_path, monkeypatch):
    """BLOGHARVEST_WACZ_DIR on a cluster: the worker that sees the crawl finish writes
    <crawl id>.wacz from the shared WARC directory, and leaves the workers' files there."""
    from tasks.archive.wacz import validate_wacz

    warc_dir, out_dir = tmp_path / "warc", tmp_path / "wacz"
    rt = make_runtime(redis_server, warc_dir=str(warc_dir))
    cid = crawl_of(rt, site)
    posts = [site.url + f"post/{n}/" for n in (1, 2)]
    for n, url in enumerate(posts, 1):
        resp = rt.downloader.get(url)
        record = post_record(url, site.url, {"title": f"Post {n}"})
        rt.state.save_record(cid, record, f"d{n}", 1000)
        archive.on_record(rt, cid, record, Page.from_response(resp, url))
    parts = sorted(os.listdir(warc_dir))
    assert archive.on_finished(rt, cid) is None  # no BLOGHARVEST_WACZ_DIR: nothing to do
    monkeypatch.setenv("BLOGHARVEST_WACZ_DIR", str(out_dir))
    rt.state.set_state(cid, "done")
    path = archive.on_finished(rt, cid)
    assert path == str(out_dir / f"{cid}.wacz") and os.listdir(out_dir) == [f"{cid}.wacz"]
    ok, said = validate_wacz(path)
    assert ok, said
    import zipfile

    with zipfile.ZipFile(path) as z:
        pages = [json.loads(x) for x in z.read("pages/pages.jsonl").decode().splitlines()[1:]]
    assert sorted((p["url"], p["title"]) for p in pages) == [(posts[0], "Post 1"), (posts[1], "Post 2")]
    assert sorted(os.listdir(warc_dir)) == parts  # the shared directory is the workers': untouched


def test_record_with_sources_and_a_local_time_validates():
    """`sources` per field and a published time without an offset (no zone invented) are valid."""
    from tasks.archive.records import post_record
    rec = post_record("http://b.test/p", "http://b.test/", {
        "title": "T", "content_text": "x", "authors": ["Jane Doe", "John Roe"], "published": "2014-03-09T10:00:00",
        "sources": {"title": "span", "content": "rule", "authors": "feed_blog", "published": "rule"}})
    jsonschema.validate(rec, SCHEMA)
    assert rec["sources"]["authors"] == "feed_blog"
    rec["sources"]["title"] = "guess"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(rec, SCHEMA)
