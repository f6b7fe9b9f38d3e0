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

Replay (pywb, ReplayWeb.page) looks a URL up among response, revisit and resource
records by WARC-Target-URI, so only what a server sent (or what a browser fetched) sits
on the page's own URL. What blogharvest adds about a page sits on a URN that no replay
lookup ever asks for, the browsertrix way (`urn:pageinfo:<url>`): the extracted record
on `urn:blogharvest:record:<url>` (metadata), the rendered DOM on
`urn:blogharvest:dom:<url>` (resource); both name the response by WARC-Refers-To and
WARC-Concurrent-To. A page fetched again with the same payload (update crawls) is a
revisit record (identical-payload-digest profile) pointing at the first capture.

Resources a browser fetched while rendering a page (scripts, CSS, images, the XHR/fetch
JSON of comment widgets) come as plain dicts `{"url", "status", "headers", "body"}`
(optionally "reason", "method", "request_headers", "fetched_at"); `exchange_records`
writes each one as a request/response pair like any other fetch; a `Response.to_dict()`
(what the browser's guarding proxy, tasks/fetch/proxy.py, records) is taken as it is.
"""
from __future__ import annotations

import base64
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
RECORD_URN = "urn:blogharvest:record:"  # + page URL: the extracted record (metadata)
DOM_URN = "urn:blogharvest:dom:"  # + page URL: the DOM a browser built (resource)
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


def request_record(resp: Response | dict, concurrent_to: str | None = None) -> bytes:
    """The HTTP request that produced `resp` (final hop), headers as sent."""
    resp = _response(resp)
    req_id, resp_id = record_ids(resp)
    resp_id = concurrent_to or resp_id
    parts = urllib.parse.urlsplit(resp.url)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    http = StatusAndHeaders(f"{resp.method or 'GET'} {target} {resp.protocol or 'HTTP/1.1'}",
                            list(resp.request_headers), is_http_request=True)
    warc_headers = {"WARC-Type": "request", "WARC-Record-ID": req_id, "WARC-Date": resp.fetched_at or _now(),
                    "WARC-Concurrent-To": resp_id}
    record = _builder().create_warc_record(resp.url, "request", warc_headers_dict=warc_headers,
                                           http_headers=http)
    return _serialise(record)


def _payload_record(kind: str, target: str, data: bytes, content_type: str, date: str | None,
                    response_id: str | None) -> bytes:
    """A resource or metadata record: `data` as its block, tied to a response when it is known."""
    date = date or _now()
    warc_headers = {"WARC-Type": kind,
                    "WARC-Record-ID": _record_id(kind, target, date, hashlib.sha1(data).hexdigest()),
                    "WARC-Date": date}
    if response_id:
        warc_headers["WARC-Refers-To"] = response_id
        warc_headers["WARC-Concurrent-To"] = response_id
    record = _builder().create_warc_record(target, kind, payload=io.BytesIO(data), length=len(data),
                                           warc_content_type=content_type, warc_headers_dict=warc_headers)
    return _serialise(record)


def record_target(url: str) -> str:
    """WARC-Target-URI of a page's extracted record: a URN replay never looks up."""
    return RECORD_URN + url


def dom_target(url: str) -> str:
    """WARC-Target-URI of a page's rendered DOM: a URN replay never looks up."""
    return DOM_URN + url


def page_of_target(target: str | None) -> str | None:
    """The page URL a blogharvest URN names (None for any other target)."""
    for prefix in (RECORD_URN, DOM_URN):
        if target and target.startswith(prefix):
            return target[len(prefix):]
    return None


def resource_record(url: str, html: str | bytes, content_type: str = "text/html; charset=utf-8",
                    date: str | None = None, refers_to_record_id: str | None = None) -> bytes:
    """A rendered DOM (what the browser built, not what the server sent) as a resource record
    on `urn:blogharvest:dom:<url>`, so that replay of `url` still gets the server's response;
    WARC-Refers-To names the response the browser started from, when it is known."""
    data = html.encode("utf-8") if isinstance(html, str) else html
    return _payload_record("resource", dom_target(url), data, content_type, date, refers_to_record_id)


def metadata_record(url: str, record_json: dict | str, refers_to_record_id: str | None,
                    date: str | None = None) -> bytes:
    """A post's extracted record (JSON) on `urn:blogharvest:record:<url>` (it must not shadow
    the page's response in replay), tied by WARC-Refers-To and WARC-Concurrent-To to the
    response it came from."""
    if isinstance(record_json, str):
        data = record_json.encode("utf-8")
    else:
        data = json.dumps(record_json, ensure_ascii=False, sort_keys=True).encode("utf-8")
    return _payload_record("metadata", record_target(url), data, "application/json", date, refers_to_record_id)


# ------------------------------------------------------------------ revisits and browser resources

def payload_digest(resp: Response | dict) -> str:
    """WARC-Payload-Digest of a response's body ("sha1:<base32>", what warcio writes)."""
    resp = _response(resp)
    return "sha1:" + base64.b32encode(hashlib.sha1(resp.content).digest()).decode("ascii")


def revisit_record(resp: Response | dict, original: dict) -> bytes:
    """A fetch whose payload is identical to an earlier capture: the HTTP headers as fetched,
    no body, WARC-Refers-To (-Target-URI, -Date) the original response record.

    `original` = {"id", "target", "date"} of that response record."""
    resp = _response(resp)
    req_id, resp_id = record_ids(resp)
    resp_id = _record_id("revisit", *_key(resp))
    http = StatusAndHeaders(f"{resp.status} {resp.reason}".strip(), _archived_headers(resp),
                            protocol=resp.protocol or "HTTP/1.1")
    warc_headers = {"WARC-Type": "revisit", "WARC-Record-ID": resp_id, "WARC-Date": resp.fetched_at or _now(),
                    "WARC-Concurrent-To": req_id, "WARC-Refers-To": original["id"]}  # warcio adds WARC-Profile
    record = _builder().create_revisit_record(resp.url, payload_digest(resp), original["target"],
                                              original["date"], http_headers=http,
                                              warc_headers_dict=warc_headers)
    return _serialise(record)


def revisit_record_id(resp: Response | dict) -> str:
    return _record_id("revisit", *_key(_response(resp)))


def revisit_request_record(resp: Response | dict) -> bytes:
    """The request of a revisit (its WARC-Concurrent-To names the revisit record)."""
    resp = _response(resp)
    return request_record(resp, concurrent_to=revisit_record_id(resp))


def _body(item: dict) -> bytes:
    """A browser resource's body: bytes, UTF-8 text, or base64 under "body_b64"."""
    body = item.get("body")
    if body is None and item.get("body_b64") is not None:
        body = base64.b64decode(item["body_b64"])
    if isinstance(body, str):
        body = body.encode("utf-8")
    return body or b""


def _header_pairs(headers) -> list[tuple]:
    """Headers given as a dict or as pairs, as a list of tuples."""
    return [tuple(h) for h in (list(headers.items()) if isinstance(headers, dict) else headers)]


def _mime_type(headers: list[tuple]) -> str | None:
    """The media type a Content-Type header names ("text/html"), without its parameters."""
    ctype = next((v for k, v in headers if k.lower() == "content-type"), None)
    return (ctype or "").split(";")[0].strip().lower() or None


def _recorded_response(item: dict, default_date: str | None) -> Response:
    """A `Response.to_dict()` as it is, dated when it is not."""
    resp = Response.from_dict(item)
    if not resp.fetched_at:
        resp.fetched_at = default_date or _now()
    return resp


def resource_response(item: dict | Response, default_date: str | None = None) -> Response:
    """A resource a browser fetched, a `Response.to_dict()` (what the guarding proxy records)
    or `{"url", "status", "headers", "body"}` (body bytes, str or base64 under "body_b64"),
    as a fetch Response for the WARC builders."""
    if isinstance(item, Response):
        return item
    if "content" in item:
        return _recorded_response(item, default_date)
    body = _body(item)
    headers = _header_pairs(item.get("headers") or [])
    host = urllib.parse.urlsplit(item["url"]).netloc
    return Response(url=item["url"], status=int(item.get("status") or 200), reason=item.get("reason") or "",
                    headers=headers, content=body, content_type=_mime_type(headers), encoding="utf-8",
                    request_headers=_header_pairs(item.get("request_headers") or [("Host", host)]),
                    fetched_at=item.get("fetched_at") or default_date or _now(),
                    method=item.get("method") or "GET", protocol=item.get("protocol") or "HTTP/1.1")


def exchange_records(resp: Response | dict) -> bytes:
    """Request and response record of one fetch, together (they belong in one file)."""
    return request_record(resp) + response_record(resp)


def resources_records(items: list[dict], date: str | None = None) -> bytes:
    """Request/response pairs of the resources a browser fetched for one page."""
    return b"".join(exchange_records(resource_response(it, date)) for it in items or [])


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
