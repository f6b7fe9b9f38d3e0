"""Walk a served site by its links, as the dumbest polite crawler would: the farm's reachability oracle.

`walk(home)` fetches pages over HTTP (requests), follows `<a href>` within the origin in
the order a priority function gives (breadth-first by default), obeys robots.txt (protego),
keeps the feeds it meets through `<link rel="alternate">`, and stops after `budget` fetches.
"""
from __future__ import annotations

import heapq
import itertools
import urllib.parse
from dataclasses import dataclass, field

import requests
from lxml import html as lhtml
from protego import Protego

SKIP_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg", ".css", ".js", ".ico")
FEED_TYPES = ("application/rss+xml", "application/atom+xml", "application/rdf+xml", "application/xml", "text/xml")


@dataclass
class Walk:
    pages: dict[str, int] = field(default_factory=dict)  # url -> status, in fetch order
    feeds: dict[str, bytes] = field(default_factory=dict)  # feed url -> body
    fetches: int = 0


def canonical(url: str) -> str:
    return urllib.parse.urldefrag(url)[0]


def walk(home: str, budget: int = 5000, priority=None, stop=None, session: requests.Session | None = None) -> Walk:
    """Fetch from `home` until nothing is left, `budget` fetches are spent, or `stop(walk)` is true.

    `priority(url, depth)` returns a sort key (lower first); None is breadth-first.
    """
    s = session or requests.Session()
    origin = "{0.scheme}://{0.netloc}".format(urllib.parse.urlsplit(home))
    robots = Protego.parse(s.get(origin + "/robots.txt", timeout=10).text)
    key = priority or (lambda url, depth: depth)
    order = itertools.count()
    heap = [(key(home, 0), next(order), home, 0)]
    seen = {home}
    out = Walk()
    while heap and out.fetches < budget and not (stop and stop(out)):
        _, _, url, depth = heapq.heappop(heap)
        r = s.get(url, timeout=10, allow_redirects=True)
        out.fetches += 1 + len(r.history)
        final = canonical(r.url)
        out.pages[url] = r.status_code
        if final != url:
            out.pages[final] = r.status_code
        ctype = r.headers.get("Content-Type", "")
        if r.status_code != 200 or "html" not in ctype:
            continue
        doc = lhtml.fromstring(r.content, base_url=final)
        links = [canonical(urllib.parse.urljoin(final, h)) for h in doc.xpath("//a/@href")]
        for el in doc.xpath('//link[@rel="alternate"][@href]'):
            if el.get("type", "") in FEED_TYPES:
                f = urllib.parse.urljoin(final, el.get("href"))
                if f not in out.feeds and f.startswith(origin):
                    fr = s.get(f, timeout=10)
                    out.fetches += 1
                    if fr.status_code == 200:
                        out.feeds[f] = fr.content
        for link in links:
            if (link in seen or not link.startswith(origin + "/")
                    or urllib.parse.urlsplit(link).path.lower().endswith(SKIP_SUFFIXES)
                    or not robots.can_fetch(link, "blogharvest")):
                continue
            seen.add(link)
            heapq.heappush(heap, (key(link, depth + 1), next(order), link, depth + 1))
    return out
