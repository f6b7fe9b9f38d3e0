"""JavaScript rendering of a crawl's pages (`--js auto|always|never`).

`decide` runs once per crawl at discovery (does this blog need a browser?) and
`page` is called for every fetched page; it returns the page to extract from, rendered
by headless Chromium (a per-worker pool, tasks/fetch/browser.py) when the crawl needs it.

The decision is stored in the blog's Redis hash, so every worker agrees:
`js` is "all" (the posts' content is drawn by script: render every page, listings
included, since their links may be script-drawn too), "posts" (only the comments load
by script: render post pages), or false. `--js always` is "all", `--js never` false.

Browsers are per worker process: one pool, made on first use, closed when the process
ends (celery's worker_process_shutdown, worker_shutdown, and atexit).
"""
from __future__ import annotations

import atexit
import json
import logging
import threading

from tasks.fetch.http import FetchError
from tasks.fetch.browser import (BrowserPool, RenderError, has_script_comments, needs_js, page_words,
                          script_comment_widgets)
from workers.archive import post as archive
from workers.runtime import Recent
from workers.settings import RENDER_QUEUE, settings

log = logging.getLogger("blogharvest")

SAMPLE = 3  # feed entries whose pages decide --js auto
WIDGET_MIN_WORDS = 20  # words a comment widget must add once rendered to make a blog render its posts
RENDER_CACHE = "rendered:"  # prefix of rendered training pages in the crawl's page cache


# ------------------------------------------------------------------ the process's pool

_lock = threading.Lock()
_pool: BrowserPool | None = None


def pool(rt=None) -> BrowserPool:
    """This worker process's browser pool, started on first use (SELENIUM_REMOTE_URL honoured)."""
    global _pool
    with _lock:
        if _pool is None or _pool._closed:
            s = getattr(rt, "settings", None) or settings()
            _pool = BrowserPool(size=s.browsers, max_pages=s.browser_pages,
                                page_load_timeout=s.page_load_timeout, script_timeout=s.script_timeout,
                                remote_url=s.selenium_remote_url or "", allow_private=s.allow_private,
                                max_dom_bytes=s.max_page_bytes, max_renderer_bytes=s.max_renderer_bytes,
                                request_timeout=s.request_timeout,
                                binary=s.chromium or None, driver=s.chromedriver or None)
        return _pool


def close_pool(*_args, **_kw) -> None:
    """Quit this process's browsers (idempotent)."""
    global _pool
    with _lock:
        p, _pool = _pool, None
    if p is not None:
        p.close()


atexit.register(close_pool)
try:  # a worker process that ends quits its browsers
    from celery.signals import worker_process_shutdown, worker_shutdown

    worker_process_shutdown.connect(close_pool, weak=False)
    worker_shutdown.connect(close_pool, weak=False)
except ImportError:  # pragma: no cover - celery is a dependency
    pass


def max_clicks() -> int:
    return settings().max_clicks


# ------------------------------------------------------------------ decision

def _raw_page(rt, crawl_id: str, url: str) -> dict | None:
    page = rt.state.cached_page(crawl_id, url)
    if page is None:
        try:
            resp = rt.downloader.get(url)
        except FetchError as e:
            rt.state.add_error(crawl_id, url, e.kind, str(e))
            return None
        page = {"url": resp.url, "html": resp.text}
        rt.state.cache_page(crawl_id, url, page)
    return page


NO_BROWSER = ("rendering is off: no Chromium or chromedriver on this machine; pages are read as "
              "served. Install Debian's chromium and chromium-driver, or set SELENIUM_REMOTE_URL.")


def render_failed(rt, crawl_id: str, url: str, err: RenderError, note: str = "") -> None:
    """A page's render error goes to the report; a missing browser is said once, as a warning."""
    if err.kind == "unavailable":
        if rt.state.warn(crawl_id, "no-browser", NO_BROWSER):
            log.warning("crawl %s: %s", crawl_id, NO_BROWSER)
        return
    rt.state.add_error(crawl_id, url, "render", f"{err}{note}")


def decide(rt, crawl_id: str, entries: list[dict], pages: dict[str, dict]) -> bool:
    """Whether this crawl renders pages; `pages` maps entry URL -> {"url", "html"} already fetched.

    --js auto looks at a few entries' pages as served: content missing there but present
    once rendered means "all"; a comment widget that loads by script means "posts".
    """
    st = rt.state
    mode = (st.options(crawl_id).get("js") or "auto").lower()
    if mode == "never":
        st.save_blog(crawl_id, js=False, js_reason="--js never")
        return False
    if mode == "always":
        st.save_blog(crawl_id, js="all", js_reason="--js always")
        return True
    sample = [e for e in entries if e.get("url") and (e.get("content_html") or e.get("summary_html"))][:SAMPLE]
    content_votes, script_comments, reasons, widget_checked = 0, False, [], False
    for e in sample:
        page = pages.get(e["url"]) or _raw_page(rt, crawl_id, e["url"])
        if page is None:
            continue
        widgets = script_comment_widgets(page["html"])
        if widgets and not widget_checked:
            # a widget is worth a browser per post only if rendering shows more: an embed
            # whose service is gone (or unreachable) would cost seconds a post for nothing
            widget_checked = True
            try:
                rendered = _render(rt, crawl_id, e["url"])
                gained = len(page_words(rendered["html"])) - len(page_words(page["html"]))
            except RenderError as err:
                render_failed(rt, crawl_id, e["url"], err)
                gained = 0
            if gained >= WIDGET_MIN_WORDS:
                script_comments = True
                reasons.append(f"{e['url']}: comments by script ({', '.join(widgets)}, +{gained} words)")
            else:
                reasons.append(f"{e['url']}: comment widget ({', '.join(widgets)}) showed nothing once rendered")
        if needs_js(page["html"], e):
            try:
                rendered = _render(rt, crawl_id, e["url"])
            except RenderError as err:
                render_failed(rt, crawl_id, e["url"], err)
                continue
            if needs_js(page["html"], e, rendered["html"]):
                content_votes += 1
                reasons.append(f"{e['url']}: the feed's text appears only once rendered")
    if content_votes and content_votes * 2 >= len(sample):
        js = "all"
    elif script_comments:
        js = "posts"
    else:
        js = False
    st.save_blog(crawl_id, js=js, js_reason="; ".join(reasons[:4]) or "the pages as served hold the feed's text")
    log.info("crawl %s: --js auto decided %s", crawl_id, js)
    return bool(js)


# ------------------------------------------------------------------ rendering

def _render(rt, crawl_id: str, url: str) -> dict:
    """Render `url` (a training page's rendering is cached, learning and traversal share it)."""
    st = rt.state
    key = RENDER_CACHE + url
    cached = st.cached_page(crawl_id, key)
    if cached is not None:
        return cached
    out = pool(rt).render(url, max_clicks=max_clicks())
    page = {"url": out["url"], "html": out["html"]}
    if st.entry(crawl_id, url) is not None:
        st.cache_page(crawl_id, key, page)
    for refused in [r for r in out.get("refused") or [] if r["kind"] == "private_address"]:
        st.add_error(crawl_id, url, "browser_refused",
                     f"the browser's request was refused: {refused['kind']}: {refused['message']} <{refused['url']}>")
    # what the browser fetched (Response.to_dict() each) goes into the WARC now, whether this
    # rendering was for the --js decision, learning or extraction: a replay needs them all
    archive.on_resources(rt, crawl_id, url, out.get("resources") or [])
    return page


def _is_post(rt, crawl_id: str, url: str, blog: dict) -> bool:
    if rt.state.entry(crawl_id, url) is not None:
        return True
    pattern = blog.get("pattern")
    if not pattern:
        return False
    from tasks.discover.urls import is_post

    return bool(is_post(url, pattern))


_decided = Recent(4096)  # crawl id -> its js decision (made once, at discovery): a cache


def decision(rt, crawl_id: str):
    """The crawl's js decision: "all", "posts" or False."""
    js = _decided.get(crawl_id)
    if js is None:
        js = rt.state.r.hget(rt.keys(crawl_id).blog, "js")
        if js is None:  # not decided yet, or a crawl that never went through decide
            return "all" if rt.state.options(crawl_id).get("js") == "always" else False
        js = _decided[crawl_id] = json.loads(js)
    return js


def queue_for(rt, crawl_id: str, url: str) -> str | None:
    """The queue of a page's task: RENDER_QUEUE when a browser will draw it (workers that
    consume only that queue may be the ones with browsers), None for the default queue."""
    js = decision(rt, crawl_id)
    if js == "all" or (js == "posts" and _is_post(rt, crawl_id, url, rt.state.blog(crawl_id))):
        return RENDER_QUEUE
    return None


def page(rt, crawl_id: str, url: str, fetched: dict) -> dict:
    """The page to extract from: `fetched` ({"url", "html"}) or its rendered DOM."""
    js = decision(rt, crawl_id)
    if not js:
        return fetched
    if js == "posts" and not _is_post(rt, crawl_id, url, rt.state.blog(crawl_id)):
        return fetched
    if js == "posts" and not has_script_comments(fetched.get("html") or ""):
        return fetched  # this post's comments are plain HTML
    try:
        rendered = _render(rt, crawl_id, fetched.get("url") or url)
        # the DOM as extracted and what the browser fetched for it ("resources"), into the WARC
        archive.on_rendered(rt, crawl_id, url, rendered)
        return {"url": rendered["url"], "html": rendered["html"]}
    except RenderError as e:
        render_failed(rt, crawl_id, url, e, " (extracting from the page as served)")
        return fetched
