"""The farm of synthetic test blogs: five platform families, deterministic from a seed.

    FAMILIES[name](seed, n_posts, ...) -> Blog     (tests/farm/blog.py: truth, render, write, add_posts)
    make_blog(name, seed=0, n_posts=40, **options)  the same, with test-sized defaults
    FarmServer(blog, faults)                        serve it over loopback (tests/farm/server.py)

Families: wordpress (classic WordPress), blogger, static (Hugo), spa (post bodies rendered
by JavaScript from JSON), forum (a blog inside thousands of forum/wiki pages), threaded
(comments in the page only, no comment feed) and widget (comments from an unknown script
widget behind "load more"), tests/farm/comments.py, and bylines (field values inside
bylines, titles with counters, authors only in JSON-LD or the feed), tests/farm/bylines.py.
FEED_FAMILIES (tests/farm/feedless.py): nofeed, brokenfeed, excerptfeed, shortfeed: one of
wordpress/blogger/static (by seed, or base=) with its feed missing, 404, excerpt-only or 3 long.
Pytest fixtures are in tests/farm/fixtures.py; `python -m tests.farm serve FAMILY` serves one.
"""
from __future__ import annotations

from .blog import Blog
from .blogger import Blogger
from .comments import Threaded, Widget
from .bylines import Bylines
from .discovery import BloggerDup, Eras, Sections, Sitemapped
from .forum import Forum
from .spa import SPA
from .static import Static
from .wordpress import WordPress
from .feedless import FEED_FAMILIES  # noqa: E402  feed failure families over the platforms above (issue 18)

FAMILIES: dict[str, type[Blog]] = {
    "wordpress": WordPress,
    "blogger": Blogger,
    "static": Static,
    "spa": SPA,
    "forum": Forum,
    "threaded": Threaded,
    "widget": Widget,
    "bylines": Bylines,
}

# Families of discovery failures (issue 15): each breaks an assumption the families above
# share (every post reachable by links from home, one URL scheme, one URL per post), so the
# tests made for those (tests/test_farm.py) do not run over them; tests/workers/test_discovery.py does.
DISCOVERY_FAMILIES: dict[str, type[Blog]] = {
    "sections": Sections,
    "eras": Eras,
    "sitemapped": Sitemapped,
    "bloggerdup": BloggerDup,
}


def make_blog(family: str, seed: int = 0, n_posts: int | None = 40, **options) -> Blog:
    """A farm blog of `family` (FAMILIES or FEED_FAMILIES); n_posts=None draws the platform-like 50-500."""
    try:
        cls = FAMILIES.get(family) or DISCOVERY_FAMILIES.get(family) or FEED_FAMILIES[family]
    except KeyError:
        known = ", ".join([*FAMILIES, *DISCOVERY_FAMILIES, *FEED_FAMILIES])
        raise ValueError(f"unknown farm family {family!r}; known: {known}") from None
    return cls(seed, n_posts, **options)


__all__ = ["FAMILIES", "DISCOVERY_FAMILIES", "FEED_FAMILIES", "Blog", "make_blog"]
