"""The farm of synthetic test blogs: five platform families, deterministic from a seed.

    FAMILIES[name](seed, n_posts, ...) -> Blog     (tests/farm/blog.py: truth, render, write, add_posts)
    make_blog(name, seed=0, n_posts=40, **options)  the same, with test-sized defaults
    FarmServer(blog, faults)                        serve it over loopback (tests/farm/server.py)

Families: wordpress (classic WordPress), blogger, static (Hugo), spa (post bodies rendered
by JavaScript from JSON), forum (a blog inside thousands of forum/wiki pages), threaded
(comments in the page only, no comment feed) and widget (comments from an unknown script
widget behind "load more"), tests/farm/comments.py.
Pytest fixtures are in tests/farm/fixtures.py; `python -m tests.farm serve FAMILY` serves one.
"""
from __future__ import annotations

from .blog import Blog
from .blogger import Blogger
from .comments import Threaded, Widget
from .forum import Forum
from .spa import SPA
from .static import Static
from .wordpress import WordPress

FAMILIES: dict[str, type[Blog]] = {
    "wordpress": WordPress,
    "blogger": Blogger,
    "static": Static,
    "spa": SPA,
    "forum": Forum,
    "threaded": Threaded,
    "widget": Widget,
}


def make_blog(family: str, seed: int = 0, n_posts: int | None = 40, **options) -> Blog:
    """A farm blog of `family`; n_posts=None draws the platform-like 50-500."""
    try:
        cls = FAMILIES[family]
    except KeyError:
        raise ValueError(f"unknown farm family {family!r}; known: {', '.join(FAMILIES)}") from None
    return cls(seed, n_posts, **options)


__all__ = ["FAMILIES", "Blog", "make_blog"]
