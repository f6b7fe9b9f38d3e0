"""What one URL is to a crawl, decided once when its page is taken up (issue 24).

The stages of one page used to ask again, each for itself, whether its URL is a post (the
learned pattern), a listing, a page below a post, and whether a browser draws it: the
pattern was matched six times for one page. `url_kind` asks once, from the URL and what
the crawl learned (the home page, the post pattern, whether the feed lists the URL, the
--js decision), and the answer, a `UrlKind`, is handed down to every stage that needs it
(workers/pipeline.py `process`: rendering, the rules' reading, the record's URL).

Pure: no Celery, no Redis.
"""
from __future__ import annotations

from dataclasses import dataclass

from tasks.discover.canonical import dated_tail, is_listing, under_post
from tasks.discover.urls import is_post

__all__ = ["UrlKind", "url_kind", "render_need", "js_decision", "ALWAYS", "HINTED"]

ALWAYS = "always"  # a browser draws the page
HINTED = "hinted"  # a browser draws the page where it hints at comments by script (tasks/extract/comment_signals.py)


@dataclass(frozen=True)
class UrlKind:
    """One URL as the crawl sees it before its page is read."""
    entry: bool = False  # the blog's feed (or pseudo feed) lists it
    by_pattern: bool = False  # the learned post pattern takes it in
    listing: bool = False  # home, page/N, tag, category, date archive, search: never a post
    below_post: bool = False  # extends a post's URL (an attachment, a comment page): never a post of its own
    render: str | None = None  # ALWAYS, HINTED, or None: read as served

    @property
    def post(self) -> bool:
        """A post by its URL: a feed entry, or the pattern's (never a listing)."""
        return self.entry or (self.by_pattern and not self.listing)

    @property
    def never_post(self) -> bool:
        """A listing, or a page below a post: whatever its template, never a post of its own."""
        return self.listing or self.below_post


def url_kind(url: str, home: str, pattern: str | None, entry: bool = False, js=False) -> UrlKind:
    """The kind of `url` on the blog at `home` under its learned post `pattern`; `entry`: its
    feed lists the URL (False where that was not looked up), `js` the crawl's --js decision."""
    below = bool(pattern) and under_post(url, lambda u: is_post(u, pattern), home)
    by_pattern = bool(pattern and is_post(url, pattern))
    listing = is_listing(url, home, dates=not (by_pattern and dated_tail(pattern)))
    return UrlKind(entry=entry, by_pattern=by_pattern, listing=listing, below_post=below,
                   render=render_need(js, entry or by_pattern))


def render_need(js, post_page: bool) -> str | None:
    """Whether a browser draws a page under the crawl's --js decision: "all" every page (its
    content is drawn by script), "posts" a post's page (`post_page`: a feed entry or the
    pattern's) where it hints at comments by script, False none."""
    if js == "all":
        return ALWAYS
    return HINTED if js == "posts" and post_page else None


def js_decision(blog: dict, options: dict):
    """The crawl's --js decision ("all", "posts" or False) as the blog's hash holds it; before
    it is made (or in a crawl that never makes it), `--js always` is "all"."""
    if "js" in blog:
        return blog["js"]
    return "all" if options.get("js") == "always" else False
