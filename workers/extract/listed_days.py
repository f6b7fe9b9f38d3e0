"""The day a listing prints beside a post, for the posts whose own page prints none.

Some themes print a post's day on the blog's listings only (the cards of the home page and its
numbered pages: a `<time>` beside each title), never on the post's page; the page-level reader
then guesses a day from what it finds (a build time, a copyright year, the first comment's), and
a feedless crawl's pseudo entries carry that guess. Where the blog has no date rule of its own,
each listing read notes the day it prints beside each of its posts (tasks.discover.recency.
printed_days: the items' place, their `<time>` or short date text), first listing first; a
post whose record has no day of its own, or only such a guess, takes the listing's, and its
record says so (`sources.published: "listing"`). Listings are read before the posts they lead to,
so the day is known when the post is read.
"""
from __future__ import annotations

from tasks.discover.recency import printed_days
from tasks.learn.plausible import generic_fields
from workers.keys import Keys

__all__ = ["note", "dated", "days_of"]

MAX_NOTED = 500  # post links of one listing page whose days are noted
WEAK = (None, "page", "extractor")  # a record's day that a listing's beats: none, or a guess off the page


def _wanted(blog: dict) -> bool:
    """Does the blog read its posts' days without a date rule of its own?"""
    rules = blog.get("rules") or {}
    return not rules.get("date") or "date" in generic_fields(rules)


def note(rt, crawl_id: str, page, posts: list[str], blog: dict | None = None) -> None:
    """Note the days the listing `page` prints beside `posts` (its post links), where the blog
    needs them (`blog`: its hash; None while its rules are being learned: the pseudo feed's
    entries are dated so); a post keeps the day of the first listing that dated it."""
    if not posts or page is None or page.garbled or (blog is not None and not _wanted(blog)):
        return
    days = printed_days(page.root, page.final_url, posts[:MAX_NOTED])
    if days:
        key = Keys(crawl_id).listed_days
        with rt.state.r.pipeline(transaction=False) as p:
            for url, day in days.items():
                p.hsetnx(key, url, day)
            p.execute()


def dated(rt, crawl_id: str, urls: list[str], extracted: dict, entry: dict | None) -> dict:
    """`extracted` with the day a listing printed beside the post (under any of `urls`, the
    page's and its record's) where its own is missing or a guess (WEAK, or a pseudo entry's)."""
    source = (extracted.get("sources") or {}).get("published") if extracted.get("published") else None
    if source not in WEAK and not (source == "feed" and (entry or {}).get("pseudo")):
        return extracted
    day = next((d for d in rt.state.r.hmget(Keys(crawl_id).listed_days, urls) if d), None)
    if not day:
        return extracted
    return dict(extracted, published=day, sources=dict(extracted.get("sources") or {}, published="listing"))


def days_of(rt, crawl_id: str, urls: list[str]) -> dict[str, str]:
    """The days listings printed beside `urls`, where they printed one."""
    return {u: d for u, d in zip(urls, rt.state.r.hmget(Keys(crawl_id).listed_days, urls)) if d} if urls else {}
