"""The farm of synthetic test blogs: five platform families, deterministic from a seed.

    FAMILIES[name](seed, n_posts, ...) -> Blog     (tests/farm/blog.py: truth, render, write, add_posts)
    make_blog(name, seed=0, n_posts=40, **options)  the same, with test-sized defaults
    FarmServer(blog, faults)                        serve it over loopback (tests/farm/server.py)

Families: wordpress (classic WordPress), blogger, static (Hugo), spa (post bodies rendered
by JavaScript from JSON), forum (a blog inside thousands of forum/wiki pages).
FEED_FAMILIES (tests/farm/feedless.py): nofeed, brokenfeed, excerptfeed, shortfeed: one of
wordpress/blogger/static (by seed, or base=) with its feed missing, 404, excerpt-only or 3 long.
Pytest fixtures are in tests/farm/fixtures.py; `python -m tests.farm serve FAMILY` serves one.
"""
from __future__ import annotations

from .blog import Blog
from .blogger import Blogger
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
}


def make_blog(family: str, seed: int = 0, n_posts: int | None = 40, **options) -> Blog:
    """A farm blog of `family` (FAMILIES or FEED_FAMILIES); n_posts=None draws the platform-like 50-500."""
    try:
        cls = FAMILIES.get(family) or FEED_FAMILIES[family]
    except KeyError:
        known = ", ".join([*FAMILIES, *FEED_FAMILIES])
        raise ValueError(f"unknown farm family {family!r}; known: {known}") from None
    return cls(seed, n_posts, **options)


__all__ = ["FAMILIES", "FEED_FAMILIES", "Blog", "make_blog"]
