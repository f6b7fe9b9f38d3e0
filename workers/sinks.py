"""Where records and captures go: JSON lines files, WARC files, the Redis stream (state.py)."""
from __future__ import annotations

import json
import os
from pathlib import Path


def write_jsonl(records, path: str | Path) -> int:
    """Write records, one JSON object per line (UTF-8), atomically; returns the count."""
    path = Path(path)
    tmp = path.with_name(path.name + ".part")
    n = 0
    with open(tmp, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
            n += 1
    os.replace(tmp, path)
    return n


def warc_recorder(settings):
    """A callable that appends every fetched response to this worker's WARC files, or None."""
    if not settings.warc_dir:
        return None
    from tasks.warc import WarcRoller, request_record, response_record

    roller = WarcRoller(settings.warc_dir, prefix=f"blogharvest-{os.getpid()}", max_bytes=1_000_000_000)

    def record(resp):
        roller.write(request_record(resp) + response_record(resp))

    return record
