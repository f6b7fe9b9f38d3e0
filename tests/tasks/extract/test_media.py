"""Which media a post references, and content-addressed storage of their bytes."""
from __future__ import annotations

import hashlib
import os
import threading

from tasks.extract import media

POST = "http://blog.example/2014/03/a-post/"


def test_content_media_urls_resolves_and_keeps_document_order():
    html = """<div>
      <p><img src="/wp-content/a.png" srcset="/wp-content/a-300.png 300w, /wp-content/a-1024.png 1024w,
           /wp-content/a-768.png 768w" alt=""></p>
      <audio src="episode.mp3"></audio>
      <video poster="//cdn.example/poster.jpg"><source src="clip.webm" type="video/webm">
             <source src="clip.mp4#t=10" type="video/mp4"></video>
      <picture><source srcset="/b.avif 1x, /b@2x.avif 2x"><img src="/b.jpg"></picture>
      <img src="data:image/gif;base64,R0lGOD"><img src="javascript:void(0)"><img src="">
      <img src="/wp-content/a.png"><a href="/not-media.png">link</a>
    </div>"""
    assert media.content_media_urls(html, POST) == [
        "http://blog.example/wp-content/a.png",
        "http://blog.example/wp-content/a-1024.png",
        "http://blog.example/2014/03/a-post/episode.mp3",
        "http://cdn.example/poster.jpg",
        "http://blog.example/2014/03/a-post/clip.webm",
        "http://blog.example/2014/03/a-post/clip.mp4",
        "http://blog.example/b@2x.avif",
        "http://blog.example/b.jpg",
    ]


def test_content_media_urls_of_nothing():
    assert media.content_media_urls(None, POST) == []
    assert media.content_media_urls("  ", POST) == []
    assert media.content_media_urls("<p>no pictures here</p>", POST) == []


def test_srcset_parsing_follows_the_html_standard():
    assert media.srcset_candidates("a.jpg 300w, b.jpg 1024w") == [("a.jpg", 300.0, "w"), ("b.jpg", 1024.0, "w")]
    # a URL may contain commas; only trailing commas end it
    assert media.srcset_candidates("https://x/a,b.jpg 100w, https://x/c.jpg 50w") == [
        ("https://x/a,b.jpg", 100.0, "w"), ("https://x/c.jpg", 50.0, "w")]
    assert media.srcset_candidates("a.jpg,b.jpg 2x, c.jpg") == [("a.jpg,b.jpg", 2.0, "x"), ("c.jpg", 1.0, "x")]
    assert media.srcset_candidates(" , ") == []
    # widths beat densities; the largest of each kind wins
    assert media.content_media_urls('<img srcset="s.jpg 2x, m.jpg 640w, l.jpg 1280w">', POST)[-1].endswith("/l.jpg")


def test_enclosures_are_absolute_and_unique():
    entry = {"enclosures": [{"url": "/audio/ep1.mp3", "type": "audio/mpeg", "length": 10},
                            {"url": "http://blog.example/audio/ep1.mp3"}, {"url": None}, {}]}
    assert media.enclosure_urls(entry, POST) == ["http://blog.example/audio/ep1.mp3"]
    assert media.enclosure_urls(None, POST) == [] and media.enclosure_urls({"enclosures": None}, POST) == []


def test_type_allow_list():
    allowed = media.parse_types("image/*, AUDIO/MPEG ,")
    assert allowed == ("image/*", "audio/mpeg")
    assert media.type_allowed("image/webp", allowed) and media.type_allowed("audio/mpeg", allowed)
    assert not media.type_allowed("audio/ogg", allowed) and not media.type_allowed("text/html", allowed)
    assert not media.type_allowed(None, allowed)
    assert media.parse_types("") == media.parse_types(None) == media.DEFAULT_TYPES
    assert media.type_allowed("video/mp4", media.DEFAULT_TYPES)
    assert not media.type_allowed("application/pdf", media.DEFAULT_TYPES)


def test_media_type_trusts_the_server_unless_it_says_nothing():
    assert media.media_type("image/PNG; charset=binary", "http://x/a.jpg") == "image/png"
    assert media.media_type("application/octet-stream", "http://x/ep.mp3?dl=1") == "audio/mpeg"
    assert media.media_type(None, "http://x/pic.jpeg") == "image/jpeg"
    assert media.media_type(None, "http://x/download") is None
    assert media.media_type("text/html", "http://x/a.png") == "text/html"  # an error page is not an image


def test_store_is_content_addressed_and_idempotent(tmp_path):
    data = b"\x89PNG\r\n\x1a\n" + os.urandom(2000)
    digest = hashlib.sha256(data).hexdigest()
    sha, rel = media.store(str(tmp_path), data)
    assert sha == digest and rel == f"{digest[:2]}/{digest[2:4]}/{digest}"
    full = tmp_path / rel
    assert full.read_bytes() == data
    mtime = full.stat().st_mtime_ns
    assert media.store(str(tmp_path), data) == (sha, rel)
    assert full.stat().st_mtime_ns == mtime  # stored once
    other = media.store(str(tmp_path), data + b"!")
    assert other[0] != sha and (tmp_path / other[1]).read_bytes() == data + b"!"
    assert not [p for p in tmp_path.rglob(".part-*")]


def test_concurrent_stores_of_one_blob_leave_one_whole_file(tmp_path):
    data = os.urandom(3_000_000)
    results, errors = [], []

    def put():
        try:
            results.append(media.store(str(tmp_path), data))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=put) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(set(results)) == 1
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(files) == 1 and hashlib.sha256(files[0].read_bytes()).hexdigest() == results[0][0]
