"""WARC/1.1 records for what a crawl fetched, rendered and extracted (warcio does the format).

Each builder returns the bytes of one record as its own gzip member, so records can
be appended to any .warc.gz by any worker, in any order, and concatenated freely.

Record IDs are derived from the content (uuid5), not random: re-running a step
re-creates byte-identical IDs, and `response_record_id(resp)` tells a later step
which ID to point a metadata record's WARC-Refers-To at without re-reading the file.

The body in a fetch Response is already decoded (requests undoes gzip/deflate and
chunking), so the archived HTTP headers drop Transfer-Encoding and any
Content-Encoding that was undone, and carry the true Content-Length: the record is
then self-consistent for replay tools.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import threading
import time
import urllib.parse
import uuid
from datetime import datetime, timezone

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from tasks.fetch.http import Response

WARC_VERSION = "WARC/1.1"
SOFTWARE = "blogharvest/0.1 (warcio)"
DECODED_CODINGS = {"gzip", "x-gzip", "deflate", "identity"}  # what requests/urllib3 undo


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _record_id(*parts: str) -> str:
    return f"<urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, ' '.join(parts))}>"


def _response(resp: Response | dict) -> Response:
    return Response.from_dict(resp) if isinstance(resp, dict) else resp


def _key(resp: Response) -> tuple[str, str, str]:
    return resp.url, resp.fetched_at, hashlib.sha1(resp.content).hexdigest()


def record_ids(resp: Response | dict) -> tuple[str, str]:
    """(request record ID, response record ID) of a fetch, stable across re-runs."""
    resp = _response(resp)
    return _record_id("request", *_key(resp)), _record_id("response", *_key(resp))


def response_record_id(resp: Response | dict) -> str:
    return record_ids(resp)[1]


def _serialise(record) -> bytes:
    buf = io.BytesIO()
    WARCWriter(buf, gzip=True, warc_version=WARC_VERSION).write_record(record)
    return buf.getvalue()


def _builder() -> WARCWriter:
    return WARCWriter(io.BytesIO(), gzip=True, warc_version=WARC_VERSION)


def warcinfo_record(info: dict, filename: str | None = None) -> bytes:
    """The warcinfo record that opens a WARC file (software, operator, crawl id...)."""
    fields = {"software": SOFTWARE, "format": "WARC File Format 1.1",
              "conformsTo": "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"}
    fields.update(info)
    return _serialise(_builder().create_warcinfo_record(filename, fields))


def _archived_headers(resp: Response) -> list:
    out = []
    for name, value in resp.headers:
        low = name.lower()
        if low in ("transfer-encoding", "content-length"):
            continue
        if low == "content-encoding":
            codings = {c.strip().lower() for c in value.split(",") if c.strip()}
            if codings <= DECODED_CODINGS:
                continue  # the stored body is already decoded
        out.append((name, value))
    out.append(("Content-Length", str(len(resp.content))))
    return out


def response_record(resp: Response | dict) -> bytes:
    """The HTTP response as fetched: raw status line, headers (fixed up), decoded body."""
    resp = _response(resp)
    req_id, resp_id = record_ids(resp)
    http = StatusAndHeaders(f"{resp.status} {resp.reason}".strip(), _archived_headers(resp),
                            protocol=resp.protocol or "HTTP/1.1")
    warc_headers = {"WARC-Type": "response", "WARC-Record-ID": resp_id, "WARC-Date": resp.fetched_at or _now(),
                    "WARC-Concurrent-To": req_id}
    record = _builder().create_warc_record(resp.url, "response", payload=io.BytesIO(resp.content),
                                           length=len(resp.content), warc_headers_dict=warc_headers,
                                           http_headers=http)
    return _serialise(record)


def request_record(resp: Response | dict) -> bytes:
    """The HTTP request that produced `resp` (final hop), headers as sent."""
    resp = _response(resp)
    req_id, resp_id = record_ids(resp)
    parts = urllib.parse.urlsplit(resp.url)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    http = StatusAndHeaders(f"{resp.method or 'GET'} {target} {resp.protocol or 'HTTP/1.1'}",
                            list(resp.request_headers), is_http_request=True)
    warc_headers = {"WARC-Type": "request", "WARC-Record-ID": req_id, "WARC-Date": resp.fetched_at or _now(),
                    "WARC-Concurrent-To": resp_id}
    record = _builder().create_warc_record(resp.url, "request", warc_headers_dict=warc_headers,
                                           http_headers=http)
    return _serialise(record)


def _payload_record(kind: str, url: str, data: bytes, content_type: str, date: str | None,
                    refers_to_record_id: str | None) -> bytes:
    """A resource or metadata record: `data` as its block, optionally referring to a response."""
    date = date or _now()
    warc_headers = {"WARC-Type": kind, "WARC-Record-ID": _record_id(kind, url, date, hashlib.sha1(data).hexdigest()),
                    "WARC-Date": date}
    if refers_to_record_id:
        warc_headers["WARC-Refers-To"] = refers_to_record_id
    record = _builder().create_warc_record(url, kind, payload=io.BytesIO(data), length=len(data),
                                           warc_content_type=content_type, warc_headers_dict=warc_headers)
    return _serialise(record)


def resource_record(url: str, html: str | bytes, content_type: str = "text/html; charset=utf-8",
                    date: str | None = None, refers_to_record_id: str | None = None) -> bytes:
    """A rendered DOM (what the browser built, not what the server sent) as a resource record;
    WARC-Refers-To names the response the browser started from, when it is known."""
    data = html.encode("utf-8") if isinstance(html, str) else html
    return _payload_record("resource", url, data, content_type, date, refers_to_record_id)


def metadata_record(url: str, record_json: dict | str, refers_to_record_id: str | None,
                    date: str | None = None) -> bytes:
    """A post's extracted record (JSON), tied by WARC-Refers-To to the response it came from."""
    if isinstance(record_json, str):
        data = record_json.encode("utf-8")
    else:
        data = json.dumps(record_json, ensure_ascii=False, sort_keys=True).encode("utf-8")
    return _payload_record("metadata", url, data, "application/json", date, refers_to_record_id)


class WarcRoller:
    """Append records to <directory>/<prefix>-<UTC time>-<serial>.warc.gz, starting a new
    file (opened by a warcinfo record) once the current one would pass `max_bytes`.
    Safe to share between the threads of one worker; each process needs its own roller."""

    def __init__(self, directory: str, prefix: str = "blogharvest", max_bytes: int = 1_000_000_000,
                 info: dict | None = None):
        self.directory = directory
        self.prefix = prefix
        self.max_bytes = max_bytes
        self.info = info or {}
        self.paths: list[str] = []
        self._size = 0
        self._serial = 0
        self._lock = threading.Lock()
        os.makedirs(directory, exist_ok=True)

    @property
    def path(self) -> str | None:
        return self.paths[-1] if self.paths else None

    def write(self, *records: bytes) -> str:
        """Append `records` together (a request/response pair stays in one file); return the file."""
        data = b"".join(records)
        with self._lock:
            if self.path is None or self._size + len(data) > self.max_bytes:
                self._roll()
            with open(self.path, "ab") as f:
                f.write(data)
            self._size += len(data)
            return self.path

    def _roll(self) -> None:
        stamp = time.strftime("%Y%m%d%H%M%S", time.gmtime())
        while True:
            self._serial += 1
            name = f"{self.prefix}-{stamp}-{self._serial:05d}.warc.gz"
            path = os.path.join(self.directory, name)
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
                break
            except FileExistsError:
                continue
        head = warcinfo_record(self.info, filename=name)
        with os.fdopen(fd, "wb") as f:
            f.write(head)
        self.paths.append(path)
        self._size = len(head)
