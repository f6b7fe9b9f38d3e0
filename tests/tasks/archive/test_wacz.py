"""WACZ packages of WARC files: py-wacz writes them, `wacz validate` checks them."""
from __future__ import annotations

import gzip
import json
import subprocess
import sys
import zipfile

import pytest

from tasks.archive import warc
from tasks.archive.wacz import WaczError, create_wacz, pages_jsonl, validate_wacz
from tasks.fetch.http import fetch
from tests.httpd import LoopbackServer, Reply


def page(n: int) -> str:
    return f"<html><head><title>Post {n}</title></head><body><article>Café n°{n}</article></body></html>"


@pytest.fixture(scope="module")
def warc_file(tmp_path_factory):
    routes = {f"/post/{n}/": Reply(200, page(n)) for n in range(1, 4)}
    routes["/style.css"] = Reply(200, "body{}", content_type="text/css")
    d = tmp_path_factory.mktemp("warcs")
    with LoopbackServer(routes) as s:
        fetched = [fetch(s.url + p, allow_private=True) for p in ("post/1/", "post/2/", "post/3/", "style.css")]
    roller = warc.WarcRoller(str(d), prefix="crawl")
    for r in fetched:
        roller.write(warc.request_record(r), warc.response_record(r))
    for n, r in enumerate(fetched[:3], 1):
        roller.write(warc.metadata_record(r.url, {"url": r.url, "title": f"Post {n}"}, warc.response_record_id(r)))
    return roller.path, fetched


def test_create_validates_and_lists_every_page(warc_file, tmp_path):
    path, fetched = warc_file
    pages = [{"url": r.url, "title": f"Post {n} – été", "ts": r.fetched_at} for n, r in enumerate(fetched[:3], 1)]
    out = tmp_path / "crawl.wacz"
    done = create_wacz([path], str(out), pages, title="a blog")
    assert done["pages"] == 3 and [p.name for p in tmp_path.iterdir()] == ["crawl.wacz"]
    ok, said = validate_wacz(str(out))
    assert ok, said
    cli = subprocess.run([sys.executable, "-m", "wacz", "validate", "-f", str(out)], capture_output=True, text=True)
    assert cli.returncode == 0 and "valid" in cli.stdout, cli.stdout + cli.stderr
    with zipfile.ZipFile(out) as z:
        names = set(z.namelist())
        assert {"datapackage.json", "datapackage-digest.json", "pages/pages.jsonl", "indexes/index.cdx.gz",
                "indexes/index.idx", "archive/" + path.split("/")[-1]} <= names
        lines = [json.loads(x) for x in z.read("pages/pages.jsonl").decode().splitlines()]
        package = json.loads(z.read("datapackage.json"))
        cdx = gzip.decompress(z.read("indexes/index.cdx.gz")).decode()
    assert lines[0]["format"] == "json-pages-1.0"
    assert [(x["url"], x["title"]) for x in lines[1:]] == [(p["url"], p["title"]) for p in pages]
    assert all(x["ts"].startswith(p["ts"][:19]) for x, p in zip(lines[1:], pages))
    assert package["wacz_version"] == "1.1.1" and package["title"] == "a blog"
    assert all(r["hash"].startswith("sha256:") and r["bytes"] > 0 for r in package["resources"])
    for r in fetched:  # every capture in the CDXJ index; the records' URNs are not page URLs
        assert f'"url": "{r.url}"' in cdx
    assert "urn:blogharvest:record:" in cdx


def test_a_tampered_package_does_not_validate(warc_file, tmp_path):
    path, fetched = warc_file
    out, bad = tmp_path / "a.wacz", tmp_path / "bad.wacz"
    create_wacz([path], str(out), [{"url": fetched[0].url, "title": "Post 1"}])
    with zipfile.ZipFile(out) as src, zipfile.ZipFile(bad, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == "pages/pages.jsonl":
                data = data.replace(b"Post 1", b"Post X")  # the digest in datapackage.json no longer holds
            dst.writestr(item, data)
    assert validate_wacz(str(out))[0]
    assert not validate_wacz(str(bad))[0]


def test_pages_jsonl_has_a_header_and_one_line_per_url():
    text = pages_jsonl([{"url": "http://a/1", "title": "Un"}, {"url": "http://a/1", "title": "dup"},
                        {"url": "http://a/2", "ts": "2026-01-01T00:00:00Z"}, {"title": "no url"}])
    lines = [json.loads(x) for x in text.splitlines()]
    assert lines == [{"format": "json-pages-1.0", "id": "pages", "title": "Posts"},
                     {"url": "http://a/1", "title": "Un"},
                     {"url": "http://a/2", "title": "http://a/2", "ts": "2026-01-01T00:00:00Z"}]


def test_no_warc_is_a_clear_error(tmp_path):
    with pytest.raises(WaczError):
        create_wacz([], str(tmp_path / "x.wacz"), [])
