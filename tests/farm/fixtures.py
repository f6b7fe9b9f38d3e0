"""Pytest fixtures for crawling farm blogs (loaded as a plugin by tests/conftest.py).

    farm_blog(family, seed=0, n_posts=40, faults=None, **options) -> FarmServer
        Factory fixture: builds tests.farm.FAMILIES[family](seed, n_posts, **options), serves it
        on http://127.0.0.1:PORT/ (threaded) and returns the running FarmServer; every server
        the test made is stopped at teardown. `options` are Blog keyword arguments
        (feed_size, full_feed, lang, per_page, comments_per_page, comment_feed_size, style,
        date_style, n_authors; forum: n_topics, n_wiki, n_members, n_boards; static: archives).

    FarmServer (tests/farm/server.py):
        .url            home page, "http://127.0.0.1:PORT/"
        .origin         "http://127.0.0.1:PORT"
        .blog           the Blog: .posts (oldest first; .path .title .text .author.name .published
                        .comments), .truth (harness rows), .feeds() (main feed paths), .newest
        .truth          == .blog.truth (path relative like harness posts.txt, title, content_text,
                        authors, published ISO, comments[{author, content_text, published}])
        .post_urls()    absolute URLs of every post, oldest first
        .feed_urls()    absolute URLs of the main feed(s)
        .hits           collections.Counter: request target as sent ("/feed/?paged=2") -> count
        .faults         live mapping, settable any time: key -> kind or Fault. Keys: a target with
                        query, a path, or a prefix ending in "*". Kinds and parameters: the table
                        in tests/farm/faults.py (404 410 500 503 429 slow redirect_chain
                        redirect_loop wrong_charset missing_charset truncated malformed binary_html
                        huge disallow); `fault("503", retry_after=2, times=1)` from tests.farm.faults
                        makes parameterised/transient ones.
        .add_posts(k)   publish k newer posts (deterministic; feeds, listings follow at once);
                        returns the new Post objects
        .edit_post(i, note=None)  append a paragraph to post i (0 = oldest) in place: truth,
                        pages and full feeds show the changed content; returns the Post
        .render(target) the Reply the blog gives for a target (no fault applied)

    farm_written(family, seed=0, n_posts=40, **options) -> pathlib.Path
        Factory fixture: the blog written as a harness blog directory (site/, posts.txt,
        truth.jsonl, SOURCE.txt) under tmp_path, for ../shared/eval/harness.py.

    served_farm(family, seed=0, n_posts=40, faults=None, scope="module", **options) -> fixture
        Not a fixture: makes one. `farm = served_farm("wordpress", seed=5, feed_size=3)` in a test
        module gives that module a `farm` fixture: the blog built and served once for the whole
        module (scope), the FarmServer yielded, stopped at the module's end. For a blog that
        many tests read and none changes (no add_posts, edit_post or faults set by a test).

    farm_family: parametrized over every family name ("wordpress", "blogger", "static", "spa",
        "forum"); a test that asks for it runs once per family.

SPA family: post pages need JavaScript; wait for `#app[data-state="ready"]`, then click
`#load-more-comments` until it is hidden (`#comments[data-complete="true"]`); comments are
`#comments ol.comment-list > li.comment`.
"""
from __future__ import annotations

import pytest

from . import FAMILIES, make_blog
from .server import FarmServer


@pytest.fixture
def farm_blog():
    servers: list[FarmServer] = []

    def make(family: str, seed: int = 0, n_posts: int | None = 40, faults: dict | None = None,
             **options) -> FarmServer:
        server = FarmServer(make_blog(family, seed, n_posts, **options), faults).__enter__()
        servers.append(server)
        return server

    yield make
    for s in servers:
        s.__exit__(None, None, None)


def served_farm(family: str, seed: int = 0, n_posts: int | None = 40, faults: dict | None = None,
                scope: str = "module", **options):
    """A fixture serving one farm blog for a whole module: building and serving it once
    spares each test the blog's rendering and a server's start."""
    @pytest.fixture(scope=scope)
    def farm():
        with FarmServer(make_blog(family, seed, n_posts, **options), faults) as server:
            yield server

    return farm


@pytest.fixture
def farm_written(tmp_path):
    def write(family: str, seed: int = 0, n_posts: int | None = 40, **options):
        dest = tmp_path / f"farm-{family}-s{seed}"
        return make_blog(family, seed, n_posts, **options).write(dest)

    return write


@pytest.fixture(params=sorted(FAMILIES))
def farm_family(request) -> str:
    return request.param
