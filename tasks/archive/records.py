"""The post record other programs rely on (docs/records.md), its id and content hash."""
from __future__ import annotations

import datetime as dt
import hashlib
import json

# fields whose change means the post changed (crawl time and rules do not)
_CONTENT_FIELDS = ("title", "content_text", "authors", "published", "comments", "media")


def now_iso() -> str:
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat()


def record_id(url: str) -> str:
    """Stable id of a post: the same URL always gives the same id, whichever worker made it."""
    return hashlib.sha256(url.encode("utf-8")).hexdigest()[:24]


def _extracted_fields(extracted: dict) -> dict:
    """What the extraction found, empty values as None (authors: the non-empty names)."""
    return {
        "title": extracted.get("title") or None,
        "content_text": extracted.get("content_text") or None,
        "content_html": extracted.get("content_html") or None,
        "authors": [a for a in (extracted.get("authors") or []) if a],
        "published": extracted.get("published") or None,
    }


def _field_sources(extracted: dict) -> dict:
    """Which source filled each field (tasks.extract.fields): rule, span, jsonld, microdata,
    meta, feed, feed_blog, page; a field nothing filled is absent."""
    return {f: v for f, v in (extracted.get("sources") or {}).items()
            if f in ("title", "content", "authors", "published")}


def post_record(url: str, blog: str, extracted: dict, rules: dict | None = None,
                comments: list | None = None, media: list | None = None,
                crawled_at: str | None = None, extraction: str = "rules") -> dict:
    """`extraction` names the path that produced it: "rules", "rules+span" or "fallback"."""
    return {
        "kind": "post",
        "id": record_id(url),
        "url": url,
        "blog": blog,
        **_extracted_fields(extracted),
        "comments": comments or [],
        "media": media or [],
        "crawled_at": crawled_at or now_iso(),
        "rules": {f: (rules or {}).get(f) for f in ("title", "content", "author", "date")},
        "sources": _field_sources(extracted),
        "extraction": extraction,
    }


def content_hash(record: dict) -> str:
    """Hash of what a reader sees: an update crawl re-emits a post only when this changes."""
    body = {f: record.get(f) for f in _CONTENT_FIELDS}
    # what a comment says, not how we located it (ids come from the page or from the feed)
    body["comments"] = [[c.get("author"), c.get("published"), c.get("content_text")]
                        for c in record.get("comments") or []]
    body["media"] = sorted([m.get("url"), m.get("sha256")] for m in record.get("media") or [])
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
