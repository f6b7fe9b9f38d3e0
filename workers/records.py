"""A post's record as the Redis state keeps it (workers/state.py): how it is saved (`Saving`, the
page scripts' arguments), packed, and, when a full crawl ends, turned into a page where no
listing of the blog lists it (issue 30, tasks/discover/unlisted.py).
"""
from __future__ import annotations

import json
import time
import zlib
from dataclasses import dataclass

from tasks.archive.records import record_id
from tasks.discover.canonical import body_key
from tasks.discover.unlisted import copies, menu_pages, rehomed, unlisted
from tasks.discover.urls import is_post
from workers.extract.listed_days import WEAK
from workers.keys import Keys

STREAM = "bh:records"  # every record, for other services (consumer groups)
SOURCES = ("feed", "sitemap", "links")  # discovery sources counted per crawl (status --json)


@dataclass(frozen=True)
class Saving:
    """A post's record to save (`State.save_record`, `State.end_page`): streamed when its
    `digest` is new, listed in the crawl's output when new or changed (also when unchanged,
    `listed`: an update crawl outputs new and changed posts only), its `source` counted
    the first time; `body`: its body key (title + text), one URL per body."""
    record: dict
    digest: str
    stream_maxlen: int | None
    listed: bool = True
    source: str | None = None
    body: str | None = None

    def data(self) -> str:
        return json.dumps(self.record, ensure_ascii=False, sort_keys=True, separators=(",", ":"))

    def args(self, crawl_id: str) -> list[str]:
        """The save's arguments as the scripts take them (workers/lua.py, `_SAVE`)."""
        return [self.record["url"], self.digest, crawl_id, self.record.get("id") or "",
                "" if self.stream_maxlen is None else str(int(self.stream_maxlen)), "1" if self.listed else "0",
                self.source if self.source in SOURCES else ""]


def pack(data: str) -> bytes:
    """A record's JSON as the records hash keeps it: zlib-compressed (issue 33: prose compresses
    about 3x; the stream keeps plain JSON, which other services read)."""
    return zlib.compress(data.encode(), 6)


def unpack(raw: bytes | str | None) -> dict | None:
    """A record of the records hash: compressed JSON, or plain JSON written before issue 33."""
    if raw is None:
        return None
    if isinstance(raw, bytes) and not raw.startswith(b"{"):
        raw = zlib.decompress(raw)
    return json.loads(raw)


def as_before(record: dict, earlier: dict | None) -> dict:
    """`record` read again by an update crawl, still a page where a full crawl found no listing
    listing it (an update crawl reads too few listings to tell)."""
    if earlier and earlier.get("kind") == "page" and record.get("kind") != "page":
        return dict(record, kind="page", kind_note=earlier.get("kind_note"))
    return record


def mark_unlisted(r, raw, crawl_id: str, stream_maxlen: int | None) -> list[str]:
    """A full crawl that read its blog to the end: its records that no listing lists, where the
    listings list nearly all the others, and those that show a post's text under a URL the post
    pattern does not take (tasks.discover.unlisted.copies), become pages (`kind` "page",
    `kind_note` why), in the records hash and, as a changed record, in the stream; named in the
    crawl's report. Once per crawl (a crawl retired again by the sweep keeps what was decided).
    `r`: the decoding client, `raw` the bytes one (the records hash is compressed)."""
    k = Keys(crawl_id)
    state, kind, marked = r.hmget(k.crawl, ["state", "kind", "unlisted"])
    if state != "done" or kind != "new" or marked is not None:
        return []
    slots = [json.loads(v) for v in r.hvals(k.inlist)]  # each page's slots of links
    _rehome(r, raw, k, crawl_id, stream_maxlen, slots)
    _listing_dated(r, raw, k, crawl_id, stream_maxlen)
    records = sorted(r.smembers(k.posts))
    # a crawl that cut a part of the site as a trap left some of its listings unread: which pages
    # they list is not known, and what listed a post may be among them (the cut depends on the
    # order pages were read in: a blog's archive pages, read late, listed 25 of its posts)
    pages = [] if r.exists(k.cut) else unlisted(records, [urls for page in slots for urls in page], r.hgetall(k.aliases))
    note = (f"listed by none of the blog's listings, which list {len(records) - len(pages)} of the "
            f"{len(records)} pages read as posts: a page of the site in the post template")
    notes = dict.fromkeys(pages, note)
    for url in menu_pages(sorted(r.smembers(k.menu)), records, [urls for page in slots for urls in page],
                          r.hgetall(k.aliases)):
        notes.setdefault(url, "linked by the blog's menu and listed by none of its listings: a page of the site")
    for url, owner in _copies(r, raw, k, records).items():
        notes.setdefault(url, f"shows the text of the post {owner} under a URL that is not the blog's "
                              f"post pattern (an archive holding one entry)")
    with r.pipeline() as p:
        for url, packed in zip(notes, raw.hmget(k.records, list(notes)) if notes else []):
            record = unpack(packed)
            if record is None or record.get("kind") != "post":
                continue
            record = dict(record, kind="page", kind_note=notes[url])
            _rewrite(p, k, crawl_id, record, stream_maxlen)
            p.rpush(k.errors, json.dumps({"url": url, "kind": "not_a_post", "message": notes[url], "at": time.time()}))
        p.hset(k.crawl, "unlisted", len(notes))
        p.execute()
    return sorted(notes)


def _listing_dated(r, raw, k: Keys, crawl_id: str, stream_maxlen: int | None) -> None:
    """Records read before the listing that prints their day (their pages print none) take it
    now (workers/extract/listed_days.py), as their post's read later would have."""
    days = r.hgetall(k.listed_days)
    urls = [u for u in sorted(r.smembers(k.posts)) if u in days] if days else []
    changed = []
    for url, packed in zip(urls, raw.hmget(k.records, urls) if urls else []):
        record = unpack(packed)
        source = (record or {}).get("sources", {}).get("published") if (record or {}).get("published") else None
        if record is not None and source in WEAK:
            changed.append(dict(record, published=days[url],
                                sources=dict(record.get("sources") or {}, published="listing")))
    if changed:
        with r.pipeline() as p:
            for record in changed:
                _rewrite(p, k, crawl_id, record, stream_maxlen)
            p.execute()


def _rewrite(p, k: Keys, crawl_id: str, record: dict, stream_maxlen: int | None) -> None:
    """A record changed when the crawl ends, on pipeline `p`: in the records hash and, as a
    changed record, in the stream."""
    data = json.dumps(record, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    p.hset(k.records, record["url"], pack(data))
    if stream_maxlen != 0:
        p.xadd(STREAM, {"crawl": crawl_id, "url": record["url"], "id": record.get("id") or "", "record": data},
               maxlen=stream_maxlen, approximate=True)


def _rehome(r, raw, k: Keys, crawl_id: str, stream_maxlen: int | None, slots: list) -> None:
    """Records read under a stray copy's URL move to the blog's own URL of their post, now that
    the whole crawl tells the blog's scheme (tasks.discover.unlisted.rehomed): in the records
    hash, the crawl's posts and, as a new record, the stream; the copy becomes its alias."""
    aliases = r.hgetall(k.aliases)
    if not aliases:
        return
    pattern = r.hget(k.blog, "pattern")
    pattern = json.loads(pattern) if pattern else None
    candidates = sorted(set(aliases) | set(aliases.values()))
    entries = dict(zip(candidates, r.hmget(k.entries, candidates)))

    def fed(url: str) -> bool:  # a feed's own URL for its post (not a pseudo entry read off pages)
        return bool(entries.get(url)) and not json.loads(entries[url]).get("pseudo")

    moves = rehomed(sorted(r.smembers(k.posts)), aliases,
                    lambda u: bool(entries.get(u)) or bool(pattern and is_post(u, pattern)), fed, slots)
    if not moves:
        return
    owners = list(moves)
    with r.pipeline() as p:
        for owner, packed, digest in zip(owners, raw.hmget(k.records, owners), r.hmget(k.hashes, owners)):
            record = unpack(packed)
            if record is None or record.get("kind") != "post":
                continue
            url = moves[owner]
            record = dict(record, url=url, id=record_id(url))
            _rewrite(p, k, crawl_id, record, stream_maxlen)
            if digest:
                p.hset(k.hashes, url, digest)
            p.srem(k.posts, owner)
            p.sadd(k.posts, url)
            p.hdel(k.aliases, url)
            p.hset(k.aliases, owner, url)
            key = body_key(record.get("title"), record.get("content_text"))
            if key:
                p.hset(k.bodies, key, url)
        p.execute()


def _copies(r, raw, k: Keys, records: list[str]) -> dict[str, str]:
    """The crawl's records that copy a post's text (tasks.discover.unlisted.copies), by the
    blog's post pattern; none where the blog has no pattern."""
    pattern = r.hget(k.blog, "pattern")
    pattern = json.loads(pattern) if pattern else None
    if not pattern or len(records) < 2:
        return {}
    texts = {}
    for url, packed in zip(records, raw.hmget(k.records, records)):
        record = unpack(packed)
        if record is not None and record.get("kind") == "post":
            texts[url] = record.get("content_text")
    return copies(texts, lambda u: is_post(u, pattern))
