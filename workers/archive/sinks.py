"""Where records and captures go: JSON lines files, WARC files, the Redis stream.

Every worker process appends to its own WARC files (one roller per process, shared by
its threads) in BLOGHARVEST_WARC_DIR; `crawl --warc FILE` then assembles the parts its
embedded workers wrote into one file. Which response record captured a URL is kept in
Redis (`bh:capture:{<url key>}`), so any worker can point a post's metadata record at the
capture another worker made.
"""
from __future__ import annotations

import glob
import json
import os
import socket
import sys
import threading
import zlib
from pathlib import Path

from workers.settings import wacz_dir  # noqa: F401 (sinks.wacz_dir for its callers)
from workers.state import CAPTURES, STREAM, url_key

# how long the capture of a URL stays findable for metadata records and the revisit
# records of later update crawls (workers.state.LASTING: an embedded crawl keeps it past its end)
CAPTURE_TTL = 30 * 24 * 3600
DEFAULT_WARC_MAX_BYTES = 1_000_000_000


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


# ------------------------------------------------------------------ WARC files of a worker

def warc_max_bytes() -> int:
    """Size at which a worker starts a new WARC file (BLOGHARVEST_WARC_MAX_BYTES)."""
    try:
        return int(os.environ.get("BLOGHARVEST_WARC_MAX_BYTES") or DEFAULT_WARC_MAX_BYTES)
    except ValueError:
        return DEFAULT_WARC_MAX_BYTES


_rollers: dict = {}
_rollers_lock = threading.Lock()


def warc_roller(settings):
    """This process's WARC roller for settings.warc_dir, or None when WARC output is off."""
    if not settings.warc_dir:
        return None
    from tasks.archive.warc import WarcRoller

    key = (os.getpid(), os.path.abspath(settings.warc_dir))  # a forked child gets its own files
    with _rollers_lock:
        roller = _rollers.get(key)
        if roller is None:
            host = socket.gethostname()
            info = {"hostname": host, "http-header-user-agent": settings.user_agent, "robots": "obey"}
            roller = _rollers[key] = WarcRoller(settings.warc_dir, prefix=f"blogharvest-{host}-{os.getpid()}",
                                                max_bytes=warc_max_bytes(), info=info)
        return roller


def capture_key(url: str) -> str:
    """Redis hash of the latest capture of `url`: "id" (its response or revisit record),
    "digest" (payload digest) and the response record holding that payload
    ("orig_id", "orig_target", "orig_date"), which a revisit record points at."""
    return f"{CAPTURES}{{{url_key(url)}}}"


def captured(state, url: str) -> str | None:
    """WARC-Record-ID of the latest response (or revisit) record of `url` any worker wrote, or None."""
    return state.r.hget(capture_key(url), "id")


def warc_recorder(settings, state=None):
    """A callable `record(resp, revisit=False)` that appends every fetched response to this
    worker's WARC files, or None when WARC output is off.

    With revisit=True (update crawls), a response whose payload is the same as the URL's
    previous capture is written as a revisit record pointing at that capture.
    `state` (the worker's State) is where captures are noted; without it one is opened
    on settings.redis_url when first needed."""
    if not settings.warc_dir:
        return None
    from tasks.archive import warc

    holder = {"state": state}

    def record(resp, revisit: bool = False):
        st = holder["state"]
        if st is None:
            from workers.state import State

            st = holder["state"] = State.from_url(settings.redis_url or "redis://127.0.0.1:6379/0")
        if getattr(resp, "hops", None):  # the redirects it took, as served: replay of the linked URL redirects too
            warc_roller(settings).write(warc.resources_records(resp.hops))
        key = capture_key(resp.url)
        digest = warc.payload_digest(resp)
        before = st.r.hgetall(key) if revisit else {}
        if before.get("digest") == digest and before.get("orig_id"):
            original = {"id": before["orig_id"], "target": before["orig_target"], "date": before["orig_date"]}
            warc_roller(settings).write(warc.revisit_request_record(resp), warc.revisit_record(resp, original))
            fields = {"id": warc.revisit_record_id(resp)}
        else:
            warc_roller(settings).write(warc.request_record(resp), warc.response_record(resp))
            rid = warc.response_record_id(resp)
            fields = {"id": rid, "digest": digest, "orig_id": rid, "orig_target": resp.url,
                      "orig_date": resp.fetched_at}
        with st.r.pipeline() as p:
            p.hset(key, mapping=fields)
            p.expire(key, CAPTURE_TTL)
            p.execute()

    return record


def write_resources(settings, items: list[dict], date: str | None = None) -> str | None:
    """Append the resources a browser fetched for a page (`[{"url", "status", "headers",
    "body"}]`) to this worker's WARC files as request/response pairs; returns the file."""
    roller = warc_roller(settings)
    if roller is None or not items:
        return None
    from tasks.archive.warc import resources_records

    return roller.write(resources_records(items, date))


# ------------------------------------------------------------------ one WARC file for `crawl --warc`

def _read_part(path: str) -> tuple[list[dict], str | None]:
    """Records of one part file: type, id, target, raw bytes span, metadata payload.
    A file cut short (a worker killed mid-write) yields its whole records and an error."""
    from warcio.archiveiterator import ArchiveIterator
    from warcio.exceptions import ArchiveLoadFailed

    out, error = [], None
    with open(path, "rb") as f:
        it = ArchiveIterator(f)
        try:
            for rec in it:
                h = rec.rec_headers
                item = {"type": rec.rec_type, "id": h.get_header("WARC-Record-ID"),
                        "target": h.get_header("WARC-Target-URI"), "date": h.get_header("WARC-Date"),
                        "refers": h.get_header("WARC-Refers-To")}
                if rec.rec_type == "metadata":
                    item["payload"] = rec.content_stream().read()
                # reads the record through: a body cut short fails here, before it is counted
                item["offset"], item["length"] = it.get_record_offset(), it.get_record_length()
                out.append(item)
        except (ArchiveLoadFailed, EOFError, OSError, zlib.error, ValueError) as e:
            error = f"{os.path.basename(path)}: damaged after {len(out)} records ({e})"
    return out, error


def _whole_member(raw: bytes) -> bool:
    """True when `raw` is one complete gzip member (every record is written as one)."""
    d = zlib.decompressobj(zlib.MAX_WBITS | 16)
    step = 1 << 20
    try:
        for i in range(0, len(raw), step):
            d.decompress(raw[i:i + step])
    except zlib.error:
        return False
    return d.eof and not d.unused_data.strip()


def _within(date: str | None, window: tuple[float, float]) -> bool:
    from datetime import datetime

    try:
        t = datetime.fromisoformat((date or "").replace("Z", "+00:00")).timestamp()
    except ValueError:
        return False
    return window[0] <= t <= window[1]


def _record_url(payload: bytes | None) -> str | None:
    try:
        return json.loads(payload).get("url")
    except (ValueError, TypeError, AttributeError):
        return None


class _Assembly:
    """What the assembled WARC holds so far: the ids of the records copied, the capture
    (response or revisit record) of each target, the capture each post's metadata record
    refers to, and the counts of the summary."""

    def __init__(self, out_path: str, parts: list[str]):
        self.summary = {"path": out_path, "parts": len(parts), "records": 0, "responses": 0, "revisits": 0,
                        "metadata": 0, "added_metadata": 0, "damaged": [], "pages": [], "uncaptured": []}
        self.seen: set[str] = set()
        self.copied: dict[str, tuple[str, str]] = {}  # record id -> (target, date) of responses and revisits
        self.responses: dict[str, str] = {}  # target URI -> response (or revisit) record id, the last in the file
        self.described: dict[str, str | None] = {}  # post URL -> the capture its metadata record refers to

    def wanted(self, it: dict, window: tuple[float, float] | None) -> bool:
        """A part's record to copy: not a part's own warcinfo, not copied already, dated
        within the crawl's run when a window is given."""
        if it["type"] == "warcinfo" or it["id"] in self.seen:
            return False
        return not window or _within(it.get("date"), window)

    def note(self, it: dict) -> None:
        """Count a copied record; remember a capture, or which capture a metadata record describes."""
        from tasks.archive.warc import page_of_target

        self.seen.add(it["id"])
        self.summary["records"] += 1
        if it["type"] in ("response", "revisit"):
            self.responses[it["target"]] = it["id"]
            self.copied[it["id"]] = (it["target"], it["date"])
            self.summary["responses" if it["type"] == "response" else "revisits"] += 1
        elif it["type"] == "metadata":
            self.summary["metadata"] += 1
            url = _record_url(it.get("payload")) or page_of_target(it["target"]) or it["target"]
            self.described[url] = it.get("refers") or self.described.get(url)

    def capture(self, ref: str | None, url: str | None) -> str | None:
        """`ref` if the file holds that capture, else the file's last capture of `url` (or None)."""
        return ref if ref in self.copied else self.responses.get(url)


def _copy_part(out, part: str, asm: _Assembly, window: tuple[float, float] | None) -> None:
    """Copy a part's wanted records byte for byte, up to the first one cut short."""
    items, error = _read_part(part)
    if error:
        asm.summary["damaged"].append(error)
    with open(part, "rb") as f:
        for it in items:
            f.seek(it["offset"])
            raw = f.read(it["length"])
            if not _whole_member(raw):  # warcio reads a cut-off gzip member without a word
                asm.summary["damaged"].append(f"{os.path.basename(part)}: record {it['id']} cut short")
                break
            if asm.wanted(it, window):
                out.write(raw)
                asm.note(it)


def _describe_records(out, records: list[dict], state, asm: _Assembly) -> None:
    """A metadata record for each post the parts did not describe, pointing at its capture
    (the one Redis names, if the file holds it, else the file's last capture of its URL)."""
    from tasks.archive.warc import metadata_record

    for rec in records:
        url = rec.get("url")
        if not url or url in asm.described:
            continue
        ref = asm.capture(captured(state, url) if state is not None else None, url)
        out.write(metadata_record(url, rec, ref))
        asm.described[url] = ref
        for count in ("records", "metadata", "added_metadata"):
            asm.summary[count] += 1


def _list_pages(records: list[dict], asm: _Assembly) -> None:
    """summary["pages"]: each post whose page the file captured; summary["uncaptured"]: the others."""
    for rec in records:
        url = rec.get("url")
        ref = asm.capture(asm.described.get(url) if url else None, url)
        if ref in asm.copied:
            target, date = asm.copied[ref]
            asm.summary["pages"].append({"url": target, "title": rec.get("title") or target, "ts": date})
        elif url:
            asm.summary["uncaptured"].append(url)


def _remove_parts(parts: list[str], parts_dir: str) -> None:
    for part in parts:
        os.unlink(part)
    try:
        os.rmdir(parts_dir)
    except OSError:
        pass  # something else lives there: leave it


def assemble_warc(parts_dir: str | None, out_path: str, records: list[dict], state, crawl_ids: list[str],
                  remove_parts: bool = True, window: tuple[float, float] | None = None) -> dict:
    """Build `out_path` (one .warc.gz) from the WARC parts the crawl's workers wrote.

    A warcinfo record for the crawl comes first; then every record of the parts, byte for
    byte (their own warcinfo records dropped); then a metadata record for each of `records`
    that has none yet (an update crawl re-saves unchanged posts without new captures),
    pointing at the post's capture when the file has one. Returns a summary, whose
    "pages" list each post whose page the file captured ({"url", "title", "ts"}: the
    page's URL and capture time, the post's title), for a WACZ's pages.jsonl.

    The parts are deleted afterwards (remove_parts): pass a directory of this crawl's
    parts only, never a cluster's shared BLOGHARVEST_WARC_DIR. From a shared directory
    (remove_parts=False), `window` = (start, end) in epoch seconds keeps the records
    dated within the crawl's run (other crawls' records of that time come along: harmless
    to replay)."""
    from tasks.archive.warc import warcinfo_record

    parts = sorted(glob.glob(os.path.join(parts_dir, "*.warc.gz"))) if parts_dir else []
    asm = _Assembly(out_path, parts)
    info = {"isPartOf": " ".join(crawl_ids), "hostname": socket.gethostname(),
            "description": "blogharvest crawl " + " ".join(crawl_ids)}
    tmp = out_path + ".part"
    with open(tmp, "wb") as out:
        out.write(warcinfo_record(info, filename=os.path.basename(out_path)))
        asm.summary["records"] += 1
        for part in parts:
            _copy_part(out, part, asm, window)
        _describe_records(out, records, state, asm)
    os.replace(tmp, out_path)
    _list_pages(records, asm)
    if remove_parts and parts_dir:
        _remove_parts(parts, parts_dir)
    for d in asm.summary["damaged"]:
        print(f"blogharvest: WARC part {d}", file=sys.stderr)
    return asm.summary


# ------------------------------------------------------------------ WACZ of a crawl

def package_wacz(warc_path: str, wacz_path: str, summary: dict, crawl_ids: list[str],
                 urls: list[str] | None = None) -> dict:
    """The assembled WARC of a crawl as a WACZ: its posts (summary["pages"] of
    assemble_warc) as pages/pages.jsonl."""
    from tasks.archive.wacz import create_wacz

    os.makedirs(os.path.dirname(os.path.abspath(wacz_path)), exist_ok=True)
    return create_wacz([warc_path], wacz_path, list(summary.get("pages") or []),
                       title="blogharvest " + " ".join(urls or crawl_ids),
                       description="blogharvest crawl " + " ".join(crawl_ids))


def crawl_window(state, crawl_ids: list[str], slack: float = 60.0) -> tuple[float, float]:
    """(start, end) epoch seconds spanning the crawls' runs, for picking their records out of
    a cluster's shared WARC directory."""
    import time

    infos = [state.crawl_info(cid) for cid in crawl_ids]
    start = min((i.get("created") or i.get("started") or 0) for i in infos) - 1
    end = max((i.get("finished") or time.time()) for i in infos) + slack
    return start, end


def archive_crawl(state, crawl_ids: list[str], urls: list[str], records: list[dict], warc: str | None,
                  wacz: str | None, parts_dir: str | None, remove_parts: bool = True,
                  window: tuple[float, float] | None = None) -> dict | None:
    """One WARC (`warc`, or a temporary one when only `wacz` is wanted) assembled from
    `parts_dir`, then packaged as the WACZ `wacz`. Returns assemble_warc's summary plus
    "wacz" (what create_wacz said) or "wacz_error"."""
    import shutil
    import tempfile

    if not warc and not wacz:
        return None
    tmp = None
    if wacz:
        os.makedirs(os.path.dirname(os.path.abspath(wacz)), exist_ok=True)
    if not warc:
        tmp = tempfile.mkdtemp(prefix="blogharvest-wacz-", dir=os.path.dirname(os.path.abspath(wacz)))
        warc = os.path.join(tmp, os.path.basename(wacz).removesuffix(".wacz") + ".warc.gz")
    try:
        summary = assemble_warc(parts_dir, warc, records, state, crawl_ids, remove_parts=remove_parts,
                                window=window)
        if wacz:
            from tasks.archive.wacz import WaczError

            try:
                summary["wacz"] = package_wacz(warc, wacz, summary, crawl_ids, urls)
            except WaczError as e:
                summary["wacz_error"] = str(e)
        return summary
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


# ------------------------------------------------------------------ the records stream

def stream_entries(client, crawl_id: str | None = None, start: str = "-", batch: int = 1000):
    """(entry id, crawl id, record) of `bh:records` in order, optionally of one crawl only."""
    cursor = start
    exclusive = False
    while True:
        lo = f"({cursor}" if exclusive else cursor
        chunk = client.xrange(STREAM, min=lo, max="+", count=batch)
        if not chunk:
            return
        for entry_id, fields in chunk:
            if crawl_id is None or fields.get("crawl") == crawl_id:
                yield entry_id, fields.get("crawl"), json.loads(fields["record"])
        cursor, exclusive = chunk[-1][0], True


def records_from_stream(client, crawl_id: str) -> list[dict]:
    """The latest record of each post a crawl streamed, in order of first appearance.
    The stream is capped (BLOGHARVEST_STREAM_MAXLEN): an old crawl may have lost entries."""
    latest: dict[str, dict] = {}
    for _, _, record in stream_entries(client, crawl_id):
        latest[record["url"]] = record
    return list(latest.values())
