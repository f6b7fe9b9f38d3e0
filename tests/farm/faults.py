"""Faults a farm blog injects on demand: one table, kind -> what the server does instead.

A fault is attached to a request target (`"/feed/"`, `"/2014/03/09/x/?replytocom=3"`), to a
path (query ignored) or to a prefix (`"/blog/*"`), as a kind name or a `Fault` with
parameters. `times=N` makes it transient: the first N matching requests get the fault,
later ones the normal page (what a retrying crawler should see).

    kind              behaviour (params, default)
    404               404 Not Found, small HTML body
    410               410 Gone
    500               500 Internal Server Error
    503               503 with `Retry-After: <retry_after>` (retry_after=1)
    429               429 Too Many Requests with `Retry-After: <retry_after>` (retry_after=1)
    slow              the normal reply: headers at once, body after `seconds` (seconds=0.5, capped at
                      MAX_DELAY); a client read timeout fires while reading the body
    redirect_chain    301 -> /_hop/<hops-1>/PATH -> ... -> /_hop/0/PATH, which serves the page (hops=3)
    redirect_loop     301 -> /_loop/PATH -> 301 back to PATH, forever
    wrong_charset     the UTF-8 page, declared `charset=<charset>` in Content-Type (charset=iso-8859-1);
                      the page's own <meta charset="utf-8"> is kept (header and document disagree)
    missing_charset   the UTF-8 page as bare `text/html`, its <meta charset> removed
    truncated         the body cut to `fraction` of its bytes (fraction=0.5), Content-Length honest:
                      a feed ends mid-element (feedparser says bozo)
    malformed         a feed with a stray unescaped `&`, an unclosed tag and a bad entity
                      (strict XML fails; feedparser recovers the entries with bozo set)
    binary_html       `size` bytes of binary junk (a PNG then noise) served as `text/html` (size=4096)
    huge              the normal page padded with an HTML comment to `size` bytes, streamed (size=5_000_000)
    disallow          the page is served, but robots.txt gains `Disallow: PATH` (for "*" and blogharvest)

Hostile kinds (the security suite, docs/security.md):

    bad_location      302 with a Location no URL parser accepts (location="http://[::1")
    many_headers      the normal page with `count` extra headers (count=150; http.client allows 100)
    charset           the normal page declared `charset=<charset>` in the header and <meta> (charset=rot13)
    entity_bomb       a feed whose DTD declares a large internal entity referenced `refs` times
                      (size=100_000, refs=5_000: half a gigabyte once expanded)
    probe             the normal page plus an iframe, a script, an image and a fetch() aimed at
                      `target` (a URL the guard must refuse); a comment-widget iframe so it is inlined
    dom_bomb          the normal page plus a script appending `size` bytes of text to the DOM (size=30_000_000),
                      and `nodes` empty elements (nodes=0), in one script task
    set_cookie        the normal page with `count` large cookies set for the host (count=40, size=3000)
    require_no_cookie 431 when the request carries any Cookie header, else the normal page
    extra_link        the normal page plus a link to `href` (a way into a trap)
    deep_trap         a page linking one level deeper (`PATH<n>/`) and to its own path `repeat`ed:
                      an endless tree of pages, for any path under the fault's prefix
    extra_link        `hrefs=[...]` instead of `href`: several links at once

Endless pages that bring no post (issue 34), each linking the blog's `posts` (paths: a theme's
"recent posts", known already) beside what makes it endless, for any path under the prefix:

    calendar          `/calendar/N/...`: the next and the previous month (N+1, N-1 on the last
                      segment) and one level deeper (`PATH<N>/`)
    paged_trap        `PATH?page=N`: the next two pages, forever
    growing_query     `PATH?a0=1&...`: the query one parameter longer, and the same with the
                      last parameter's value changed
    session_trap      `PATH?sid2=<token>`: the page again under two new session-like tokens
"""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field

from tests.httpd import Reply

from . import text as T

MAX_DELAY = 10.0  # a slow fault never holds a server thread longer than this

KINDS = {
    "404": "404 Not Found",
    "410": "410 Gone",
    "500": "500 Internal Server Error",
    "503": "503 Service Unavailable with Retry-After",
    "429": "429 Too Many Requests with Retry-After",
    "slow": "normal reply, body delayed `seconds`",
    "redirect_chain": "301 chain of `hops` redirects ending on a 200 copy of the page",
    "redirect_loop": "301 to /_loop/PATH, which 301s back to PATH",
    "wrong_charset": "UTF-8 body declared as another charset in the header",
    "missing_charset": "UTF-8 body, no charset in header or meta",
    "truncated": "body cut to `fraction` of its bytes",
    "malformed": "XML body broken (bare &, unclosed tag, unknown entity)",
    "binary_html": "binary junk served as text/html",
    "huge": "page padded to `size` bytes, streamed",
    "disallow": "page served, but robots.txt disallows it",
    "bad_location": "302 to an unparsable Location",
    "many_headers": "normal reply with more headers than http.client allows",
    "charset": "normal page declared in a non-text codec (rot13, base64, utf-7)",
    "entity_bomb": "feed with an internal DTD entity referenced thousands of times",
    "probe": "page whose iframe, script, image and fetch() aim at a forbidden URL",
    "dom_bomb": "page whose script grows the DOM to `size` bytes",
    "set_cookie": "normal page setting many large cookies",
    "require_no_cookie": "431 when any Cookie header is sent",
    "extra_link": "normal page plus a link to `href`",
    "deep_trap": "endless ever-deeper pages under a prefix",
    "calendar": "endless calendar: next and previous month, one level deeper",
    "paged_trap": "endless ?page=N listing of no post",
    "growing_query": "a query growing by one parameter a page",
    "session_trap": "the page again under new session-like tokens",
}

ENDLESS = ("calendar", "paged_trap", "growing_query", "session_trap")


@dataclass
class Fault:
    kind: str
    params: dict = field(default_factory=dict)
    times: int | None = None  # None: every time; N: the first N matching requests only
    used: int = 0

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"unknown fault kind {self.kind!r}; known: {', '.join(KINDS)}")

    def get(self, name, default):
        return self.params.get(name, default)


def fault(kind: str, times: int | None = None, **params) -> Fault:
    """`fault("503", retry_after=2, times=1)`: a Fault for a `faults` mapping."""
    return Fault(kind, params, times)


def as_fault(v) -> Fault:
    return v if isinstance(v, Fault) else Fault(str(v))


class Faults(dict):
    """The live mapping key -> Fault (keys: target, path, or "prefix*"); plain kinds are accepted."""

    def __init__(self, init=None):
        super().__init__()
        self._lock = threading.Lock()
        for k, v in (init or {}).items():
            self[k] = v

    def __setitem__(self, key, value):
        super().__setitem__(key, as_fault(value))

    def update(self, other=(), **kw):
        for k, v in dict(other, **kw).items():
            self[k] = v

    def match(self, target: str, path: str, consume: bool = True) -> Fault | None:
        """The fault for a request, counting it against `times` when `consume`."""
        with self._lock:
            f = self.get(target) or self.get(path)
            if f is None:
                best = ""
                for k in self:
                    if k.endswith("*") and path.startswith(k[:-1]) and len(k) > len(best):
                        best = k
                f = self.get(best) if best else None
            if f is None or f.kind == "disallow":
                return f
            if f.times is not None:
                if f.used >= f.times:
                    return None
                if consume:
                    f.used += 1
            return f

    def disallowed(self) -> list[str]:
        return [k.rstrip("*") for k, f in self.items() if f.kind == "disallow"]


def robots_with(robots: str, paths: list[str]) -> str:
    """robots.txt with extra Disallow lines for every group."""
    if not paths:
        return robots
    extra = "".join(f"Disallow: {p}\n" for p in paths)
    out, seen_agent = [], False
    for line in robots.splitlines(keepends=True):
        out.append(line)
        if line.lower().startswith("user-agent:"):
            seen_agent = True
        elif seen_agent and not line.lower().startswith("user-agent:"):
            out.append(extra)
            seen_agent = False
    if seen_agent:
        out.append(extra)
    text = "".join(out)
    if "user-agent: *" not in text.lower():
        text = "User-agent: *\n" + extra + "\n" + text
    return text


def error_page(status: int, title: str) -> str:
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{status} {title}</title></head>"
            f"<body><h1>{title}</h1></body></html>\n")


def apply(f: Fault, target: str, render, origin: str = "", headers: dict | None = None) -> Reply:
    """The reply for `target` under fault `f`; `render()` gives the normal reply (or None);
    `headers` are the request's (lower-case names)."""
    k = f.kind
    if k in ("404", "410", "500"):
        titles = {"404": "Not Found", "410": "Gone", "500": "Internal Server Error"}
        return Reply(int(k), error_page(int(k), titles[k]))
    if k in ("503", "429"):
        wait = f.get("retry_after", 1)
        title = "Service Unavailable" if k == "503" else "Too Many Requests"
        return Reply(int(k), error_page(int(k), title), headers={"Retry-After": str(wait)})
    if k == "redirect_chain":
        hops = int(f.get("hops", 3))
        return Reply(301, "", headers={"Location": f"{origin}/_hop/{hops - 1}{target}"})
    if k == "redirect_loop":
        return Reply(301, "", headers={"Location": f"{origin}/_loop{target}"})
    if k == "binary_html":
        size = int(f.get("size", 4096))
        r = T.rng("binary", target)
        head = T.png(16, 16, target)
        junk = head + bytes(r.randrange(256) for _ in range(max(0, size - len(head))))
        return Reply(200, junk, content_type="text/html; charset=utf-8")
    if k == "bad_location":
        return Reply(302, "", headers={"Location": f.get("location", "http://[::1")})
    if k == "entity_bomb":
        return Reply(200, entity_bomb(int(f.get("size", 100_000)), int(f.get("refs", 5_000))),
                     content_type="application/rss+xml; charset=utf-8")
    if k == "deep_trap":
        path = target.split("?", 1)[0]
        n = path.rstrip("/").count("/")
        links = (f'<a href="{path}d{n}/">deeper</a> <a href="{path}{path.strip("/").split("/")[-1]}/">again</a> '
                 f'<a href="{path}?month={n + 1}">next month</a>')
        return Reply(200, f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Archive {n}</title></head>"
                          f"<body><h1>Archive level {n}</h1><p>{links}</p></body></html>")
    if k in ENDLESS:
        return endless(f, target)
    if k == "require_no_cookie":
        if (headers or {}).get("cookie"):
            return Reply(431, error_page(431, "Request Header Fields Too Large"))
        rep = render()
        return rep if rep is not None else Reply(404, error_page(404, "Not Found"))
    rep = render()
    if rep is None:
        return Reply(404, error_page(404, "Not Found"))
    body = rep.encoded()
    if k == "extra_link":
        hrefs = f.get("hrefs", None) or [f.get("href", "/trap/")]
        link = "".join(f'<p><a href="{h}">archive</a></p>' for h in hrefs).encode()
        return Reply(rep.status, body.replace(b"</body>", link + b"</body>", 1), dict(rep.headers), rep.content_type)
    if k == "many_headers":
        extra = {f"X-Filler-{i}": str(i) for i in range(int(f.get("count", 150)))}
        return Reply(rep.status, body, dict(rep.headers, **extra), rep.content_type)
    if k == "charset":
        name = f.get("charset", "rot13")
        ctype = re.sub(r";\s*charset=[^;]*", "", rep.content_type or "text/html")
        body = re.sub(rb'<meta charset="[^"]*">', f'<meta charset="{name}">'.encode(), body, count=1)
        return Reply(rep.status, body, dict(rep.headers), f"{ctype}; charset={name}")
    if k == "probe":
        return Reply(rep.status, probe(body, f.get("target", "http://127.0.0.2/secret")),
                     dict(rep.headers), rep.content_type)
    if k == "dom_bomb":
        script = (f"<script>(function(){{var s='x'.repeat(1000000),d=document.createElement('div');"
                  f"for(var i=0;i<{int(f.get('size', 30_000_000)) // 1_000_000};i++){{var p=document.createElement('p');"
                  f"p.textContent=s;d.appendChild(p);}}"
                  f"for(var j=0;j<{int(f.get('nodes', 0))};j++){{d.appendChild(document.createElement('i'));}}"
                  f"document.body.appendChild(d);}})();</script>").encode()
        return Reply(rep.status, body.replace(b"</body>", script + b"</body>", 1), dict(rep.headers),
                     rep.content_type)
    if k == "set_cookie":
        n, size = int(f.get("count", 40)), int(f.get("size", 3000))
        cookies = [f"bh_trap_{i}={'c' * size}; Path=/" for i in range(n)]
        return Reply(rep.status, body, dict(rep.headers), rep.content_type, cookies=cookies)
    if k == "slow":
        return Reply(rep.status, body, dict(rep.headers), rep.content_type,
                     delay=min(float(f.get("seconds", 0.5)), MAX_DELAY))
    if k == "wrong_charset":
        ctype = re.sub(r";\s*charset=[^;]*", "", rep.content_type or "text/html")
        return Reply(rep.status, body, dict(rep.headers), f"{ctype}; charset={f.get('charset', 'iso-8859-1')}")
    if k == "missing_charset":
        ctype = re.sub(r";\s*charset=[^;]*", "", rep.content_type or "text/html")
        body = re.sub(rb'<meta charset="[^"]*">\n?', b"", body, count=1, flags=re.I)
        body = re.sub(rb'(<\?xml[^>]*?) encoding="[^"]*"', rb"\1", body, count=1)
        return Reply(rep.status, body, dict(rep.headers), ctype)
    if k == "truncated":
        cut = int(len(body) * float(f.get("fraction", 0.5)))
        return Reply(rep.status, body[:cut], dict(rep.headers), rep.content_type)
    if k == "malformed":
        return Reply(rep.status, malform(body), dict(rep.headers), rep.content_type)
    if k == "huge":
        size = int(f.get("size", 5_000_000))
        return Reply(rep.status, padded(body, size), dict(rep.headers), rep.content_type)
    return rep  # disallow: the page itself is served


def endless(f: Fault, target: str) -> Reply:
    """A page of an endless kind (`ENDLESS`): the links that make it endless, the blog's
    `posts` (known ones) beside them, and no post of its own."""
    import hashlib

    path, _, query = target.partition("?")
    k = f.kind
    if k == "calendar":
        segs = [s for s in path.split("/") if s]
        last = segs[-1] if segs else "0"
        n = int(last) if last.isdigit() else 0
        up = "/" + "/".join(segs[:-1]) + "/" if len(segs) > 1 else "/"
        links = [f"{up}{n + 1}/", f"{up}{max(n - 1, 0)}/", f"{path.rstrip('/')}/{n}/"]
    elif k == "paged_trap":
        n = int(re.search(r"page=(\d+)", query).group(1)) if re.search(r"page=(\d+)", query) else 1
        links = [f"{path}?page={n + 1}", f"{path}?page={n + 2}"]
    elif k == "growing_query":
        params = [p for p in query.split("&") if p]
        links = [f"{path}?" + "&".join(params + [f"a{len(params)}=1"]),
                 f"{path}?" + "&".join(params[:-1] + [f"a{len(params) - 1}=2"]) if params else f"{path}?a0=2"]
    else:  # session_trap
        token = hashlib.sha1(target.encode()).hexdigest()
        links = [f"{path}?sid2={token[:20]}", f"{path}?sid2={token[20:]}{token[:4]}"]
    known = "".join(f'<li><a href="{p}">recent post</a></li>' for p in f.get("posts", []))
    body = "".join(f'<a href="{u}">more</a> ' for u in links)
    return Reply(200, f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Archive {target[:80]}</title>"
                      f"</head><body><h1>Archive</h1><p>{body}</p><ul>{known}</ul></body></html>")


def entity_bomb(size: int, refs: int) -> bytes:
    """An RSS feed whose one item's description references a `size`-byte internal entity
    `refs` times: tiny on the wire, `size * refs` characters once a parser expands it."""
    body = "&big;" * refs
    return (f'<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE rss [\n<!ENTITY big "{"A" * size}">\n]>\n'
            f'<rss version="2.0"><channel><title>bomb</title><link>http://example.org/</link>'
            f'<description>d</description><item><title>t</title><link>http://example.org/p</link>'
            f'<description>{body}</description></item></channel></rss>\n').encode()


def probe(body: bytes, target: str) -> bytes:
    """The page with every way a browser reaches another address aimed at `target`: a comment
    iframe (inlined by the renderer), a script, an image, a fetch() whose answer is written in."""
    bits = (f'<iframe src="{target}?via=iframe&disqus.com/embed/comments" width="400" height="200"></iframe>'
            f'<script src="{target}?via=script"></script><img src="{target}?via=img">'
            f'<div id="bh-probe"></div><script>fetch("{target}?via=fetch").then(r=>r.text())'
            f'.then(t=>{{document.getElementById("bh-probe").textContent="LEAK:"+t;}}).catch(()=>{{}});</script>')
    return body.replace(b"</body>", bits.encode() + b"</body>", 1)


def malform(body: bytes) -> bytes:
    """Break XML the ways real feeds are broken, keeping every entry recoverable."""
    body = body.replace(b"&amp;", b"&", 3)
    m = re.search(rb"<(item|entry)[ >]", body)
    if m:  # an unclosed element and an HTML entity XML does not know, before the first entry
        body = body[:m.start()] + b"<br>Caf&eacute; &copy; & co\n" + body[m.start():]
    else:
        body += b"<unclosed>&nbsp;"
    return body


def padded(body: bytes, size: int):
    """The page, then an HTML comment filling it up to `size` bytes, in 64 KiB chunks."""
    cut = body.rfind(b"</body>")
    head, tail = (body[:cut], body[cut:]) if cut >= 0 else (body, b"")
    yield head
    left = max(0, size - len(body) - 9)
    yield b"<!-- "
    chunk = b"padding " * 8192
    while left > 0:
        yield chunk[:left]
        left -= len(chunk)
    yield b" -->"
    yield tail
