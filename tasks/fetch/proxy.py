"""A guarding HTTP proxy on loopback that headless Chromium is pointed at: the browser obeys the guard.

Why a proxy and not request interception: Selenium's `execute_cdp_cmd` cannot receive CDP
events (`Fetch.requestPaused`), and a proxy sees every request the browser makes (frames,
scripts, images, fetch/XHR, redirects, service workers) in one place. Each request is
fetched with `tasks.fetch.http.fetch` itself, so it meets the same URL parser, address
guard, pinning, deadline and size cap as the crawler's own fetches. Redirects are handed
back to Chromium, whose next request comes through here again and is checked again.

HTTPS arrives as CONNECT host:port: the target is checked and pinned like any URL, then the
bytes are relayed as they are (no interception: those resources are not recorded).

Local Chromium finds it on loopback; a remote Selenium Grid's browser on the address given by
a `Listen` (grid.py), where only the Grid's own addresses are served (`Listen.clients`: any
other peer's connection is closed unread, so the proxy is never open to the network).

It also records what the browser fetched (`take()`): every resource as a
`Response.to_dict()` (url, status, headers, content base64 ...), so the WARC can hold what the
rendered page was made of, and every refused request as a `FetchError.to_dict()`.
"""
from __future__ import annotations

import errno
import re
import http.server
import select
import socket
import sys
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import requests

from tasks.fetch.grid import Listen
from tasks.fetch.guard import AllowPrivate, allowed, blocked_ip, check_address
from tasks.fetch.http import DEFAULT_UA, FetchError, Response, fetch, make_session

__all__ = ["GuardingProxy", "CHROMIUM_PROXY_FLAGS"]

# request headers passed on from the browser (the rest are hop-by-hop, or the client's own)
_FORWARD = {"accept", "accept-language", "cookie", "referer", "x-requested-with", "origin",
            "cache-control", "pragma", "if-none-match", "if-modified-since"}
# reply headers not passed back: the client decoded the body and sends its own length
# what a page shows, not what its scripts do: left unfetched while `pictures` is off
_PICTURE = re.compile(r"\.(?:png|jpe?g|gif|webp|avif|bmp|ico|svg|woff2?|ttf|otf|eot|mp4|webm|mov|mp3|ogg|wav|m4a)$",
                      re.I)
_STYLE = re.compile(r"\.css$", re.I)  # a stylesheet: how the text looks (answered empty while `pictures` is off)
_DROP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "content-encoding",
         "content-length", "proxy-authenticate", "trailer", "upgrade", "te"}
_REFUSED_KINDS = ("private_address", "bad_url", "bad_scheme")


def chromium_flags(port: int, host: str = "127.0.0.1") -> tuple[str, ...]:
    """Chromium's flags to send everything, loopback included, through the proxy at
    `host`:`port` (it bypasses proxies for loopback unless told `<-loopback>`), and no UDP
    around it."""
    netloc = f"[{host}]" if ":" in host else host
    return (f"--proxy-server=http://{netloc}:{port}", "--proxy-bypass-list=<-loopback>",
            "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
            "--webrtc-ip-handling-policy=disable_non_proxied_udp", "--disable-quic",
            "--dns-prefetch-disable")


CHROMIUM_PROXY_FLAGS = chromium_flags


@dataclass
class _Record:
    resources: list = field(default_factory=list)
    refused: list = field(default_factory=list)
    tunnels: list = field(default_factory=list)
    recorded_bytes: int = 0
    dropped: int = 0  # resources served but not recorded (over the record budget)


class _Server(http.server.ThreadingHTTPServer):
    """The proxy's listener: one port per proxy (no SO_REUSEPORT sharing), no reverse DNS
    of its own address, and only the clients `listen.clients` admits."""
    allow_reuse_port = False
    daemon_threads = True
    listen: Listen
    rejected = 0  # connections closed unread: not a client the proxy serves

    def server_bind(self):
        import socketserver

        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[0], self.server_address[1]

    def verify_request(self, request, client_address) -> bool:
        if self.listen.clients is None or self.listen.clients(client_address[0]):
            return True
        self.rejected += 1
        return False

    def handle_error(self, request, client_address):
        """A browser that hung up before the proxy's answer (a refused CONNECT it gave up on) is
        no error of the proxy's: not a traceback in the worker's log. Anything else is."""
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)


class GuardingProxy:
    """`with GuardingProxy(allow_private=...) as p:` serves on 127.0.0.1:`p.port`, or where
    `listen` says (grid.py: on an address a Selenium Grid reaches, for its addresses only).

    `max_bytes` caps each resource, `timeout` each request (wall clock), `record_bytes` what
    one `take()` may hold (beyond it resources are served, counted in `dropped`, not kept).
    """

    def __init__(self, allow_private: AllowPrivate = None, *, timeout: float = 20.0,
                 max_bytes: int = 15_000_000, record_bytes: int = 100_000_000,
                 user_agent: str = DEFAULT_UA, record: bool = True, listen: Listen | None = None):
        self.allow_private = allow_private
        self.listen = listen or Listen()
        self.timeout, self.max_bytes, self.record_bytes = timeout, max_bytes, record_bytes
        self.user_agent = user_agent
        self.record = record
        self._rec = _Record()
        self._documents: dict[str, bytes] = {}  # url -> a page the crawler read already (serve_document)
        self.pictures = True  # False: images, fonts, media and stylesheets answered unfetched (a render that reads text only)
        self._lock = threading.Lock()
        self._local = threading.local()
        self._server: _Server | None = None
        self.port = 0

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> "GuardingProxy":
        outer = self

        class Handler(_Handler):
            proxy = outer

        self._server = _bind(self.listen, Handler)
        self.port = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.2},
                         name="guarding-proxy", daemon=True).start()
        return self

    def close(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> "GuardingProxy":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def flags(self) -> tuple[str, ...]:
        return chromium_flags(self.port, self.listen.advertise)

    @property
    def rejected(self) -> int:
        """Connections closed unread: their peer is not a client this proxy serves."""
        return self._server.rejected if self._server is not None else 0

    # ------------------------------------------------------------------ records

    def take(self) -> dict:
        """What the browser fetched since the last take: {"resources": [Response.to_dict()],
        "refused": [FetchError.to_dict()], "tunnels": [url], "dropped": n}."""
        with self._lock:
            rec, self._rec = self._rec, _Record()
        return {"resources": rec.resources, "refused": rec.refused, "tunnels": rec.tunnels,
                "dropped": rec.dropped}

    def refused_top(self, url: str) -> str | None:
        """Why the guard refused `url` (a page's own address) since the last take, else None."""
        from tasks.fetch.guard import parse_url

        try:
            canonical = parse_url(url).url
        except FetchError as e:
            return f"{e.kind}: {e.message}"
        with self._lock:
            for e in self._rec.refused:
                if e["url"] in (url, canonical):
                    return f"{e['kind']}: {e['message']}"
        return None

    def serve_document(self, url: str, html: str | None) -> None:
        """The browser's GETs of exactly `url` are answered with `html` (a page the crawler
        fetched through the guard already), not fetched from its server again (the navigation,
        and the page's own scripts or frames asking for it while it renders); None forgets it."""
        with self._lock:
            if html is None:
                self._documents.pop(url, None)
            else:
                self._documents[url] = html.encode("utf-8", "replace")[:self.max_bytes]

    def _document(self, url: str) -> bytes | None:
        with self._lock:
            return self._documents.get(url)

    def _note(self, resp: Response | None = None, error: FetchError | None = None,
              tunnel: str | None = None) -> None:
        with self._lock:
            if error is not None:
                self._rec.refused.append(error.to_dict())
            if tunnel is not None:
                self._rec.tunnels.append(tunnel)
            if resp is not None and self.record:
                if self._rec.recorded_bytes + len(resp.content) > self.record_bytes:
                    self._rec.dropped += 1
                else:
                    self._rec.recorded_bytes += len(resp.content)
                    self._rec.resources.append(resp.to_dict())

    def session(self) -> requests.Session:
        """One session per proxy thread (keep-alive), no cookies kept: the browser sends its own."""
        s = getattr(self._local, "session", None)
        if s is None:
            s = self._local.session = make_session(self.user_agent)
        s.cookies.clear()
        return s


def _bind(listen: Listen, handler) -> _Server:
    """A server listening as `listen` says: the first free port of its range."""
    class Server(_Server):
        address_family = socket.AF_INET6 if ":" in listen.bind else socket.AF_INET

    Server.listen = listen
    last = None
    for port in listen.candidates():
        try:
            return Server((listen.bind, port), handler)
        except OSError as e:
            if e.errno != errno.EADDRINUSE:
                raise
            last = e
    raise OSError(errno.EADDRINUSE, f"no free port for the guarding proxy in {listen.ports[0]}-{listen.ports[1]} "
                                    f"on {listen.bind}") from last


class _Handler(http.server.BaseHTTPRequestHandler):
    proxy: GuardingProxy
    protocol_version = "HTTP/1.1"
    timeout = 60  # an idle browser connection is closed after this

    def log_message(self, *a):
        pass

    def _reply(self, status: int, body: bytes, headers: list, head_only: bool = False) -> None:
        self.send_response(status)
        for k, v in headers:
            if k.lower() not in _DROP:
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head_only:
            self.wfile.write(body)

    def _refuse(self, e: FetchError, head_only: bool = False) -> None:
        self.proxy._note(error=e)
        status = 403 if e.kind in _REFUSED_KINDS else 504 if e.kind == "timeout" else 502
        body = f"blogharvest proxy refused: {e.kind}".encode()
        self._reply(status, body, [("Content-Type", "text/plain; charset=utf-8"),
                                   ("X-Blogharvest-Refused", e.kind)], head_only)

    def _forward(self, head_only: bool = False) -> None:
        url = self.path
        if not url.startswith(("http://", "https://")):
            self._refuse(FetchError("bad_url", url, "not an absolute-form proxy request"), head_only)
            return
        headers = {k: v for k, v in self.headers.items() if k.lower() in _FORWARD}
        p = self.proxy
        if not p.pictures and _is_picture(url, self.headers.get("Accept") or ""):
            self._reply(204, b"", [])
            return
        if not p.pictures and _is_style(url, self.headers.get("Accept") or ""):
            self._reply(200, b"", [("Content-Type", "text/css")])  # empty: its load events still fire
            return
        document = None if head_only else p._document(url)
        if document is not None:  # read by the crawler already (in its WARC): not asked of the server again
            self._reply(200, document, [("Content-Type", "text/html; charset=utf-8")])
            return
        try:
            resp = fetch(url, timeout=p.timeout, max_bytes=p.max_bytes, max_redirects=0,
                         allow_private=p.allow_private, user_agent=self.headers.get("User-Agent") or p.user_agent,
                         session=p.session(), headers=headers, method="HEAD" if head_only else "GET",
                         follow_redirects=False, raise_for_status=False)
        except FetchError as e:
            self._refuse(e, head_only)
            return
        except Exception as e:  # never let one request take the proxy thread down silently
            self._refuse(FetchError("connection", url, f"{type(e).__name__}: {e}"), head_only)
            return
        p._note(resp)
        self._reply(resp.status, resp.content, resp.headers, head_only)

    def do_GET(self):
        self._forward()

    def do_HEAD(self):
        self._forward(head_only=True)

    def _no_method(self):
        length = int(self.headers.get("Content-Length") or 0)
        if 0 < length <= 1_000_000:
            self.rfile.read(length)
        else:
            self.close_connection = True
        self._refuse(FetchError("bad_scheme", self.path, f"method {self.command} is not proxied (GET/HEAD only)"))

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _no_method

    def do_CONNECT(self):
        p = self.proxy
        host, _, port = self.path.rpartition(":")
        url = f"https://{host}:{port}/"
        try:
            target = check_address(url, p.allow_private)
            sock = socket.create_connection((target.address or target.host, target.port), timeout=10)
        except FetchError as e:
            self.close_connection = True
            self._refuse(e)
            return
        except OSError as e:
            self.close_connection = True
            self._refuse(FetchError("connection", url, str(e)))
            return
        if not allowed(target.url, p.allow_private):
            reason = blocked_ip(sock.getpeername()[0])
            if reason:
                sock.close()
                self.close_connection = True
                self._refuse(FetchError("private_address", url, f"connected to a {reason}"))
                return
        p._note(tunnel=target.url)
        self.send_response(200, "Connection established")
        self.end_headers()
        self.close_connection = True
        _relay(self.connection, sock, deadline=time.monotonic() + max(p.timeout, 60.0))


def _relay(a: socket.socket, b: socket.socket, deadline: float) -> None:
    """Copy bytes both ways until either side closes or the deadline passes."""
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([a, b], [], [], 1.0)
            for s in ready:
                data = s.recv(65536)
                if not data:
                    return
                (b if s is a else a).sendall(data)
    except OSError:
        pass
    finally:
        b.close()


def _is_kind(url: str, accept: str, accepted: str, extension: re.Pattern) -> bool:
    """Is the request for a resource of one kind, by what the browser accepts (`accepted` first:
    Chromium asks stylesheets with `text/css,*/*;q=0.1`, images with `image/...`) or the URL's extension?"""
    if accept.lower().startswith(accepted):
        return True
    try:
        return bool(extension.search(urlsplit(url).path))
    except ValueError:
        return False


def _is_style(url: str, accept: str) -> bool:
    """A stylesheet."""
    return _is_kind(url, accept, "text/css", _STYLE)


def _is_picture(url: str, accept: str) -> bool:
    """An image, a font or a media file."""
    return _is_kind(url, accept, "image/", _PICTURE)
