"""Feed failure families: a farm blog whose feed is missing, broken, excerpt-only or short.

Each wraps one of the platform families (wordpress, blogger, static; `base=` picks one,
else the seed does) and changes only its feeds, so the same posts, themes, languages and
URL schemes are met with every kind of feed trouble:

    nofeed      no feed at all: no <link rel="alternate"> feed in any page, every feed URL 404s
    brokenfeed  the pages still declare their feeds, but every feed URL answers 404
    excerptfeed the feed (paged as usual) gives each post's first paragraph only
    shortfeed   the feed lists the newest 3 posts, and has no further pages

A crawler must archive them all by learning from the pages (issue 18).
"""
from __future__ import annotations

import re

from tests.httpd import Reply

from . import text as T
from .blog import Blog
from .blogger import Blogger
from .static import Static
from .wordpress import WordPress

BASES = {"wordpress": WordPress, "blogger": Blogger, "static": Static}
MODES = ("nofeed", "brokenfeed", "excerptfeed", "shortfeed")
_FEED_LINK = re.compile(r"""<link\b[^>]*\brel=["']alternate["'][^>]*\btype=["']application/(?:rss|atom)\+xml["'][^>]*>\s*""",
                        re.I)
SHORT = 3


def _is_feed(rep: Reply | None) -> bool:
    if rep is None or rep.status != 200:
        return False
    ctype = (rep.content_type or "").lower()
    if "rss" in ctype or "atom" in ctype:
        return True
    if "xml" in ctype:
        head = rep.encoded()[:300].lstrip() if isinstance(rep.body, (str, bytes)) else b""
        return bool(re.search(rb"<(?:rss|feed|rdf:RDF)\b", head))
    return False


def _is_first_feed_page(target: str) -> bool:
    """The first page of a feed: no paging parameter (WordPress paged=, Blogger start-index=)."""
    return not re.search(r"[?&](?:paged|start-index|page)=(?!1(?:&|$))", target)


def feed_family(mode: str):
    """The family class of `mode`, built over the base family chosen per blog."""
    if mode not in MODES:
        raise ValueError(f"unknown feed mode {mode!r}")

    def make(seed: int = 0, n_posts: int | None = None, base: str | None = None, **options) -> Blog:
        name = base or T.rng("feedless", mode, seed).choice(sorted(BASES))
        cls = _classes[(mode, name)]
        if mode == "excerptfeed":
            options["full_feed"] = False
        if mode == "shortfeed":
            options["feed_size"] = SHORT
        return cls(seed, n_posts, **options)

    make.family = mode
    return make


def _subclass(mode: str, base: type[Blog]) -> type[Blog]:
    class Troubled(base):
        family = base.family  # the generated posts are the base family's (same seeds, same truth)
        feed_mode = mode

        def render(self, target, origin):
            rep = super().render(target, origin)
            if mode in ("nofeed", "brokenfeed") and _is_feed(rep):
                return Reply(404, "<html><body><h1>Not found</h1></body></html>")
            if mode == "shortfeed" and _is_feed(rep) and not _is_first_feed_page(target):
                return Reply(404, "<html><body><h1>Not found</h1></body></html>")
            if mode == "nofeed" and rep is not None and rep.status == 200 \
                    and "html" in (rep.content_type or "") and isinstance(rep.body, str):
                rep = Reply(rep.status, _FEED_LINK.sub("", rep.body), rep.headers, rep.content_type, rep.delay)
            return rep

        def paths(self):
            for target in super().paths():
                rep = self.render(target, self.original_url)
                if rep is not None and rep.status == 200:
                    yield target

        def source_txt(self, origin: str) -> str:
            return super().source_txt(origin) + f"feed trouble:   {mode} (base {base.family})\n"

    Troubled.__name__ = f"{mode.capitalize()}{base.__name__}"
    return Troubled


_classes = {(m, b): _subclass(m, cls) for m in MODES for b, cls in BASES.items()}
FEED_FAMILIES = {m: feed_family(m) for m in MODES}
