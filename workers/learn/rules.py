"""The blog's rules: learned on each training page (the learning chord's header, one task per
page), then reduced by vote (its callback) with the post URL pattern (tasks.learn.fields)."""
from __future__ import annotations

from tasks.discover.recency import day_of, days_exact, zoned
from tasks.discover.urls import learn_post_pattern
from tasks.extract.fallback import GENERIC_NOTE
from tasks.extract.generic import page_content
from tasks.extract.post import extract_root
from tasks.fetch.html import parse_html
from tasks.fetch.http import FetchError
from tasks.learn.fields import learn_page, reduce_rules
from tasks.learn.plausible import checked_rules
from tasks.text.dates import url_day, url_latest_day
from workers import limits
from workers.fetch import rendering
from workers.fetch.pages import cached, page_at


def _target(entry: dict) -> dict:
    content = entry.get("content_html") or entry.get("summary_html") or ""
    return {"title": entry.get("title") or "", "content": content,
            "content_is_summary": bool(entry.get("content_is_summary", not entry.get("content_html"))),
            "authors": entry.get("authors") or [], "authors_from_feed": bool(entry.get("authors_from_feed")),
            "published": entry.get("published")}


def learn_one(rt, crawl_id: str, url: str) -> dict:
    """{"url", "rules"} of one training page (its entry the target), or {"url", "error"}."""
    st = rt.state
    entry = st.entry(crawl_id, url) or {"url": url}
    try:
        page = page_at(rt, crawl_id, url, revisit=bool(st.options(crawl_id).get("update")))
    except FetchError as e:
        st.add_error(crawl_id, url, e.kind, e.message)
        return {"url": url, "error": e.kind}
    if page is None:  # nothing to learn from, and not to be cached as a page
        return {"url": url, "error": "not_html"}  # (the traversal reports it)
    page = rendering.page(rt, crawl_id, url, page)
    limits.check()  # the task's deadline (threads pool: Celery's limits do not hold there)
    return {"url": url, "rules": learn_page(page.html, page.final_url, _target(entry))}


def reduce(rt, crawl_id: str, results: list) -> dict:
    """The blog's rules by vote over the pages' rules, and its post URL pattern; {} (and the
    crawl failed) when no training page gave rules."""
    st = rt.state
    page_rules = [r["rules"] for r in results or [] if isinstance(r, dict) and r.get("rules")]
    if not page_rules:  # issue 31: the traversal still reads the posts, with the page-level extractor
        blog = st.blog(crawl_id)
        st.add_error(crawl_id, blog.get("home") or "", "training",
                     f"no training page gave rules ({len(results or [])} tried){GENERIC_NOTE}")
        st.save_blog(crawl_id, generic=True, trained_on=0)
        return {}
    rules = reduce_rules(page_rules)
    blog = st.blog(crawl_id)
    pages = _pages(rt, crawl_id, [r["url"] for r in results if isinstance(r, dict) and r.get("rules")])
    rules = _checked(rt, crawl_id, rules, pages, blog.get("home") or "")
    others = [blog.get("home"), blog.get("feed")]
    pattern = learn_post_pattern(blog.get("entry_urls") or [], [o for o in others if o])
    try:
        exact = bool(st.options(crawl_id).get("update")) and _days_exact(rules, pages)
    except Exception as e:  # a page the check cannot read: the margin is kept, the rules stand
        st.add_error(crawl_id, blog.get("home") or "", "rules", f"comparing the blog's days failed: {type(e).__name__}: {e}")
        exact = False
    st.save_blog(crawl_id, rules=rules, pattern=pattern, trained_on=len(page_rules), days_exact=exact)
    return rules


MAX_CHECKED = 20  # training pages the elected rules are checked on


def _pages(rt, crawl_id: str, urls: list[str]) -> list[tuple[str, str, dict]]:
    """[(html, url, feed entry)] of the training pages the rules are checked on."""
    st, pages = rt.state, []
    for url in urls[:MAX_CHECKED]:
        page = cached(rt, crawl_id, url)
        if page is not None and not page.garbled:
            pages.append((page.html, page.final_url, st.entry(crawl_id, url) or {"url": url}))
    return pages


def _days_exact(rules: dict, pages: list[tuple[str, str, dict]]) -> bool:
    """Do the blog's URLs (their day, or their month) and its feed's zoned dates give the days its
    pages print (recency.days_exact), as the elected date rule reads them on the training pages?
    An update crawl then compares the days pages print, and the days the URLs give, with `since`
    as they are: it leaves a post they date the day before `since` (only an update crawl asks: the
    readings cost CPU a page). A feed written in UTC (or with no zone) is no evidence: its day is
    the page's only for the posts far enough from midnight, which a sample may happen to hold
    only; its days keep their margin (recency.entry_day)."""
    pairs, printed = [], set()
    for html, url, entry in pages:
        rec = extract_root(parse_html(html, url), html, rules, url=url)
        if (rec.get("sources") or {}).get("published") != "rule" or not day_of(rec.get("published")):
            continue  # no day of the page's own to compare with
        day = day_of(rec.get("published"))
        printed.add(day)
        given = entry.get("published") or entry.get("updated")
        month = url_latest_day(url)
        pairs += [(g, day) for g in (url_day(url) or (month and month[:7]), given if zoned(given) else None) if g]
    return days_exact(pairs, printed)


def _checked(rt, crawl_id: str, rules: dict, pages: list, home: str) -> dict:
    """The elected rules checked on the training pages (tasks.learn.plausible): a field whose rule
    is implausible or loses to the generic reading is read generically; each decision reported."""
    st = rt.state
    try:
        rules, notes = checked_rules(rules, pages, extract_root, lambda html, url: page_content(html, url)["content_text"])
    except Exception as e:  # a check that fails leaves the rules as elected
        st.add_error(crawl_id, home, "rules", f"checking the rules failed: {type(e).__name__}: {e}")
        return rules
    for note in notes:
        st.add_error(crawl_id, home, "rules", note)
    return rules
