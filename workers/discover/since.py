"""An update crawl's `since` as a page's context gives it (issue 35): none for a full crawl or a
scheduled update (whose since is a time, not a publication date), and whether the blog's days
are exact (no time zones' margin)."""
from __future__ import annotations

from tasks.discover.recency import since_cut


def since_of(ctx: dict) -> str | None:
    """The crawl's `since` where it is an update crawl that reads by date, else None; as older()
    is to be given it: without the time zones' margin where the blog's days are exact (the
    blog's `days_exact`, learned with its rules: recency.since_cut)."""
    options = ctx.get("options") or {}
    if not options.get("update") or options.get("scheduled"):
        return None  # a scheduled update's since is the last crawl's time, no publication date
    return since_cut(ctx.get("since"), exact_of(ctx))


def exact_of(ctx: dict) -> bool:
    """Is since_of(ctx) the cut of a blog whose days are exact? Then a feed entry's date with no
    zone of its own keeps its margin by itself (recency.entry_day(e, exact=True))."""
    return bool((ctx.get("blog") or {}).get("days_exact"))
