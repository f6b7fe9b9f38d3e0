"""Download one URL safely: the only place blogharvest speaks HTTP.

Why it is more than `requests.get`:

* Every redirect hop is checked against the SSRF guard (tasks/fetch/guard.py), so a
  public blog cannot bounce a worker onto 169.254.169.254 or the cluster's Redis.
  One parser (`parse_url`) decides the host for the guard and for the socket; the
  socket connects to the very address the guard approved (pinned, no second DNS
  answer) and its peer is checked again after `connect()`. Proxies and ~/.netrc
  from the environment are ignored (`trust_env` off).
* A wall-clock deadline bounds the whole request, headers and body included: a
  watchdog shuts the socket down when it expires, so a server trickling one byte
  a second cannot hold a worker (socket timeouts alone only bound each `recv`).
* The body is streamed and cut at `max_bytes` (decoded size, so gzip bombs stop too).
* Charset is resolved the way browsers do (BOM, header, <meta>, XML declaration,
  then detection) and `Response.text` never raises.

Everything returned is plain data: `Response.to_dict()` and `FetchError.to_dict()`
are JSON-safe so Celery tasks can pass them around.
"""
from __future__ import annotations

import base64
import email.utils
import heapq
import itertools
import os
import socket
import threading
import time
import urllib.parse
from dataclasses import dataclass, field, fields
from datetime import datetime, timezone

import requests
import urllib3.connection
import urllib3.connectionpool
import urllib3.util.connection
import urllib3.exceptions

from tasks.fetch.charset import decode, detect_encoding, text_codec
from tasks.fetch.errors import KINDS, FetchError
from tasks.fetch.guard import (ENV_ALLOW_PRIVATE, AllowPrivate, Target, allowed as _allowed, blocked_ip,
                               check_address, normalize_url, parse_url)

__all__ = ["FetchError", "KINDS", "Response", "fetch", "make_session", "check_address", "blocked_ip",
           "parse_url", "normalize_url", "Target", "ENV_ALLOW_PRIVATE", "AllowPrivate", "looks_binary",
           "media_type", "parse_retry_after"]

DEFAULT_UA = "Mozilla/5.0 (compatible; blogharvest/0.1; web archiving)"
DEFAULT_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
REDIRECT_CODES = (301, 302, 303, 307, 308)

@dataclass
class Response:
    url: str  # final URL, after redirects
    status: int
    reason: str
    headers: list  # [(name, value)] as received, in order, duplicates kept
    content: bytes  # decoded of any Content-Encoding (gzip/deflate)
    content_type: str | None  # media type only, lower case ("text/html")
    encoding: str  # codec name that `text` uses; always valid
    request_headers: list = field(default_factory=list)  # [(name, value)] as sent, Host first
    redirects: list = field(default_factory=list)  # URLs that redirected, in order; not the final one
    elapsed: float = 0.0  # seconds, all hops
    fetched_at: str = ""  # ISO 8601 UTC with microseconds (the WARC-Date)
    protocol: str = "HTTP/1.1"  # for the archived status line
    method: str = "GET"
    hops: list = field(default_factory=list)  # the redirects as served: [{"url", "status", "reason", "headers", "request_headers", "fetched_at", "protocol", "method"}] (for the WARC)

    def header(self, name: str, default: str | None = None) -> str | None:
        """First value of a header, case-insensitive."""
        name = name.lower()
        return next((v for k, v in self.headers if k.lower() == name), default)

    @property
    def text(self) -> str:
        return decode(self.content, self.encoding)

    @property
    def looks_binary(self) -> bool:
        """True for images, archives and the like, even when served as text/html."""
        return looks_binary(self.content, self.encoding)

    def to_dict(self) -> dict:
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d["content"] = base64.b64encode(self.content).decode("ascii")
        d["headers"] = [list(h) for h in self.headers]
        d["request_headers"] = [list(h) for h in self.request_headers]
        d["redirects"] = list(self.redirects)
        d["hops"] = [dict(h) for h in self.hops]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Response":
        known = {f.name for f in fields(cls)}
        kw = {k: v for k, v in d.items() if k in known}
        kw["content"] = base64.b64decode(d["content"])
        kw["headers"] = [tuple(h) for h in d.get("headers", [])]
        kw["request_headers"] = [tuple(h) for h in d.get("request_headers", [])]
        return cls(**kw)


# ---------------------------------------------------------------------------
# Per-request guard: deadline watchdog and connect-time peer check.
# requests runs the whole exchange in the calling thread, so a thread-local tells
# the urllib3 connection which fetch it is serving.

_local = threading.local()


class _Guard:
    """One fetch's deadline: when it passes, the fetch's sockets are shut down, which wakes
    a read blocked in any thread (socket timeouts bound each read, not the whole fetch)."""

    def __init__(self, deadline: float, allow_private: AllowPrivate):
        self.deadline = deadline
        self.allow_private = allow_private
        self.url = ""
        self.pins: dict = {}  # (host, port) -> the address check_address approved
        self.blocked: FetchError | None = None
        self.fired = False
        self.done = False
        self._socks: list = []
        self._lock = threading.Lock()
        _WATCHDOG.add(self)

    def watch(self, sock) -> None:
        with self._lock:
            self._socks.append(sock)
            fired = self.fired
        if fired:
            _shutdown(sock)

    def fire(self) -> None:
        with self._lock:
            if self.done:
                return
            self.fired = True
            socks, self._socks = self._socks, []
        for s in socks:
            _shutdown(s)

    def cancel(self) -> None:
        with self._lock:
            self.done = True
            self._socks = []


class _Watchdog:
    """One thread per process fires the guards whose deadline passed (a timer thread
    started per request costs more than the request on loopback)."""

    def __init__(self):
        self._reset()
        os.register_at_fork(after_in_child=self._reset)  # a forked child starts its own

    def _reset(self) -> None:
        self._heap: list = []
        self._cond = threading.Condition()
        self._seq = itertools.count()
        self._thread: threading.Thread | None = None

    def add(self, guard: _Guard) -> None:
        with self._cond:
            heapq.heappush(self._heap, (guard.deadline, next(self._seq), guard))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="fetch-watchdog", daemon=True)
                self._thread.start()
            elif self._heap[0][2] is guard:
                self._cond.notify()  # an earlier deadline than the one it sleeps towards

    def _run(self) -> None:
        while True:
            due = []
            with self._cond:
                now = time.monotonic()
                while self._heap and (self._heap[0][2].done or self._heap[0][0] <= now):
                    g = heapq.heappop(self._heap)[2]
                    if not g.done:
                        due.append(g)
                if not due:
                    self._cond.wait(self._heap[0][0] - now if self._heap else None)
            for g in due:
                g.fire()


_WATCHDOG = _Watchdog()


def _shutdown(sock) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)  # wakes a recv() blocked in another thread
    except OSError:
        pass


class _GuardedMixin:
    def _new_conn(self):
        guard = getattr(_local, "guard", None)
        pinned = guard.pins.get((self.host, self.port)) if guard is not None else None
        if pinned is not None and getattr(self, "proxy", None) is None:
            # connect to the address the guard checked, never to a second DNS answer
            try:
                sock = urllib3.util.connection.create_connection(
                    (pinned, self.port), self.timeout, source_address=self.source_address,
                    socket_options=self.socket_options)
            except socket.timeout as e:
                raise urllib3.exceptions.ConnectTimeoutError(self, f"connect to {pinned} timed out") from e
            except OSError as e:
                raise urllib3.exceptions.NewConnectionError(self, f"cannot connect to {pinned}: {e}") from e
        else:
            sock = super()._new_conn()
        if guard is not None:
            guard.watch(sock)
            if getattr(self, "proxy", None) is None and not _allowed(guard.url, guard.allow_private):
                try:
                    peer = sock.getpeername()[0]
                except OSError:
                    peer = None
                reason = peer and blocked_ip(peer)
                if reason:
                    sock.close()
                    guard.blocked = FetchError("private_address", guard.url,
                                               f"connected to {peer}: {reason}")
                    raise urllib3.exceptions.NewConnectionError(self, "refused: " + reason)
        return sock

    def getresponse(self, *a, **kw):
        guard = getattr(_local, "guard", None)
        if guard is not None and self.sock is not None:
            guard.watch(self.sock)  # a kept-alive connection from an earlier fetch
        return super().getresponse(*a, **kw)


class _HTTPConnection(_GuardedMixin, urllib3.connection.HTTPConnection):
    pass


class _HTTPSConnection(_GuardedMixin, urllib3.connection.HTTPSConnection):
    pass


class _HTTPPool(urllib3.connectionpool.HTTPConnectionPool):
    ConnectionCls = _HTTPConnection


class _HTTPSPool(urllib3.connectionpool.HTTPSConnectionPool):
    ConnectionCls = _HTTPSConnection


class _GuardedAdapter(requests.adapters.HTTPAdapter):
    def init_poolmanager(self, *a, **kw):
        super().init_poolmanager(*a, **kw)
        self.poolmanager.pool_classes_by_scheme = {"http": _HTTPPool, "https": _HTTPSPool}

    def proxy_manager_for(self, *a, **kw):
        manager = super().proxy_manager_for(*a, **kw)
        manager.pool_classes_by_scheme = {"http": _HTTPPool, "https": _HTTPSPool}
        return manager


def make_session(user_agent: str = DEFAULT_UA) -> requests.Session:
    """A requests session whose connections honour fetch()'s deadline and peer check."""
    s = requests.Session()
    s.headers["User-Agent"] = user_agent
    s.trust_env = False  # no HTTP(S)_PROXY or ~/.netrc from the environment: a proxy is configured or none
    _mount(s)
    return s


def _mount(session: requests.Session) -> None:
    session.trust_env = False
    if not isinstance(session.get_adapter("http://example.org/"), _GuardedAdapter):
        session.mount("http://", _GuardedAdapter())
        session.mount("https://", _GuardedAdapter())


# ---------------------------------------------------------------------------
# fetch


def fetch(url: str, *, timeout: float = 20.0, max_bytes: int = 10_000_000,
          max_redirects: int = 10, allow_private: AllowPrivate = None,
          user_agent: str = DEFAULT_UA, session: requests.Session | None = None,
          accept: str | None = None, headers: dict | None = None, method: str = "GET",
          follow_redirects: bool = True, raise_for_status: bool = True) -> Response:
    """GET `url`, following redirects, within `timeout` seconds of wall clock in total.

    Raises FetchError; HTTP statuses >= 400 are errors (kind "http_status") unless
    `raise_for_status` is False. With `follow_redirects` False a 3xx is returned as it is
    (the browser proxy hands it to Chromium, which asks again, through the guard).
    `headers` are extra request headers; `method` is GET or HEAD.
    A caller-supplied `session` gets the guarded adapter mounted on it.
    """
    own = session is None
    session = session or make_session(user_agent)
    _mount(session)
    headers = _outgoing_headers(headers, user_agent, accept)
    start = time.monotonic()
    fetched_at = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    guard = _Guard(start + timeout, allow_private)
    previous = getattr(_local, "guard", None)
    _local.guard = guard
    redirects: list[str] = []
    hops: list[dict] = []
    seen: set[str] = set()
    current = url
    try:
        while True:
            current = _enter_hop(current, url, allow_private, guard, seen, redirects)
            r = _send(session, method, current, headers, guard, timeout)
            try:
                location = _location(r) if r.status_code in REDIRECT_CODES else None
                if location is None or not follow_redirects:
                    resp = _finish(r, guard, timeout, max_bytes, redirects, start, fetched_at,
                                   raise_for_status)
                    resp.hops = hops
                    return resp
                hops.append(_hop(r, fetched_at if not hops else None))
            finally:
                r.close()
            current = _next_hop(current, location, url, redirects, max_redirects)
    finally:
        guard.cancel()
        _local.guard = previous
        if own:
            session.close()


def _outgoing_headers(headers: dict | None, user_agent: str, accept: str | None) -> dict:
    """The caller's headers with our User-Agent; `accept` over theirs, theirs over the default."""
    headers = dict(headers or {}, **{"User-Agent": user_agent})
    headers.setdefault("Accept", accept or DEFAULT_ACCEPT)
    if accept:
        headers["Accept"] = accept
    return headers


def _enter_hop(current: str, url: str, allow_private: AllowPrivate, guard: _Guard, seen: set,
               redirects: list) -> str:
    """The hop's canonical URL, checked by the guard (one parse for guard and socket), its
    address pinned for the connection; a URL met before on this fetch is a redirect loop."""
    target = check_address(current, allow_private)
    current = target.url
    if current in seen:
        raise FetchError("redirect_loop", url, f"redirect loop: {redirects[-1]} -> {current}")
    seen.add(current)
    guard.url = current
    if target.address is not None:
        guard.pins[(target.host, target.port)] = target.address
    return current


def _send(session: requests.Session, method: str, current: str, headers: dict, guard: _Guard,
          timeout: float) -> requests.Response:
    """One request, redirects not followed, body streamed, within what is left of the deadline."""
    remaining = guard.deadline - time.monotonic()
    if remaining <= 0:
        raise FetchError("timeout", current, f"no response within {timeout:g} s")
    try:
        return session.request(method, current, headers=headers, allow_redirects=False, stream=True,
                               timeout=(min(remaining, 10.0), remaining))
    except requests.RequestException as e:
        raise _classify(e, current, guard, timeout) from None
    except (ValueError, UnicodeError) as e:  # requests parses a redirect's Location eagerly
        raise FetchError("bad_url", current, f"malformed reply (Location?): {type(e).__name__}: {e}") from None


def _next_hop(current: str, location: str, url: str, redirects: list, max_redirects: int) -> str:
    """Where a redirect from `current` leads; `current` joins the redirects, at most `max_redirects`."""
    try:
        nxt = urllib.parse.urljoin(current, location)
    except ValueError as e:  # "http://[::1" and the like
        raise FetchError("bad_url", current, f"malformed Location header {location!r}: {e}") from None
    redirects.append(current)
    if len(redirects) > max_redirects:
        raise FetchError("too_many_redirects", url, f"more than {max_redirects} redirects")
    return nxt


def _location(r: requests.Response) -> str | None:
    """The Location header as sent (latin-1 bytes read as UTF-8, as browsers do), or None."""
    value = r.headers.get("Location")
    if value is None:
        return None
    try:
        value = value.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        pass
    value = value.strip()
    return value or None


# http.client's complaints about a reply no retry will mend
_BAD_REPLY = ("got more than", "header line", "line too long", "HeaderParsingError", "LineTooLong",
              "InvalidHeader", "UnknownProtocol", "BadStatusLine")


def _classify(e: Exception, url: str, guard: _Guard, timeout: float) -> FetchError:
    if guard.blocked is not None:
        return guard.blocked
    if guard.fired or isinstance(e, requests.Timeout) or time.monotonic() >= guard.deadline - 0.05:
        return FetchError("timeout", url, f"no complete response within {timeout:g} s")
    if isinstance(e, (requests.exceptions.InvalidURL, requests.exceptions.MissingSchema,
                      requests.exceptions.InvalidSchema, requests.exceptions.InvalidHeader)):
        return FetchError("bad_url", url, str(e))
    text = _chain_text(e)
    if any(marker in text for marker in _BAD_REPLY) and "RemoteDisconnected" not in text:
        return FetchError("bad_response", url, f"malformed reply: {type(e).__name__}: {e}")
    return FetchError("connection", url, f"{type(e).__name__}: {e}")


def _chain_text(e: BaseException) -> str:
    """Type names and messages of an exception and its causes (requests wraps http.client's)."""
    out, seen = [], set()
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        out.append(f"{type(e).__name__}: {e}")
        for arg in getattr(e, "args", ()):
            if isinstance(arg, BaseException):
                out.append(_chain_text(arg))
        reason = getattr(e, "reason", None)
        if isinstance(reason, BaseException):
            out.append(_chain_text(reason))
        e = e.__cause__ or e.__context__
    return " | ".join(out)


def _finish(r: requests.Response, guard: _Guard, timeout: float, max_bytes: int,
            redirects: list, start: float, fetched_at: str, raise_for_status: bool = True) -> Response:
    if raise_for_status:
        _refuse_error_status(r)
    content = _read_body(r, guard, timeout, max_bytes)
    ctype = r.headers.get("Content-Type")
    return Response(
        url=r.url, status=r.status_code, reason=r.reason or "", headers=_raw_headers(r),
        content=content, content_type=media_type(ctype),
        encoding=detect_encoding(content, ctype), request_headers=_request_headers(r),
        redirects=list(redirects), elapsed=round(time.monotonic() - start, 6),
        fetched_at=fetched_at, protocol=_protocol(r), method=r.request.method or "GET")


def _refuse_error_status(r: requests.Response) -> None:
    """An HTTP status of 400 or more is a FetchError, with the server's Retry-After."""
    if r.status_code < 400:
        return
    retry_after = parse_retry_after(r.headers.get("Retry-After"))
    msg = f"HTTP {r.status_code} {r.reason or ''}".strip()
    if retry_after is not None:
        msg += f", retry after {retry_after:g} s"
    raise FetchError("http_status", r.url, msg, status=r.status_code, retry_after=retry_after)


def _read_body(r: requests.Response, guard: _Guard, timeout: float, max_bytes: int) -> bytes:
    """The whole body, refused over `max_bytes` (announced or read) or when the deadline cut it."""
    length = r.headers.get("Content-Length", "")
    if length.strip().isdigit() and int(length) > max_bytes:
        raise FetchError("too_large", r.url, f"Content-Length {int(length)} exceeds {max_bytes} bytes")
    chunks, size = [], 0
    try:
        for chunk in r.iter_content(65536):
            size += len(chunk)
            if size > max_bytes:
                raise FetchError("too_large", r.url, f"body exceeds {max_bytes} bytes")
            chunks.append(chunk)
            if guard.fired:
                break
    except requests.RequestException as e:
        raise _classify(e, r.url, guard, timeout) from None
    if guard.fired:  # a cut-off stream can look like a normal end of body
        raise FetchError("timeout", r.url, f"body not complete within {timeout:g} s")
    return b"".join(chunks)


def _request_headers(r: requests.Response) -> list:
    req = r.request
    host = urllib.parse.urlsplit(req.url).netloc.rsplit("@", 1)[-1]
    return [("Host", host)] + [(k, v) for k, v in req.headers.items() if k.lower() != "host"]


def _hop(r: requests.Response, fetched_at: str | None) -> dict:
    """A redirect as served (status, headers; its body is not read), for the WARC: replay of
    the URL a blog links then redirects as the blog did."""
    return {"url": r.url, "status": r.status_code, "reason": r.reason or "",
            "headers": [list(h) for h in _raw_headers(r)],
            "request_headers": [list(h) for h in _request_headers(r)],
            "fetched_at": fetched_at or datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
            "protocol": _protocol(r), "method": r.request.method or "GET"}


def _raw_headers(r: requests.Response) -> list:
    original = getattr(r.raw, "_original_response", None)
    msg = getattr(original, "msg", None)
    if msg is not None:
        return [(k, v) for k, v in msg.items()]
    return list(r.raw.headers.items())


def _protocol(r: requests.Response) -> str:
    return {9: "HTTP/0.9", 10: "HTTP/1.0", 11: "HTTP/1.1", 20: "HTTP/2"}.get(
        getattr(r.raw, "version", 11), "HTTP/1.1")


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Retry-After as seconds from now: a delta ("120") or an HTTP-date."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, round(when.timestamp() - (time.time() if now is None else now), 3))


# ---------------------------------------------------------------------------
# Content type, charset, binary sniffing


def media_type(content_type: str | None) -> str | None:
    """'Text/HTML; charset=x' -> 'text/html'."""
    if not content_type:
        return None
    return content_type.split(";", 1)[0].strip().lower() or None


_MAGIC = (b"\x89PNG\r\n\x1a\n", b"GIF87a", b"GIF89a", b"\xff\xd8\xff", b"%PDF-", b"PK\x03\x04",
          b"\x1f\x8b\x08", b"RIFF", b"OggS", b"fLaC", b"\x1a\x45\xdf\xa3", b"7z\xbc\xaf\x27\x1c",
          b"Rar!\x1a", b"\x7fELF")
_CONTROL = bytes(b for b in range(32) if b not in (9, 10, 12, 13)) + b"\x7f"


def looks_binary(content: bytes, encoding: str = "utf-8") -> bool:
    """Magic numbers, NUL bytes or many control characters in the first 8 KiB."""
    sample = content[:8192]
    if not sample:
        return False
    if sample.startswith(_MAGIC) or sample[4:8] == b"ftyp":
        return True
    encoding = text_codec(encoding) or "utf-8"
    if encoding.startswith(("utf-16", "utf-32")):
        text = sample.decode(encoding, errors="replace")
        bad = sum(1 for ch in text if ord(ch) < 32 and ch not in "\t\n\f\r" or ch == "\ufffd")
        return bad > len(text) * 0.05
    if b"\x00" in sample:
        return True
    controls = len(sample) - len(sample.translate(None, _CONTROL))
    return controls > len(sample) * 0.05
