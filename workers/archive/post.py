"""Archive side of a post: its media (content-addressed) and its WARC metadata record.

Hooks the pipeline calls for every post record; owned apart from the pipeline so that
archive outputs (WARC, media, records stream) evolve without touching traversal.

Media are downloaded once per URL for the whole cluster: `bh:media:{<url key>}` (hash)
holds what the download gave (url, sha256, content_type, bytes, path, or error), and
`bh:media:{<url key>}:lock` (string, short TTL) is held by the one worker fetching it;
the others wait for the hash. A failure is remembered for a day, a success for good
(while its file is still in the media directory). Set BLOGHARVEST_MEDIA_DIR to a
directory every worker shares (one volume): records name files relative to it.
"""
from __future__ import annotations

import logging
import os
import time
import uuid

from tasks.extract import media as medialib
from tasks.fetch.http import FetchError
from workers.archive.sinks import captured, warc_roller, write_resources
from workers.state import url_key

log = logging.getLogger("blogharvest")

FAILURE_TTL = 24 * 3600  # a media URL that failed is not tried again for this long
POLL = 0.1  # seconds between two looks at another worker's download

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def media_key(url: str) -> str:
    return f"bh:media:{{{url_key(url)}}}"


def max_bytes() -> int:
    """Largest media file kept (BLOGHARVEST_MEDIA_MAX_BYTES); larger ones are not downloaded."""
    try:
        return int(os.environ.get("BLOGHARVEST_MEDIA_MAX_BYTES") or medialib.DEFAULT_MAX_BYTES)
    except ValueError:
        return medialib.DEFAULT_MAX_BYTES


def allowed_types() -> tuple[str, ...]:
    """Media types kept (BLOGHARVEST_MEDIA_TYPES, comma-separated, 'image/*' style)."""
    return medialib.parse_types(os.environ.get("BLOGHARVEST_MEDIA_TYPES"))


def media_for(rt, crawl_id: str, url: str, extracted: dict, entry: dict | None) -> list[dict]:
    """Media of a post: [{"url", "sha256", "content_type", "bytes", "path"}], downloaded once per URL.

    Images, audio and video of the extracted content (resolved against the post URL) and
    the feed entry's enclosures; nothing at all without a media directory."""
    root = rt.settings.media_dir
    if not root:
        return []
    urls = medialib.content_media_urls(extracted.get("content_html"), url)
    urls += [u for u in medialib.enclosure_urls(entry, url) if u not in urls]
    out = []
    for u in urls[:medialib.MAX_PER_POST]:
        item = fetch_media(rt, crawl_id, u, root)
        if item:
            out.append(item)
    return out


def _usable(found: dict, root: str) -> bool:
    return bool(found.get("sha256")) and os.path.exists(os.path.join(root, found["path"]))


def _entry(found: dict) -> dict:
    return {"url": found["url"], "sha256": found["sha256"], "content_type": found.get("content_type") or None,
            "bytes": int(found["bytes"]), "path": found["path"]}


def fetch_media(rt, crawl_id: str, url: str, root: str) -> dict | None:
    """The record entry of one media URL: stored already, fetched by another worker, or fetched now."""
    r = rt.state.r
    key = media_key(url)
    lock_ttl = rt.settings.request_timeout + 150  # a fetch may wait out a politeness slot (<= 120 s)
    deadline = time.monotonic() + lock_ttl
    token = uuid.uuid4().hex
    while True:
        found = r.hgetall(key)
        if _usable(found, root):
            return _entry(found)
        if found.get("error"):
            return None
        if r.set(f"{key}:lock", token, nx=True, px=int(lock_ttl * 1000)):
            break
        if time.monotonic() > deadline:
            return None  # the other worker vanished mid-download; its lock expires, a later post retries
        time.sleep(POLL)  # another worker is downloading this URL: wait for its result
    try:
        # looked at again under the lock: a worker that stored it between our look and our lock
        # (its entry written, then its lock let go) has done the download
        found = r.hgetall(key)
        if _usable(found, root):
            return _entry(found)
        return _download(rt, crawl_id, url, root, key)
    finally:
        r.eval(_RELEASE, 1, f"{key}:lock", token)


def _download(rt, crawl_id: str, url: str, root: str, key: str) -> dict | None:
    r = rt.state.r

    def fail(kind: str, message: str) -> None:
        with r.pipeline(transaction=False) as p:  # (no MULTI: a reader seeing none waits for our lock)
            p.delete(key)
            p.hset(key, mapping={"url": url, "error": kind, "message": message[:500]})
            p.expire(key, FAILURE_TTL)
            p.execute()
        rt.state.add_error(crawl_id, url, f"media_{kind}", message)

    try:
        resp = rt.downloader.get(url, max_bytes=max_bytes())
    except FetchError as e:
        fail(e.kind, str(e))
        return None
    ctype = medialib.media_type(resp.content_type, resp.url)
    if not medialib.type_allowed(ctype, allowed_types()):
        fail("type", f"{ctype or 'no content type'} is not an allowed media type")
        return None
    sha, rel = medialib.store(root, resp.content)
    item = {"url": url, "sha256": sha, "content_type": ctype, "bytes": len(resp.content), "path": rel}
    with r.pipeline(transaction=False) as p:  # under the lock: a reader seeing no entry waits for it
        p.delete(key)
        p.hset(key, mapping=item)
        p.execute()
    return item


def on_record(rt, crawl_id: str, record: dict, page) -> None:
    """After a record is saved: write it to the worker's WARC files as a metadata record,
    WARC-Refers-To the response record that captured its page (any worker's). `page` is the
    post's tasks.fetch.page.Page (None: the record's URL is the target), its final URL."""
    roller = warc_roller(rt.settings)
    if roller is None:
        return
    from tasks.archive.warc import metadata_record

    target = (page.final_url if page is not None else None) or record["url"]
    ref = captured(rt.state, target) or captured(rt.state, record["url"])
    roller.write(metadata_record(target, record, ref))


def on_resources(rt, crawl_id: str, url: str, resources: list) -> None:
    """What the browser fetched while rendering `url` (each a `Response.to_dict()` from the
    guarding proxy, or {"url", "status", "headers", "body"}) as WARC request/response
    records: replay then runs the page's scripts against what they got (comment widgets'
    JSON included)."""
    write_resources(rt.settings, resources)


def on_rendered(rt, crawl_id: str, url: str, page) -> None:
    """After a page is rendered by the browser: its DOM as a WARC resource record (on
    `urn:blogharvest:dom:<url>`, WARC-Refers-To the response the browser's page came from,
    when captured). `page` is the rendered tasks.fetch.page.Page; what the browser fetched
    for it went to the WARC already (on_resources, as the renderer handed it over)."""
    roller = warc_roller(rt.settings)
    if roller is None:
        return
    from tasks.archive.warc import resource_record

    target = page.final_url or url
    roller.write(resource_record(target, page.html, refers_to_record_id=captured(rt.state, target)))


def on_finished(rt, crawl_id: str) -> str | None:
    """A cluster worker that saw a crawl finish packages it as BLOGHARVEST_WACZ_DIR/<crawl id>.wacz
    from the shared BLOGHARVEST_WARC_DIR (records dated within the crawl's run; the worker
    files are left in place). Needs both directories; returns the package's path or None.
    (`blogharvest crawl` leaves this to its follower: it assembles the parts itself.)"""
    from workers.archive import sinks

    out_dir, warc_dir = sinks.wacz_dir(), rt.settings.warc_dir
    if not out_dir or not warc_dir:
        return None
    st = rt.state
    info = st.crawl_info(crawl_id)
    path = os.path.join(out_dir, f"{crawl_id}.wacz")
    try:
        summary = sinks.archive_crawl(st, [crawl_id], [info.get("url") or ""], st.crawl_records(crawl_id),
                                      None, path, warc_dir, remove_parts=False,
                                      window=sinks.crawl_window(st, [crawl_id]))
    except Exception as e:  # the crawl's records are safe in Redis: report, do not fail the task
        log.exception("WACZ of crawl %s failed", crawl_id)
        st.add_error(crawl_id, info.get("url") or "", "wacz", f"{type(e).__name__}: {e}")
        return None
    if summary.get("wacz_error"):
        st.add_error(crawl_id, info.get("url") or "", "wacz", summary["wacz_error"])
        return None
    return path
