"""Serve one farm blog over loopback, with live faults and a request counter.

`FarmServer(blog, faults)` is a `with` block around tests.httpd.LoopbackServer: every
request is rendered from the blog at that moment (so `add_posts` shows up at once), after
the fault table (tests/farm/faults.py) has had its say.
"""
from __future__ import annotations

import socket
import threading
import urllib.parse

from tests.httpd import LoopbackServer, Reply, Request

from .blog import Blog
from .faults import Faults, apply, error_page, robots_with


class FarmServer:
    """A farm blog on http://127.0.0.1:PORT/ (or `host`, another loopback address) for the life
    of the `with` block."""

    def __init__(self, blog: Blog, faults: dict | None = None, port: int | None = None, host: str = "127.0.0.1"):
        self.blog = blog
        self.faults = Faults(faults)
        self._lock = threading.RLock()
        self.host = host
        self._server = LoopbackServer(self.handle, host=host, port=port or 0)

    # ---------------------------------------------------------------- lifecycle

    def __enter__(self) -> "FarmServer":
        self._server.__enter__()
        # headers and body go out in two writes; without TCP_NODELAY each keep-alive
        # request waits ~40 ms for the client's delayed ACK (Nagle)
        self._server.server.RequestHandlerClass.disable_nagle_algorithm = True
        return self

    def __exit__(self, *exc):
        # serve_forever polls for shutdown every 0.5 s: raise its flag and wake its select()
        # with one connection, so a test's teardown does not wait out the poll interval
        srv = self._server.server
        if hasattr(srv, "_BaseServer__shutdown_request"):
            srv._BaseServer__shutdown_request = True
            try:
                socket.create_connection((self.host, self._server.port), timeout=1).close()
            except OSError:
                pass
        self._server.__exit__(*exc)

    @property
    def origin(self) -> str:
        return f"http://{self.host}:{self._server.port}"

    @property
    def url(self) -> str:
        """The home page."""
        return self.origin + "/"

    @property
    def hits(self):
        """Counter of requests by target as sent (path with query)."""
        return self._server.hits

    # ---------------------------------------------------------------- blog views

    @property
    def truth(self) -> list[dict]:
        return self.blog.truth

    def post_urls(self) -> list[str]:
        """Absolute URLs of every post, oldest first."""
        return [self.origin + p.path for p in self.blog.posts]

    def feed_urls(self) -> list[str]:
        return [self.origin + f for f in self.blog.feeds()]

    def add_posts(self, k: int):
        """Publish k newer posts (under the lock, so no request sees half of them)."""
        with self._lock:
            return self.blog.add_posts(k)

    def edit_post(self, index: int, note: str | None = None):
        """Append a paragraph to post `index` (0 = oldest): a changed post for update crawls."""
        with self._lock:
            return self.blog.edit_post(index, note)

    # ---------------------------------------------------------------- serving

    def handle(self, req: Request) -> Reply:
        target = req.path
        if target.startswith(("http://", "https://")):  # absolute-form request target
            s = urllib.parse.urlsplit(target)
            target = s.path + ("?" + s.query if s.query else "")
        path = urllib.parse.unquote(urllib.parse.urlsplit(target).path) or "/"
        o = self.origin
        with self._lock:
            if path.startswith("/_hop/"):
                rest = target[len("/_hop/"):]
                n, _, inner = rest.partition("/")
                if not n.isdigit():
                    return Reply(404, error_page(404, "Not Found"))
                if int(n) > 0:
                    return Reply(301, "", headers={"Location": f"{o}/_hop/{int(n) - 1}/{inner}"})
                return self.render("/" + inner) or Reply(404, error_page(404, "Not Found"))
            if path.startswith("/_loop/"):
                return Reply(301, "", headers={"Location": o + target[len("/_loop"):]})
            f = self.faults.match(target, path)
            if f is not None:
                return apply(f, target, lambda: self.render(target), o, req.headers)
            rep = self.render(target)
            return rep if rep is not None else Reply(404, error_page(404, "Not Found"))

    def render(self, target: str) -> Reply | None:
        rep = self.blog.render(target, self.origin)
        if urllib.parse.urlsplit(target).path == "/robots.txt" and rep is not None:
            extra = self.faults.disallowed()
            if extra:
                rep = Reply(rep.status, robots_with(rep.body, extra), dict(rep.headers), rep.content_type)
        return rep
