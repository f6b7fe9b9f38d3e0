"""One page as every stage of the traversal reads it, made once per fetch and handed down.

A page used to travel as the page cache's {"url", "html"} dict, and each stage that needed
its tree parsed the text again (links, comments, the rendering decision, the fallback).
A `Page` holds what was fetched (the URL asked for, the final URL, status, headers, the
bytes), its text decoded once, and its lxml tree parsed once, on first use (`root`); it
says how it was got: "http" (fetched now), "cache" (the crawl's page cache) or "rendered"
(a browser's DOM). Its cached form stays the JSON {"url", "html"} of the Redis page cache.

Pure: no Celery, no Redis. The tree is shared by every stage that reads the page: they
read it, none changes it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from tasks.fetch.charset import garbled
from tasks.fetch.html import parse_html

HOW = ("http", "cache", "rendered")


@dataclass(frozen=True, eq=False)
class Page:
    url: str  # the URL asked for (the frontier's)
    final_url: str  # where the page was read: after redirects, or where the browser ended
    html: str = field(repr=False)  # the text, decoded once (cached and rendered pages come as text)
    how: str = "http"  # "http" | "cache" | "rendered"
    status: int | None = None  # HTTP status of a fetched page
    headers: tuple = field(default=(), repr=False)  # ((name, value), ...) as received
    content_type: str | None = None  # media type only ("text/html")
    content: bytes | None = field(default=None, repr=False)  # the bytes as served (fetched pages only)
    encoding: str | None = None  # the codec `html` was decoded with (fetched pages only)

    def __post_init__(self):
        if self.how not in HOW:
            raise ValueError(f"how: {self.how!r} is none of {HOW}")

    @classmethod
    def from_response(cls, resp, url: str | None = None) -> "Page":
        """The page of a fetch response (tasks.fetch.http.Response): its text decoded here, once."""
        return cls(url=url or resp.url, final_url=resp.url, html=resp.text, how="http", status=resp.status,
                   headers=tuple(tuple(h) for h in resp.headers), content_type=resp.content_type,
                   content=resp.content, encoding=resp.encoding)

    @classmethod
    def from_cached(cls, cached: dict, url: str | None = None) -> "Page":
        """The page of a page-cache entry {"url" (final), "html"}; `url` the URL it is cached under."""
        final = cached.get("url") or url or ""
        return cls(url=url or final, final_url=final, html=cached.get("html") or "", how="cache")

    @classmethod
    def rendered(cls, url: str, final_url: str | None, html: str) -> "Page":
        """A browser's DOM of `url`."""
        return cls(url=url, final_url=final_url or url, html=html or "", how="rendered")

    @cached_property
    def root(self):
        """The parsed tree (tasks.fetch.html.parse_html, base URL the final URL): parsed on first use, once."""
        return parse_html(self.html, self.final_url)

    @cached_property
    def garbled(self) -> bool:
        """Does the text read as binary bytes (no page: nothing may be read from it)?"""
        return garbled(self.html)

    def cached(self) -> dict:
        """The page cache's JSON form: {"url" (final), "html"}."""
        return {"url": self.final_url, "html": self.html}

