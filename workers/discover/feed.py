"""Discovery of a crawl: the home page, the blog's feed (with its paging), the training entries.

    plan = discover(rt, crawl_id, url, since)   {"learn", "entries", "feed"}

The feed is the first candidate of the home page (tasks.discover.feeds) that reads cleanly and
lists posts of this blog; a broken or foreign one only when no later candidate does better.
A missing, excerpt-only or short feed is completed from the pages (workers/learn/training.py).
`--js auto` is decided here (workers/fetch/rendering.py), and an update crawl checks that its
stored rules still read the feed's posts. Every step is idempotent: the task runs it again
after a host's politeness delay (HostBusy) or a Redis outage.
"""
from __future__ import annotations

import copy
import hashlib
import logging
from dataclasses import dataclass, field

from tasks.discover import feeds as feedlib
from tasks.discover.announced import archive_widget_total
from tasks.discover.forward import MAX_FORWARDS, declares_feed, forward_target, frame_probes, frames, landing_links
from tasks.discover.recognise import build_times
from tasks.discover.traversal import in_scope
from tasks.discover.moved import moved_prefix, rehome
from tasks.discover.urls import canonical, extract_links, same_site
from tasks.extract.fallback import GENERIC_NOTE
from tasks.extract.fields import blog_authors
from tasks.extract.post import extract_root, matches_entry
from tasks.fetch.http import FetchError
from tasks.fetch.page import Page
from tasks.text.dates import parse_date
from tasks.text.similarity import normalize_text
from tasks.learn.pseudo_feed import training_need
from workers.cache import Recent
from workers.fetch import rendering
from workers.fetch.pages import fetched
from workers.fetch.patience import HostBusy
from tasks.discover import recency
from workers.discover import update as updating
from workers.keys import Keys
from workers.learn import training

log = logging.getLogger("blogharvest")

MAX_FEED_CANDIDATES = 15  # feed candidates of the home page tried at most
GONE = (404, 410)  # the answers that say a candidate is not there (not a failure that may pass)
MAX_FEED_PAGES = 5  # feed paging: more entries mean more training pairs and known posts
MAX_TRAINING = 30  # training pages per blog (votes)
UPDATE_TRAINING = 10  # an update crawl's training pages at least, older posts making up the new ones' number


class CrawlFailed(Exception):
    """The crawl cannot go on (no home page, no feed); the message goes to its report."""


def discover(rt, crawl_id: str, url: str, since: str | None) -> dict:
    """Home page -> feed (with paging) -> training entries. Decides whether rules are learned."""
    st = rt.state
    update = bool(st.options(crawl_id).get("update"))
    since = recency.day_of(since) if update else None
    if since and recency.future(since):  # issue 35: no post can be newer; nothing is fetched
        return {"learn": False, "entries": [], "feed": None,
                "nothing": f"since {since} is in the future: no post can be newer, nothing was fetched"}
    stored = st.blog(crawl_id) if update else {}
    home = None
    if stored.get("rules") and stored.get("home"):  # issue 35: crawled before on this Redis
        unchanged = _unchanged(rt, crawl_id, url, stored)
        if isinstance(unchanged, dict):
            return unchanged
        home = unchanged
    home = home or _home(rt, url, update)
    home_url = canonical(home.final_url)
    _announced(st, crawl_id, home)
    # issue 35: where an earlier crawl of the blog on this Redis found no feed, the usual paths
    # are not asked again (what the home page declares or links still is)
    guesses = not (stored.get("rules") and stored.get("home") and not stored.get("feed"))
    feed, feed_url, search = _find_feed(rt, home, home_url, guesses)
    if search.missing:  # asked and not there: the traversal does not ask again where a page links one
        st.r.sadd(rt.keys(crawl_id).seen, *{canonical(u) for u in search.missing})
    if not guesses:
        st.add_error(crawl_id, url, "feed", "the usual feed paths not tried again: the blog's last crawl found no feed")
    feed = _report_feed(st, crawl_id, url, feed, feed_url, search)
    entries = _feed_entries(rt, feed, feed_url, home_url, since)
    if since and updating.feed_reaches_past(entries, since):
        updating.cover(rt, crawl_id, "the feed, which reaches past since")
    need = training_need(entries)
    # --js auto is decided on the feed's own entries, before pseudo entries join them: those
    # are read off the pages as served, so their text is always there and would vote "no js";
    # and with the decision made, training reads the pages as the crawl will (rendered or not)
    decided = bool(entries) and _decide_js(rt, crawl_id, url, entries[:MAX_TRAINING])
    if not entries and stored.get("rules"):  # issue 35: no feed, the rules of an earlier crawl read the posts
        _save(st, crawl_id, home, home_url, feed, feed_url, [])
        return {"learn": False, "entries": [], "feed": feed_url}
    if need is not None and not (entries and update and st.blog(crawl_id).get("rules")):
        entries = training.training_entries(rt, crawl_id, home_url, home, entries, need, since)
    if not entries:  # issue 31: no rules to learn, yet the blog's posts are still read (generic)
        st.add_error(crawl_id, url, "training", _nothing_to_learn(url, feed_url, search) + GENERIC_NOTE)
        _save(st, crawl_id, home, home_url, feed, feed_url, [], generic=True)
        return {"learn": False, "entries": [], "feed": feed_url}
    _save(st, crawl_id, home, home_url, feed, feed_url, entries)
    if not decided:  # no feed entries (or the decision failed): the pages found decide
        _decide_js(rt, crawl_id, url, entries[:MAX_TRAINING])
    # issue 35: an update crawl trains on its new posts (read anyway), few older ones besides
    trainees = updating.training_order(entries, since, UPDATE_TRAINING) if since else entries
    return {"learn": _learns(rt, crawl_id, url, trainees), "entries": trainees[:MAX_TRAINING], "feed": feed_url}


def _unchanged(rt, crawl_id: str, url: str, stored: dict) -> dict | Page | None:
    """Issue 35: an update crawl of a blog crawled before on this Redis asks its home page and
    feed conditionally; both unchanged (304) means nothing new reached them: the plan reads
    only what other sources (sitemaps) say is new, with the stored rules. Else the home page
    as served (a Page) or None: discovery goes on as usual."""
    st = rt.state
    try:
        home = rt.downloader.get(url, conditional=True, revisit=True)
        if home.status != 304:
            return Page.from_response(home, url)
        feed = rt.downloader.get(stored["feed"], conditional=True) if stored.get("feed") else None
    except FetchError:
        return None
    if feed is not None and feed.status != 304:
        return None
    updating.skip(rt, crawl_id, "unchanged", [url] + ([stored["feed"]] if stored.get("feed") else []))
    st.save_entries(crawl_id, [])
    st.save_blog(crawl_id, entry_urls=[])
    st.r.sadd(rt.keys(crawl_id).seen, stored["home"])  # read already (304): not queued again
    updating.cover(rt, crawl_id, "home page and feed unchanged since the last crawl")
    return {"learn": False, "entries": [], "feed": stored.get("feed")}


def _home(rt, url: str, update: bool) -> Page:
    """The home page as served (an update crawl archives an unchanged one as a revisit); where
    the start page only forwards (a meta refresh, a stand-in's one link: tasks.discover.forward),
    the page it forwards to (an HTTP redirect the fetch follows itself)."""
    try:
        page = Page.from_response(rt.downloader.get(url, revisit=update), url)
    except FetchError as e:
        raise CrawlFailed(f"home page unreachable: {e}") from e
    for _ in range(MAX_FORWARDS):
        target = None if page.garbled else forward_target(page.root, page.final_url)
        if not target:
            break
        try:
            page = Page.from_response(rt.downloader.get(target, revisit=update), target)
        except FetchError as e:
            raise CrawlFailed(f"home page unreachable: {page.final_url} forwards to {target}: {e}") from e
    return _framed_home(rt, page, update) or _landing_home(rt, page, update) or page


def _landing_home(rt, page: Page, update: bool) -> Page | None:
    """A landing page (no feed, a few links of its own site: tasks.discover.forward.landing_links):
    the blog's home is the first page it links that declares a feed; None where none does (the
    traversal still follows its links, the blog read without a feed)."""
    return None if page.garbled else _first_declaring(rt, landing_links(page.root, page.final_url), update)


def _first_declaring(rt, urls: list[str], update: bool) -> Page | None:
    """The first of the pages at `urls` that declares a feed (a blog's home), read in order."""
    for url in urls:
        try:
            probe = Page.from_response(rt.downloader.get(url, revisit=update), url)
        except FetchError:
            continue
        if not probe.garbled and declares_feed(probe.root):
            return probe
    return None


def _framed_home(rt, page: Page, update: bool) -> Page | None:
    """A frameset start page (no body of its own, no feed): the blog's home is the frame, or the
    page a frame links to, that declares a feed (bounded: MAX_FRAMES frames, MAX_PROBES pages
    they link to); None where none does (the traversal still follows the frames)."""
    if page.garbled:
        return None
    urls = frames(page.root, page.final_url)
    if not urls:
        return None
    read = []
    for url in urls:
        try:
            frame = Page.from_response(rt.downloader.get(url, revisit=update), url)
        except FetchError:
            continue
        if frame.garbled:
            continue
        if declares_feed(frame.root):
            return frame
        read.append(frame)
    return _first_declaring(rt, frame_probes([f.root for f in read], [f.final_url for f in read], page.final_url),
                            update)


def _announced(st, crawl_id: str, home: Page) -> None:
    """The post count the home page's archive widget announces (report, progress ETA)."""
    try:
        total = archive_widget_total(home.root)
    except Exception:  # a count is a nicety: a page it cannot read costs nothing else
        log.debug("no archive count on %s", home.final_url, exc_info=True)
        return
    if total:
        st.announce(crawl_id, "archive widget", total)


# ------------------------------------------------------------------ the feed

# (issue 33) discovery runs again from its start after each politeness wait (HostBusy), its
# fetches answered from Redis (Remembering): a blog whose training reads thirty pages parsed its
# feed pages thirty times over. The parse is pure: kept per process by the bytes parsed.
_PARSED = Recent(32)


def _read_feed(rt, url: str) -> dict:
    resp = rt.downloader.get(url)
    key = (resp.url, resp.content_type, hashlib.sha1(resp.content).hexdigest())
    feed = _PARSED.get(key)
    if feed is None:  # a FeedError is raised again on each run (rare: the search moves on)
        feed = _PARSED[key] = feedlib.parse_feed(resp.content, resp.url, resp.content_type)
    return copy.deepcopy(feed)  # the caller's to change


def _moved(feed: dict, home_url: str, links: list[str]) -> dict:
    """The feed with its entries at the blog's address, where it names them at the one the
    blog had before it moved (tasks.discover.moved); `moved` keeps the change for its next pages."""
    if not links or _lists_ours(feed, home_url):
        return feed
    change = moved_prefix([e.get("url") for e in feed.get("entries", [])], links,
                          lambda u: in_scope(canonical(u), home_url))
    if change is None:
        return feed
    log.info("feed entries named at %s: read at %s", *change)
    return dict(feed, moved=list(change), entries=[_rehomed(e, change) for e in feed.get("entries", [])])


def _rehomed(entry: dict, change) -> dict:
    return dict(entry, url=rehome(entry.get("url"), change), comments_feed=rehome(entry.get("comments_feed"), change))


def _lists_ours(feed: dict, home_url: str) -> bool:
    """Does the feed list a post of this blog (in the crawl's scope)?"""
    return any(e.get("url") and in_scope(canonical(e["url"]), home_url) for e in feed.get("entries", []))


@dataclass
class _FeedSearch:
    """The candidates passed over on the way to the blog's feed, and the best of them."""
    home_url: str
    links: list = field(default_factory=list)  # the home page's links (a feed written before the blog moved)
    tried: list = field(default_factory=list)  # "candidate: why not", every candidate passed over
    skipped: list = field(default_factory=list)  # (candidate, why) of the malformed (bozo) feeds
    fallback: tuple | None = None  # (feed, candidate, lists ours) to take when no clean feed is found
    missing: list = field(default_factory=list)  # the candidates the site said are not there (404, 410)

    def read(self, rt, candidate: str) -> dict | None:
        """The candidate read as a feed, or None (why: in `tried`)."""
        try:
            return _moved(_read_feed(rt, candidate), self.home_url, self.links)
        except FetchError as e:
            self.tried.append(f"{candidate}: {e}")
            if e.kind == "http_status" and e.status in GONE:
                self.missing.append(candidate)
        except feedlib.FeedError as e:
            self.tried.append(f"{candidate}: {e}")
        except Exception as e:  # a feed no parser copes with is that candidate's error
            self.tried.append(f"{candidate}: {type(e).__name__}: {e}")
        return None

    def chooses(self, candidate: str, got: dict) -> bool:
        """A clean feed listing posts of this blog is the one; any other may be the fallback
        (a broken one listing ours over anything listing none of ours)."""
        ours = _lists_ours(got, self.home_url)
        if ours and not got.get("bozo"):
            return True
        if self.fallback is None or (ours and not self.fallback[2]):
            self.fallback = (got, candidate, ours)
        if got.get("bozo"):
            self.skipped.append((candidate, got["bozo"]))
        self.tried.append(f"{candidate}: " + (f"malformed feed ({got['bozo']})" if got.get("bozo")
                                              else "lists no post of this blog"))
        return False


def _find_feed(rt, home: Page, home_url: str, guesses: bool = True) -> tuple[dict | None, str | None, _FeedSearch]:
    """(feed, its URL, the search): the first clean feed listing posts of this blog wins; a
    broken (bozo) one, or one listing nothing of this blog, only if no later candidate does better.
    The usual paths are not guessed (further) once a feed of the blog's own site was read, declared
    or guessed (a static export's /feed/ listing the exporter's URLs: fourteen 404s do not find a
    better one); a feed declared on another host (FeedBurner's) may list none of the blog's URLs
    while the blog's own /feed/ does, and is no reason to stop."""
    search = _FeedSearch(home_url, links=extract_links(home.root, home.final_url))
    declared = set(feedlib.discover_feeds(home.html, home.final_url, guesses=False))
    for candidate in feedlib.discover_feeds(home.html, home.final_url, guesses)[:MAX_FEED_CANDIDATES]:
        if candidate not in declared and search.fallback is not None and same_site(search.fallback[1], home_url):
            break  # a feed of the blog's own site was read: no (further) usual path guessed past it
        if candidate not in declared and feedlib.twin(candidate) in search.missing:
            continue  # a guess whose twin the site said is not there (`/feed` after `/feed/`)
        got = search.read(rt, candidate)
        if got is not None and search.chooses(candidate, got):
            return got, candidate, search
    if search.fallback is not None:
        return search.fallback[0], search.fallback[1], search
    return None, None, search


def _report_feed(st, crawl_id: str, url: str, feed: dict | None, feed_url: str | None,
                 search: _FeedSearch) -> dict:
    """The report's feed errors (no feed, a malformed one read or skipped); the feed, or an
    empty one when there is none (training entries then come from the pages themselves)."""
    if feed is None:
        for t in search.tried[:3]:
            st.add_error(crawl_id, url, "feed", t)
        st.add_error(crawl_id, url, "feed", f"no readable feed found from {url} (tried {len(search.tried)} candidates)")
        feed = {"entries": []}
    if feed.get("bozo"):
        st.add_error(crawl_id, feed_url, "feed", f"malformed feed, partly read: {feed['bozo']}")
    for candidate, why in search.skipped[:3]:
        if candidate != feed_url:
            st.add_error(crawl_id, candidate, "feed", f"malformed feed, skipped for {feed_url}: {why}")
    return feed


def _feed_entries(rt, feed: dict, feed_url: str | None, home_url: str, since: str | None = None) -> list[dict]:
    """The entries of the feed and of its next pages (up to MAX_FEED_PAGES, while they add
    posts; an update crawl's until they reach past `since`), canonical URLs in the crawl's
    scope, each post once."""
    entries, seen = [], set()

    change = feed.get("moved")  # (the blog moved since its feed was written: its next pages too)

    def take(f: dict) -> int:
        before = len(entries)
        moved = f is not feed and change  # (the first page's entries are rehomed already: _moved)
        for e in (_rehomed(e, change) if moved else e for e in f.get("entries", [])):
            u = e.get("url") and canonical(e["url"])
            if u and u not in seen and in_scope(u, home_url):
                seen.add(u)
                entries.append(dict(e, url=u))
        return len(entries) - before

    take(feed)
    page, current, current_url = 1, feed, feed_url
    while feed_url and page < MAX_FEED_PAGES:
        if since and updating.feed_reaches_past(entries, since):
            break  # the next pages list older posts still
        nxt = _next_feed_page(rt, current, current_url, page)
        if nxt is None:
            break
        page += 1
        current, current_url = nxt
        if not take(current):
            break
    return entries


def _next_feed_page(rt, feed: dict, url: str, page: int) -> tuple[dict, str] | None:
    """(the feed's next page, its URL), or None where there is none or it cannot be read."""
    nxt = [u for u in feedlib.next_page_urls(feed, url, page) if u]
    if not nxt:
        return None
    try:
        return _read_feed(rt, nxt[0]), nxt[0]
    except (FetchError, feedlib.FeedError):
        return None


def _nothing_to_learn(url: str, feed_url: str | None, search: _FeedSearch) -> str:
    if feed_url is None:
        return (f"no readable feed found from {url} (tried {len(search.tried)} candidates), "
                f"and no post pages among its links to learn from")
    return f"the feed {feed_url} lists no post of this blog"


def _save(st, crawl_id: str, home: Page, home_url: str, feed: dict, feed_url: str | None,
          entries: list[dict], generic: bool = False) -> None:
    """The entries, what the blog is (home, feed, its metadata), and the home page cached.
    `generic`: no rules will be learned; the traversal reads posts with the page-level extractor."""
    st.save_entries(crawl_id, entries)
    st.save_blog(crawl_id, home=home_url, feed=feed_url, entry_urls=[e["url"] for e in entries], generic=generic,
                 feed_meta={"title": feed.get("title") or _home_title(home), "language": feed.get("language"),
                            "authors": blog_authors(feed, entries)},
                 built=_build_time(feed, entries))
    st.cache_page(crawl_id, home_url, home.cached())
    if feed_url:  # read here: the traversal does not read it again where a page links it
        st.r.sadd(Keys(crawl_id).seen, canonical(feed_url))


def _build_time(feed: dict, entries: list[dict]) -> list[str]:
    """The feed's own time where it is a static site's build, not its newest post's (a Hugo
    feed's lastBuildDate is that post's date): no entry is dated that second."""
    built = build_times([parse_date(feed["updated"]) if feed.get("updated") else None], shared=1)
    dated = build_times([e.get(k) for e in entries for k in ("published", "updated")], shared=1)
    return [b for b in built if b not in dated]


def _home_title(home: Page) -> str | None:
    """The blog's name where no feed gives it: the home page's <title> (what no post is titled)."""
    found = home.root.xpath("//title")
    return (normalize_text("".join(found[0].itertext())) or None) if found else None


# ------------------------------------------------------------------ decisions

def _decide_js(rt, crawl_id: str, url: str, entries: list[dict]) -> bool:
    """rendering.decide on `entries`; True once decided (a failure goes to the report)."""
    try:
        rendering.decide(rt, crawl_id, entries)
        return True
    except HostBusy:  # politeness: the task does discovery again at the host's next turn
        raise
    except Exception as e:  # without a decision the pages are read as served
        log.exception("--js auto decision for %s failed", url)
        rt.state.add_error(crawl_id, url, "render", f"could not decide on rendering: {type(e).__name__}: {e}")
        return False


def _learns(rt, crawl_id: str, url: str, entries: list[dict]) -> bool:
    """Are rules learned? Always, but for an update crawl whose stored rules still read the feed."""
    st = rt.state
    if not (st.options(crawl_id).get("update") and st.blog(crawl_id).get("rules")):
        return True
    if rules_still_match(rt, crawl_id, _not_held(rt, crawl_id, entries)[:5]):
        return False
    st.add_error(crawl_id, url, "relearn", "stored rules stopped matching the feed: re-learning")
    return True


def _not_held(rt, crawl_id: str, entries: list[dict]) -> list[dict]:
    """The entries whose posts the blog's records do not hold yet (issue 35: an update crawl
    checks its stored rules on new posts, which it reads anyway, not on posts it holds)."""
    if not entries:
        return []
    held = rt.state.r.hmget(rt.keys(crawl_id).hashes, [e["url"] for e in entries])
    return [e for e, h in zip(entries, held) if not h]


def rules_still_match(rt, crawl_id: str, entries: list[dict]) -> bool:
    """update_crawl's check: do the stored rules still extract what the feed says?"""
    stored = rt.state.blog(crawl_id).get("rules") or {}
    # the learned rules alone: runners-up may still find a moved field, but then it is time to re-learn
    rules = {f: {"rule": v["rule"]} for f, v in stored.items() if isinstance(v, dict) and v.get("rule")}
    ok = n = 0
    for e in entries:
        try:
            page = fetched(rt, crawl_id, e["url"], revisit=True)  # update crawls only: unchanged is a WARC revisit
        except FetchError:
            continue
        if page is None:  # binary or not HTML: no evidence either way (the traversal reports it)
            continue
        n += 1
        ok += bool(matches_entry(extract_root(page.root, page.html, rules), e))
    return n == 0 or ok * 2 >= n
