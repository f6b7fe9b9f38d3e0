"""Key names of the shared state (docs/state.md): a crawl's and its blog's, all under the blog's
hash tag `{<blog id>}` so that on Redis Cluster they share one slot (workers/state.py uses them)."""
from __future__ import annotations

import hashlib
import uuid
from urllib.parse import urlsplit


def blog_id(home_url: str) -> str:
    p = urlsplit(home_url)
    host = (p.hostname or "").lower()
    if host.startswith("www."):
        host = host[4:]
    port = f":{p.port}" if p.port else ""
    path = p.path.rstrip("/")
    return hashlib.sha1(f"{host}{port}{path}".encode()).hexdigest()[:12]


def new_crawl_id(home_url: str) -> str:
    return f"{blog_id(home_url)}-{uuid.uuid4().hex[:10]}"


def blog_of(crawl_id: str) -> str:
    return crawl_id.split("-", 1)[0]


def url_key(url: str) -> str:
    return hashlib.sha1(url.encode()).hexdigest()[:16]


class Keys:
    """The key names of one crawl (and of its blog)."""

    def __init__(self, crawl_id: str):
        self.crawl_id = crawl_id
        b = blog_of(crawl_id)
        self.blog = f"bh:{{{b}}}:blog"  # hash: home, rules, pattern, feed, comment_rule
        self.records = f"bh:{{{b}}}:records"  # hash: post url -> record JSON (latest)
        self.hashes = f"bh:{{{b}}}:hashes"  # hash: post url -> content hash
        self.samples = f"bh:{{{b}}}:samples"  # list: [url, post links] for the priority model
        self.sampled = f"bh:{{{b}}}:sampled"  # counter: samples ever added (the list keeps the newest)
        self.active = f"bh:{{{b}}}:active"  # string: the unfinished crawl of this blog
        self.crawls = f"bh:{{{b}}}:crawls"  # zset: crawl id -> creation time, this blog's crawls
        self.no_sitemap = f"bh:{{{b}}}:no_sitemap"  # set: usual sitemap paths found missing (update crawls skip them)
        c = f"bh:{{{b}}}:crawl:{crawl_id}"
        self.crawl = c  # hash: state, url, since, counters, times
        self.frontier = f"{c}:frontier"  # zset: url -> priority (ZPOPMAX first)
        self.seen = f"{c}:seen"  # set: every url ever queued in this crawl
        self.done = f"{c}:done"  # set: urls fully processed
        self.inflight = f"{c}:inflight"  # hash: url -> time handed out
        self.posts = f"{c}:posts"  # set: post urls whose records belong to this crawl's output
        self.errors = f"{c}:errors"  # list: JSON error entries (the crawl's report)
        self.entries = f"{c}:entries"  # hash: post url -> feed entry JSON (training pairs)
        self.pages = f"{c}:pages"  # hash: url -> cached page (fetched for learning)
        # discovery sources (issue 15)
        self.sitemaps = f"{c}:sitemaps"  # hash: sitemap url -> JSON {"guessed", "next"} (what to try after it)
        self.sources = f"{c}:sources"  # hash: url -> the source that found it (feed, sitemap); none: links
        self.ended = f"{c}:ended"  # list: one item pushed when the crawl ends, to wake its follower
        self.bodies = f"{c}:bodies"  # hash: body key (title + text) -> the post url that holds it
        self.patterns = f"bh:{{{b}}}:patterns"  # hash: further post pattern -> posts recognised under it
        self.trace = f"{c}:trace"  # list: [url, produced a record] per processed page (option trace)
        # traps (tasks/discover/traps.py): per part of the site, its pages in a row that brought
        # more of it and no post; the parts cut (family -> that count when cut)
        self.barren = f"{c}:barren"  # hash: family -> pages in a row
        self.cut = f"{c}:cut"  # hash: family -> pages in a row when it was cut
        self.inlist = f"{c}:inlist"  # hash: page url -> JSON its slots of links (tasks/discover/unlisted.py)
        self.aliases = f"{c}:aliases"  # hash: url -> the url whose record shows its post (one record per post)
        self.menu = f"{c}:menu"  # set: posts the home page's menu links (a page unless a listing lists it)
        self.listed_days = f"{c}:listed_days"  # hash: post url -> the day a listing prints beside it

    def fetched(self, scope: str | None = None) -> str:
        """hash: what a deferred step fetched (workers/fetch/patience.py); `scope`: the page's url."""
        return f"{self.crawl}:fetched" + (f":{url_key(scope)}" if scope else "")

    def working(self) -> list[str]:
        """The keys a crawl needs while it runs only."""
        return [self.seen, self.frontier, self.inflight, self.done, f"{self.crawl}:attempts",
                self.entries, self.pages, f"{self.crawl}:variants",
                self.sitemaps, self.sources, self.bodies, f"{self.crawl}:fallbacks", f"{self.crawl}:skipped",
                f"{self.crawl}:later", f"{self.crawl}:waits", f"{self.crawl}:no_sitemap", self.barren, self.cut,
                f"{self.crawl}:suspects", f"{self.crawl}:alone", self.inlist, self.aliases, self.menu, f"{self.crawl}:near",
                f"{self.crawl}:stamped", f"{self.crawl}:dated_old", f"{self.crawl}:dated_new", f"{self.crawl}:changed",
                f"{self.crawl}:held", self.listed_days,
                *self.listings()]

    def listings(self) -> list[str]:
        """An update crawl's listings judged by the days of their posts (workers/discover/listed.py)."""
        return [f"{self.crawl}:lists", f"{self.crawl}:listed", f"{self.crawl}:days", f"{self.crawl}:vouched"]

    def all_crawl_keys(self) -> list[str]:
        return [self.crawl, self.frontier, self.seen, self.done, self.inflight, self.posts,
                self.errors, self.entries, self.pages, f"{self.crawl}:attempts", self.trace,
                self.sitemaps, self.sources, self.bodies, f"{self.crawl}:fallbacks", f"{self.crawl}:later",
                f"{self.crawl}:waits", f"{self.crawl}:no_sitemap", self.barren, self.cut,
                f"{self.crawl}:suspects", f"{self.crawl}:alone", self.inlist, self.aliases, self.menu, f"{self.crawl}:near",
                f"{self.crawl}:stamped", f"{self.crawl}:dated_old", f"{self.crawl}:dated_new", f"{self.crawl}:changed",
                f"{self.crawl}:held", self.listed_days,
                *self.listings()]
