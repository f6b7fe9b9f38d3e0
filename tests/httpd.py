"""A threaded loopback HTTP server over a routing function: the one server every test uses.

Routes are a callable `handler(request) -> Reply` or a dict `{path: Reply}`; the farm of
test blogs and the small unit-test sites are both served through it, so there is one
place that speaks HTTP in the test suite.
"""
from __future__ import annotations

import http.server
import socket
import threading
import urllib.parse
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Iterable


@dataclass
class Request:
    method: str
    path: str  # path with query, as sent
    headers: dict

    @property
    def split(self):
        return urllib.parse.urlsplit(self.path)


@dataclass
class Reply:
    status: int = 200
    body: bytes | str | Iterable[bytes] = b""
    headers: dict = field(default_factory=dict)
    content_type: str | None = "text/html; charset=utf-8"
    delay: float = 0.0  # seconds before the body is sent (slow-server fault)
    cookies: list = field(default_factory=list)  # Set-Cookie values, one header each

    def encoded(self) -> bytes | Iterable[bytes]:
        return self.body.encode("utf-8") if isinstance(self.body, str) else self.body


Handler = Callable[[Request], Reply]


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


class LoopbackServer:
    """Serve `routes` on 127.0.0.1 (or another loopback address, `host`: one per blog, as real
    blogs are on hosts of their own) on a free port for the life of the `with` block."""

    def __init__(self, routes: Handler | dict[str, Reply], host: str = "127.0.0.1", port: int = 0):
        self.host = host
        self._port = port  # 0: the kernel picks a free one as the socket binds (no race for it)
        if isinstance(routes, dict):
            table = routes
            routes = lambda req: table.get(req.path) or table.get(req.split.path) or Reply(404, "not found")
        self.routes = routes
        self.hits: Counter = Counter()
        self._closing = threading.Event()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    def __enter__(self) -> "LoopbackServer":
        outer = self

        class H(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_GET(self):
                outer.hits[self.path] += 1
                req = Request(self.command, self.path, {k.lower(): v for k, v in self.headers.items()})
                try:
                    rep = outer.routes(req)
                except Exception as e:  # a broken route is a 500, not a hung test
                    rep = Reply(500, f"route error: {e!r}", content_type="text/plain")
                body = rep.encoded()
                self.send_response(rep.status)
                if rep.content_type:
                    self.send_header("Content-Type", rep.content_type)
                for k, v in rep.headers.items():
                    self.send_header(k, v)
                for c in rep.cookies:
                    self.send_header("Set-Cookie", c)
                if isinstance(body, bytes):
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    if rep.delay and outer._closing.wait(rep.delay):
                        return
                    if self.command != "HEAD":
                        self._write(body)
                else:  # a stream: no length, close at the end
                    self.send_header("Connection", "close")
                    self.end_headers()
                    self.close_connection = True
                    if self.command != "HEAD":
                        for chunk in body:
                            if outer._closing.is_set() or not self._write(chunk):
                                break

            def _write(self, data: bytes) -> bool:
                try:
                    self.wfile.write(data)
                    return True
                except (BrokenPipeError, ConnectionResetError):
                    return False

            do_HEAD = do_GET

        self.server = http.server.ThreadingHTTPServer((self.host, self._port), H)
        self.port = self.server.server_address[1]
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self._closing.set()
        self.server.shutdown()
        self.server.server_close()
