"""Archive side of a post: its media (content-addressed) and its WARC metadata record.

Hooks the pipeline calls for every post record; owned apart from the pipeline so that
archive outputs (issue: WARC, media, records stream) evolve without touching traversal.
"""
from __future__ import annotations


def media_for(rt, crawl_id: str, url: str, extracted: dict, entry: dict | None) -> list[dict]:
    """Media of a post: [{"url", "sha256", "content_type", "path"?}], downloaded once per URL."""
    return []


def on_record(rt, crawl_id: str, record: dict, page: dict) -> None:
    """After a record is saved: tie it to its capture (WARC metadata record)."""
    return None
