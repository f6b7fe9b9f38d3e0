"""Comments of a post: its comment feed, and the page's comments when the feed overflows.

The pipeline calls `comments_for` for every post page; see tasks/comments.py for the
pure parts (comment feeds, rule learning by maximum weighted bipartite matching).

The blog's comment rule lives in its Redis hash (`comment_rules`), learned once by
whichever worker first meets a post with more comments than its feed lists (or, lacking
a rule, any post whose feed has a few comments) and reused by every worker on every
other post. A post's other comment pages (comment-page-N/, ?cpage=N) are fetched when a
rule is there to read them.
"""
from __future__ import annotations

import logging

from tasks import comments as C
from tasks.feeds import FeedError, parse_comment_feed
from tasks.fetch import FetchError
from tasks.html import parse_html

log = logging.getLogger("blogharvest")

MAX_COMMENT_PAGES = 20  # other pages of one post's comments fetched at most
MIN_FEED_TO_LEARN = 2  # feed comments needed to learn a rule when nothing forces it
MIN_SHARE = 0.5  # a stored rule that finds under this share of a feed's comments is re-learned


def _feed(rt, crawl_id: str, url: str, feed_url: str) -> list[dict] | None:
    try:
        resp = rt.downloader.get(feed_url)
        return C.feed_comments(parse_comment_feed(resp.content, resp.url, resp.content_type))
    except FetchError as e:
        if e.status != 404:
            rt.state.add_error(crawl_id, feed_url, "comments", f"comment feed of {url}: {e}")
    except FeedError as e:
        rt.state.add_error(crawl_id, feed_url, "comments", f"comment feed of {url} unreadable: {e}")
    return None


def _comment_pages(rt, crawl_id: str, url: str, page: dict, root) -> list[tuple[str, object]]:
    """[(url, root)] of the post page and its other comment pages, following their links."""
    pages = [(page["url"], root)]
    seen = {url, page["url"]}
    queue = C.comment_page_links(root, page["url"])
    while queue and len(pages) <= MAX_COMMENT_PAGES:
        u = queue.pop(0)
        if u in seen:
            continue
        seen.add(u)
        try:
            resp = rt.downloader.get(u)
        except FetchError as e:
            rt.state.add_error(crawl_id, u, "comments", f"comment page of {url}: {e}")
            continue
        r = parse_html(resp.content, resp.url, resp.encoding)
        pages.append((resp.url, r))
        queue += [v for v in C.comment_page_links(r, resp.url) if v not in seen]
    return pages


def _extract(pages, rule: dict) -> list[dict]:
    out, seen = [], set()
    for u, r in pages:
        for c in C.extract_comments(r, rule, u):
            key = (c["author"], c["content_text"], c["published"])
            if key not in seen:  # comment-page-1/ repeats the post page
                seen.add(key)
                out.append(c)
    return out


def _known_rule(pages) -> tuple[dict | None, list[dict]]:
    """The first known platform markup that finds comments (no feed to learn from)."""
    for rule in C.KNOWN_RULES:
        found = _extract(pages[:1], rule)
        if found and all(c["content_text"] for c in found):
            return rule, found
    return None, []


def comments_for(rt, crawl_id: str, url: str, entry: dict | None, page: dict, root) -> list[dict]:
    """[{"id", "author", "published", "content_text", "parent", "url"?}] of one post."""
    st = rt.state
    entry = entry or {}
    feed_url = entry.get("comments_feed") or next(iter(C.comment_feed_links(root, page["url"])), None)
    feed = _feed(rt, crawl_id, url, feed_url) if feed_url else None
    expected = entry.get("comment_count")
    rule = st.blog(crawl_id).get("comment_rules")
    complete = feed is not None and expected is not None and expected <= len(feed)
    if complete and (rule is not None or len(feed) < MIN_FEED_TO_LEARN):
        return feed  # the feed lists them all (and there is a rule already, or too few to learn)
    if rule is None and not feed:
        rule, _ = _known_rule([(page["url"], root)])
        if rule is None:
            return feed or []
    overflow = feed is not None and expected is not None and expected > len(feed)
    pages = _comment_pages(rt, crawl_id, url, page, root)
    found = _extract(pages, rule) if rule else []
    if feed:
        _, pairs = C.match_comments([c["content_text"] for c in found], [c["content_text"] for c in feed])
        matched = sum(1 for _, _, w in pairs if w >= C.MIN_SIMILARITY)
        if matched < MIN_SHARE * len(feed) and (rule is None or overflow or matched == 0):
            learned = C.learn_comment_rule([r for _, r in pages], feed)
            if learned:
                st.save_blog(crawl_id, comment_rules=learned)
                log.info("comment rule learned on %s: %s", url, learned)
                rule, found = learned, _extract(pages, learned)
        return C.merge_comments(found, feed) if found else feed
    return found
