"""Training entries for a blog whose feed is missing, broken, excerpt-only or short.

Algorithm 2 needs (page, target) pairs. Without a feed the targets come from the pages
themselves: what each page says of itself (JSON-LD, og:title, article:published_time,
`<time datetime>`, `<title>` against its headings) and the content a page-level
extractor finds (tasks.extract.generic). A single page's self-description may lie (a
`<title>` with the site name, a sidebar `<time>`), so a field's *source* is chosen by
what agrees across the pages of one template: the source that reads the same as another
source on most pages wins, and is used on all of them. Pages are first grouped by
template (the set of id/class names they use) so that listings and the about page do
not vote with the posts.

For excerpt-only feeds (Oita & Senellart, "feed data objects"): an entry's summary is
found again in its own page, inside the content the page-level extractor reads there; if
it is, that content becomes the entry's target, so the content rule is learned on the
whole post rather than climbed to from a first paragraph.

What one page says of itself is read by tasks.extract.page_facts (re-exported here:
`page_facts`, `self_description`); this module decides across pages.
"""
from __future__ import annotations

import re
from collections import Counter

from tasks.extract.page_facts import (AUTHOR_SOURCES, DATE_SOURCES, TITLE_SOURCES, agreed, author_candidates,
                                      date_candidates, page_facts, same_text, self_description, title_candidates)
from tasks.fetch.html import html_to_text
from tasks.learn.shared_blocks import without_shared_blocks
from tasks.text.similarity import dice, normalize_text

__all__ = ["page_facts", "self_description", "pseudo_entries", "checked_by_feed", "enrich_excerpt",
           "group_by_template", "training_need", "MIN_ENTRIES", "MIN_POST_CHARS"]

MIN_ENTRIES = 10  # fewer feed entries than this: the feed alone is too short to train on
MIN_PSEUDO = 3  # a blog with fewer post pages than this has nothing to learn from
TEMPLATE_JACCARD = 0.6  # pages this alike in their id/class names share a template
MIN_POST_CHARS = 200  # a page whose extracted content is shorter is not a post
DATED_SHARE = 0.6  # most post pages show a date: then an undated page of their template is no post
SUMMARY_MATCH = 0.6  # share of a summary's word 3-grams found in the page content (Oita)


# ---------------------------------------------------------------- one page







































# ---------------------------------------------------------------- across pages

_AFFIX_SEP = re.compile(r"\s*[|:\-–—·•»«]+\s*")


_GROUP = re.compile(r"\s*[(\[（【「][^()\[\]（）【】「」]+[)\]）】」]\s*")  # "Post (Blog name)": a site's name in brackets


def _common_affixes(titles: list[str]) -> tuple[str | tuple, str | tuple]:
    """The prefix and suffix that the `<title>`s share (the site name), if any: the part all of
    them share, else, after the title, the parts beyond a separator that several share ("Post
    · Blog" on most pages, "Note · Notes" on a few: a site's sections name themselves after the
    title). A prefix most but not all share is a series ("The Newsletter - 9", "Review: X"),
    part of each title."""
    titles = [t for t in titles if t]
    if len(titles) < 2:
        return "", ""

    def common(ts):
        first = ts[0]
        n = len(first)
        for t in ts[1:]:
            n = min(n, len(t))
            while n and t[:n] != first[:n]:
                n -= 1
        return first[:n]

    pre, suf = common(titles), common([t[::-1] for t in titles])[::-1]
    # only whole words around a separator count: "Post A | Blog" and "Post B | Blog" share " | Blog"
    pre = pre if re.search(r"[|:\-–—·•»«]\s*$", pre) or _GROUP.fullmatch(pre) else ""
    suf = suf if re.match(r"^\s*[|:\-–—·•»«]", suf) or _GROUP.fullmatch(suf) else ""
    if not suf:
        suf = tuple(sorted(_shared_parts(titles, lambda t, m: t[m.start():], 2), key=len, reverse=True)) or ""
    return pre, suf


def _shared_parts(titles: list[str], part, least: int) -> list[str]:
    """The parts of titles cut at a separator (`part(title, match)`, text left on both sides)
    that `least` titles at least have, none holding another (the longest of nested ones)."""
    counts: Counter = Counter()
    for t in titles:
        counts.update({part(t, m) for m in _AFFIX_SEP.finditer(t) if 0 < m.start() and m.end() < len(t)})
    shared = [a for a, n in counts.items() if n >= least]
    return [a for a in shared if not any(b != a and (b.endswith(a) or b.startswith(a)) for b in shared)]


def group_by_template(facts: list[dict], threshold: float = TEMPLATE_JACCARD) -> list[list[int]]:
    """Indices of `facts` grouped by template (greedy, Jaccard of id/class names), largest first."""
    groups: list[tuple[set, list[int]]] = []
    # names on one page only are its content's (heading anchors, a post's own ids), not the template's
    df = Counter(n for f in facts for n in set(f.get("template") or ()))
    for i, f in enumerate(facts):
        sig = {n for n in f.get("template") or () if df[n] > 1 or len(facts) == 1}
        for seed, members in groups:
            union = len(sig | seed)
            if union and len(sig & seed) / union >= threshold:
                members.append(i)
                break
        else:
            groups.append((sig, [i]))
    return sorted((m for _, m in groups), key=len, reverse=True)


def _is_post_like(f: dict) -> bool:
    text = (f.get("content") or {}).get("content_text") or ""
    return len(text) >= MIN_POST_CHARS


def _vote(per_page: list[dict], order: tuple) -> str | None:
    """The source that agrees with another source on most pages (ties: `order`), else the
    source present on most pages."""
    agree, present = Counter(), Counter()
    for cands in per_page:
        for k in order:
            v = cands.get(k)
            if not v:
                continue
            present[k] += 1
            if any(k2 != k and cands.get(k2) and same_text(str(v), str(cands[k2])) for k2 in order):
                agree[k] += 1
    rank = agree if agree else present
    if not rank:
        return None
    return max(order, key=lambda k: (rank[k], present[k], -order.index(k)))


SHARED_TITLE = 1 / 3  # a title source giving one text on more than this share of pages gives the site's name


def _without_shared(sources, per_page: list[dict]) -> list[dict]:
    """The pages' title candidates without the sources that read one text on many pages (an
    og:title or heading that is the site's name on every page is no post's title)."""
    shared = set()
    for k in sources:
        values = [normalize_text(c[k]).casefold() for c in per_page if c.get(k)]
        if len(values) >= 2 and (n := Counter(values).most_common(1)[0][1]) >= 2 and n > SHARED_TITLE * len(values):
            shared.add(k)
    return [{k: (None if k in shared else v) for k, v in c.items()} for c in per_page]


SHARED_DAY = 0.5  # a date source giving one day on more than this share of pages (three at least): no post's


def _without_shared_days(per_page: list[dict]) -> list[dict]:
    """The pages' date candidates without the values of a source that reads one day on most of
    them: a build time, a copyright year read as its January 1st, a date in the template."""
    shared = {}
    for k in {k for c in per_page for k in c}:
        days = [str(c[k])[:10] for c in per_page if c.get(k)]
        if days and (top := Counter(days).most_common(1)[0])[1] >= 3 and top[1] > SHARED_DAY * len(days):
            shared[k] = top[0]
    return [{k: (None if k in shared and v and str(v)[:10] == shared[k] else v) for k, v in c.items()} for c in per_page]


def _post_template(facts: list[dict], prefer) -> list[dict]:
    """The post-like pages of the posts' template: the template most of the known posts
    (`prefer`) have, else the largest; none where known posts were read but none of them
    reads as a post here."""
    posts = [f for f in facts if _is_post_like(f)]
    if not posts:
        return []
    groups = group_by_template(posts)
    known = set(prefer)
    groups.sort(key=lambda g: (sum(posts[i].get("url") in known for i in g), len(g)), reverse=True)
    if any(f.get("url") in known for f in facts) and not any(posts[i].get("url") in known for i in groups[0]):
        return []
    return [posts[i] for i in groups[0]]


def _voted_sources(titles: list[dict], dates: list[dict], authors: list[dict]) -> dict:
    """Per field, the source the template's pages agree on (see _vote)."""
    joined = [{k: "; ".join(v) if v else None for k, v in a.items()} for a in authors]
    return {"title": _vote(titles, TITLE_SOURCES), "date": _vote(dates, DATE_SOURCES),
            "author": _vote(joined, AUTHOR_SOURCES)}


def _entry(f: dict, titles: dict, dates: dict, authors: dict, src: dict) -> dict | None:
    """A feed-like entry for one page by the voted sources, or None without a title or content."""
    content = f.get("content") or {}
    title = (titles.get(src["title"]) if src["title"] else None) or agreed(titles)
    if not title or not content.get("content_html"):
        return None
    url = f.get("permalink") or f["url"]  # the permalink the page declares, where it has one
    return {"url": url, "id": url, "title": title,
            "content_html": content["content_html"], "summary_html": None,
            "authors": (authors.get(src["author"]) if src["author"] else None) or [],
            "published": (dates.get(src["date"]) if src["date"] else None), "updated": None,
            "comments_feed": None, "comment_count": None, "enclosures": [],
            # the extractor's byline guess is weak (a "Posted by" label): the page's own markup may overrule it
            "authors_from_feed": src["author"] in (None, "extractor"),
            "pseudo": True, "sources": dict(src)}




def _confirmed_titles(titles: list[dict], source: str | None) -> list[bool]:
    """Per page, whether the voted title source says what another source of the page says.
    Where enough pages to learn from confirm it, a page that does not is no post of the
    template: a monthly archive of one post in the posts' template ("June 2017 Archives" in
    <title>, the post's title in its heading), which may outnumber the posts a home page links."""
    if not source:
        return [True] * len(titles)
    ok = [bool(t.get(source)) and any(k != source and t.get(k) and same_text(str(t[source]), str(t[k]))
                                      for k in TITLE_SOURCES) for t in titles]
    if sum(ok) < MIN_PSEUDO:
        return [True] * len(titles)
    return ok


def pseudo_entries(facts: list[dict], prefer: list[str] | tuple = ()) -> list[dict]:
    """Feed-like entries for the pages of the post template. `prefer`: URLs known to be
    posts (a short feed's entries): their template is the posts' template. Where they were
    read but none reads as a post here (script-drawn shells), the posts' template is not
    among these pages: no entries, rather than the listings' or tag pages' template."""
    chosen = _post_template(facts, prefer)
    if not chosen:
        return []
    pre, suf = _common_affixes([f.get("title_tag") or "" for f in chosen])
    affixes = {k: _common_affixes([f.get(k) or "" for f in chosen]) for k in ("ld_title", "og_title")}
    affixes["extractor"] = _common_affixes([(f.get("content") or {}).get("title") or "" for f in chosen])
    titles = _without_shared(TITLE_SOURCES, [title_candidates(f, pre, suf, affixes) for f in chosen])
    dates = _without_shared_days([date_candidates(f) for f in chosen])
    authors = [author_candidates(f) for f in chosen]
    src = _voted_sources(titles, dates, authors)
    targets = without_shared_blocks([(f.get("content") or {}).get("content_html") for f in chosen])
    chosen = [dict(f, content=dict(f["content"], content_html=t)) if t != (f.get("content") or {}).get("content_html")
              else f for f, t in zip(chosen, targets)]
    # where most pages of the template are dated, an undated one is a page (about, contact), not a post
    dated = sum(any(d.values()) for d in dates) >= DATED_SHARE * len(dates)
    confirmed = _confirmed_titles(titles, src["title"])
    out, urls = [], set()
    for f, t, d, a, ok in zip(chosen, titles, dates, authors, confirmed):
        entry = None if (dated and not any(d.values())) or not ok else _entry(f, t, d, a, src)
        if entry is not None and entry["url"] not in urls:
            urls.add(entry["url"])
            out.append(entry)
    return _without_common_label(_usual_shapes(out, prefer))


def _without_common_label(entries: list[dict]) -> list[dict]:
    """The entries' titles without a label every one of them starts or ends with ("Post details:
    Blog moved": a template's words before each post's heading, which the heading source and a
    <title> of the site's sections both say): what is left is the title the post shows."""
    titles = [e["title"] for e in entries]
    if len(titles) < MIN_PSEUDO:
        return entries
    pre, suf = _common_affixes(titles)
    suf = suf if isinstance(suf, str) else ""
    if not (pre or suf):
        return entries
    out = []
    for e in entries:
        t = e["title"][len(pre):] if pre else e["title"]
        t = t[:len(t) - len(suf)] if suf and t.endswith(suf) else t
        out.append(dict(e, title=t.strip()) if t.strip() else e)
    return out


def _usual_shapes(entries: list[dict], prefer=()) -> list[dict]:
    """Leave out entries whose URL shape few others share, when one shape holds most of them:
    /about/ beside forty /2012/03/08/slug/ posts is a page in the posts' template."""
    from tasks.discover.candidates import url_shape

    def shape(u: str) -> str:  # the post's own name, whatever its spelling (/2013/07/21/196/, /trottmas/)
        return re.sub(r"<(?:word|slug|\d+d)>(/?)$", r"<name>\1", url_shape(u).split("?")[0])

    shapes = Counter(shape(e["url"]) for e in entries)
    shapes.update(shape(u) for u in prefer)
    total = sum(shapes.values())
    if not entries or total < 2 * MIN_PSEUDO or shapes.most_common(1)[0][1] * 2 < total:
        return entries
    # a quarter at least: a pseudo entry is taken for a post unread (a wrong one, a page, is in the
    # output for good); a post of a rarer scheme is still found by its template in the traversal
    return [e for e in entries if shapes[shape(e["url"])] * 4 >= total]


def checked_by_feed(pseudo: list[dict], entries: list[dict], facts_of: dict) -> list[dict]:
    """Pseudo entries whose date and authors come from a page source that the feed confirms.

    A feed (even an excerpt-only or short one) states the date and authors of its own
    posts; read on those posts' pages, the source the pseudo entries use must say the same
    on every one of them, else the field is left out of the pseudo entries (the feed's
    entries alone then teach it): a meta author that is the site's name, an extractor
    reading 08/05 as August (right from the 13th on: a few wrong pages are wrong targets
    all the same). Where no feed post can be checked the pseudo entries stay as they are."""
    checks = {"date": (date_candidates, lambda e: e.get("published"), _same_day),
              "author": (author_candidates, lambda e: e.get("authors"), _same_names)}
    drop = set()
    for field, (candidates, stated, same) in checks.items():
        src = next((p["sources"].get(field) for p in pseudo if p.get("sources", {}).get(field)), None)
        n = agree = 0
        for e in entries:
            f = facts_of.get(e.get("url"))
            got, want = (candidates(f).get(src) if f and src else None), stated(e)
            if got and want:
                n += 1
                agree += bool(same(got, want))
        if agree < n:
            drop.add(field)
    if not drop:
        return pseudo
    out = []
    for p in pseudo:
        p = dict(p, sources=dict(p["sources"]))
        if "date" in drop:
            p["published"], p["sources"]["date"] = None, None
        if "author" in drop:
            p["authors"], p["authors_from_feed"], p["sources"]["author"] = [], True, None
        out.append(p)
    return out


def _same_day(a: str, b: str) -> bool:
    """Two dates a day apart at most (a page's local day against the feed's UTC time)."""
    import datetime as dt

    try:
        return abs((dt.date.fromisoformat(a[:10]) - dt.date.fromisoformat(b[:10])).days) <= 1
    except ValueError:
        return False


def _same_names(a: list[str], b: list[str]) -> bool:
    return any(same_text(x, y) for x in a for y in b)


# ---------------------------------------------------------------- feeds that fall short

def training_need(entries: list[dict]) -> str | None:
    """Why a feed's entries do not suffice for training: "none", "excerpt", "short", or None."""
    if not entries:
        return "none"
    full = [e for e in entries if e.get("content_html") and not e.get("content_is_summary")]
    if len(full) * 2 < len(entries):
        return "excerpt"
    if len(entries) < MIN_ENTRIES:
        return "short"
    return None


def _grams(text: str, n: int = 3) -> set:
    words = re.findall(r"\w+", text.casefold())
    return {tuple(words[i:i + n]) for i in range(max(0, len(words) - n + 1))}


def summary_in(summary_html: str | None, content_text: str | None) -> float:
    """The share of a summary's word 3-grams found in `content_text` (Oita & Senellart's
    test that a feed data object is the page's object)."""
    s = _grams(html_to_text(summary_html or ""))
    if not s or not content_text:
        return 0.0
    return len(s & _grams(content_text)) / len(s)


def enrich_excerpt(entry: dict, facts: dict) -> dict:
    """An excerpt-only feed entry with its full content, when the page-level extractor's
    content on the entry's page holds the summary (and agrees on the title); else as is."""
    content = facts.get("content") or {}
    summary = entry.get("summary_html") or entry.get("content_html")
    if not content.get("content_html") or summary_in(summary, content.get("content_text")) < SUMMARY_MATCH:
        return entry
    if len(content.get("content_text") or "") < len(html_to_text(summary or "")):
        return entry
    if entry.get("title") and content.get("title") and dice(entry["title"], content["title"]) < 0.3 \
            and not any(same_text(entry["title"], h) for h in facts.get("headings") or []):
        return entry
    return dict(entry, content_html=content["content_html"], content_is_summary=False,
                summary_html=summary, content_from="page")
