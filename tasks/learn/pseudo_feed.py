"""Training entries for a blog whose feed is missing, broken, excerpt-only or short.

Algorithm 2 needs (page, target) pairs. Without a feed the targets come from the pages
themselves: what each page says of itself (JSON-LD, og:title, article:published_time,
`<time datetime>`, `<title>` against its headings) and the content a page-level
extractor finds (tasks.extract.fallback). A single page's self-description may lie (a
`<title>` with the site name, a sidebar `<time>`), so a field's *source* is chosen by
what agrees across the pages of one template: the source that reads the same as another
source on most pages wins, and is used on all of them. Pages are first grouped by
template (the set of id/class names they use) so that listings and the about page do
not vote with the posts.

For excerpt-only feeds (Oita & Senellart, "feed data objects"): an entry's summary is
found again in its own page, inside the content the page-level extractor reads there; if
it is, that content becomes the entry's target, so the content rule is learned on the
whole post rather than climbed to from a first paragraph.

Note: tasks/extract/metadata.py (`page_metadata`, issue 16) will read JSON-LD/meta for
records; `page_facts` here is the minimal reader the learner needs until then.
"""
from __future__ import annotations

import re
from collections import Counter

from tasks.fetch.html import html_to_text, json_ld, node_text, parse_html
from tasks.text.dates import parse_date
from tasks.text.similarity import dice, normalize_text

MIN_ENTRIES = 10  # fewer feed entries than this: the feed alone is too short to train on
MIN_PSEUDO = 3  # a blog with fewer post pages than this has nothing to learn from
TEMPLATE_JACCARD = 0.6  # pages this alike in their id/class names share a template
MIN_POST_CHARS = 200  # a page whose extracted content is shorter is not a post
DATED_SHARE = 0.6  # most post pages show a date: then an undated page of their template is no post
SUMMARY_MATCH = 0.6  # share of a summary's word 3-grams found in the page content (Oita)
_POST_TYPES = {"article", "blogposting", "newsarticle", "posting", "socialmediaposting", "techarticle",
               "report", "webpage"}
_DATE_META = ("article:published_time", "og:published_time", "datepublished", "date", "dc.date",
              "dc.date.issued", "pubdate", "publishdate", "sailthru.date", "parsely-pub-date")
_AUTHOR_META = ("author", "article:author", "dc.creator", "parsely-author")
# a field's sources, most trusted first (ties of the vote go to the first)
_TITLE_SOURCES = ("ld", "og", "heading", "title", "extractor")
_DATE_SOURCES = ("ld", "meta", "time", "extractor")
_AUTHOR_SOURCES = ("ld", "meta", "extractor")


# ---------------------------------------------------------------- one page

def _ld_post(objs: list) -> dict:
    """The JSON-LD object describing the page's post (an Article-like type), or {}."""
    best = {}
    for o in objs:
        t = o.get("@type")
        types = {x.lower() for x in (t if isinstance(t, list) else [t]) if isinstance(x, str)}
        if types & _POST_TYPES and (o.get("headline") or o.get("datePublished")):
            if not best or "webpage" not in types:
                best = o
    return best


def _ld_authors(value) -> list[str]:
    out = []
    for a in value if isinstance(value, list) else [value]:
        name = a.get("name") if isinstance(a, dict) else a if isinstance(a, str) else None
        if isinstance(name, str) and name.strip():
            out.append(normalize_text(name))
    return out


def _meta(root, names) -> dict:
    got = {}
    for m in root.iter("meta"):
        key = (m.get("property") or m.get("name") or m.get("itemprop") or "").strip().lower()
        if key in names and key not in got and (m.get("content") or "").strip():
            got[key] = normalize_text(m.get("content"))
    return got


def template_signature(root) -> list[str]:
    """The id and class names a page's markup uses (its template, not its text)."""
    names = set()
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        for c in (el.get("class") or "").split():
            names.add(f"{el.tag}.{c}")
        if el.get("id") and not re.search(r"\d{3,}", el.get("id")):  # post-123 ids differ per page
            names.add(f"{el.tag}#{el.get('id')}")
    return sorted(names)


def _headings(root) -> list[str]:
    """The page's h1, h2, h3 texts (up to about 12, none over 300 characters)."""
    headings = []
    for tag in ("h1", "h2", "h3"):
        for h in root.iter(tag):
            t = node_text(h)
            if t and len(t) <= 300:
                headings.append(t)
            if len(headings) >= 12:
                break
    return headings


def _first_time(root) -> str | None:
    """The first `<time datetime>` value of the page."""
    for t in root.iter("time"):
        d = (t.get("datetime") or "").strip()
        if d:
            return d
    return None


def _ld_facts(ld: dict) -> dict:
    """What the page's JSON-LD post object says: title, date, authors."""
    return {"ld_title": normalize_text(ld["headline"]) if isinstance(ld.get("headline"), str) else None,
            "ld_date": ld.get("datePublished") if isinstance(ld.get("datePublished"), str) else None,
            "ld_authors": _ld_authors(ld.get("author"))}


def _meta_facts(meta: dict) -> dict:
    """What the page's meta tags say: og/twitter title, the first date and author known."""
    return {"og_title": meta.get("og:title") or meta.get("twitter:title"),
            "meta_date": next((meta[k] for k in _DATE_META if k in meta), None),
            "meta_authors": [meta[k] for k in _AUTHOR_META if k in meta][:1]}


def page_facts(html: str, url: str | None = None, content: bool = True, root=None) -> dict:
    """What one page says of itself, every source apart (JSON-, not lxml-, valued), and,
    with `content`, what the page-level extractor reads as its content. `root`: the page
    already parsed (read only here), so it is not parsed again."""
    root = root if root is not None else parse_html(html, url)
    meta = _meta(root, set(_DATE_META) | set(_AUTHOR_META) | {"og:title", "twitter:title", "og:type"})
    title_el = root.find(".//title")
    facts = {"url": url, **_ld_facts(_ld_post(json_ld(html))), **_meta_facts(meta),
             "title_tag": node_text(title_el) if title_el is not None else None,
             "headings": _headings(root),
             "time_date": _first_time(root),
             "template": template_signature(root)}
    if content:
        from tasks.extract.fallback import page_content

        facts["content"] = page_content(html, url)
    return facts


def _same(a: str | None, b: str | None) -> bool:
    return bool(a and b) and normalize_text(a).casefold() == normalize_text(b).casefold()


def _strip_affix(title: str | None, prefix: str = "", suffix: str = "") -> str | None:
    """A `<title>` without the site-wide part ("Post | Blog name") and its separator."""
    if not title:
        return None
    t = title
    if prefix and t.startswith(prefix):
        t = t[len(prefix):]
    if suffix and t.endswith(suffix):
        t = t[: len(t) - len(suffix)]
    t = re.sub(r"^[\s|:\-–—·•»«]+|[\s|:\-–—·•»«]+$", "", t)
    return t or None


def _title_part(title: str | None, headings: list[str]) -> str | None:
    """One page alone: the part of "Post | Site" (either side of a separator) that a heading repeats."""
    if not title:
        return None
    t = normalize_text(title)
    found = []
    for h in headings:
        h = normalize_text(h)
        if not h:
            continue
        if t.casefold() == h.casefold():
            return h
        if (t.endswith(h) and re.search(r"[|:\-–—·•»«]\s*$", t[: -len(h)])) or \
                (t.startswith(h) and re.match(r"^\s*[|:\-–—·•»«]", t[len(h):])):
            found.append(h)
    # both sides may be headings ("Site: Post", a masthead h1): the post's title is the longer, mostly
    return max(found, key=len) if found else None


def _title_candidates(f: dict, prefix: str = "", suffix: str = "", affixes: dict | None = None) -> dict:
    """source -> this page's title by that source. `affixes`: the site-wide part that a source's
    titles share on every page of the template (og:title "Post - Blog" as often as <title>)."""
    stripped = _strip_affix(f.get("title_tag"), prefix, suffix)
    own = {k: _strip_affix(f.get(k), *(affixes or {}).get(k, ("", ""))) for k in ("ld_title", "og_title")}
    if not (prefix or suffix):
        stripped = _title_part(f.get("title_tag"), f.get("headings") or []) or stripped
    heading = next((h for h in f.get("headings") or [] if stripped and _same(h, stripped)), None)
    if heading is None:  # the first heading another source agrees with
        heading = next((h for h in f.get("headings") or []
                        if any(_same(h, own[k]) for k in ("ld_title", "og_title"))), None)
    content = _strip_affix((f.get("content") or {}).get("title"), *(affixes or {}).get("extractor", ("", "")))
    return {"ld": own["ld_title"], "og": own["og_title"], "title": stripped, "heading": heading,
            "extractor": content}


def _date_candidates(f: dict) -> dict:
    content = (f.get("content") or {}).get("published")
    return {k: parse_date(v) if v else None for k, v in (
        ("ld", f.get("ld_date")), ("meta", f.get("meta_date")), ("time", f.get("time_date")),
        ("extractor", content))}


_BYLINE_LABEL = re.compile(r"(?:^|\s)(?:by|par|von|por|di|door|posted|published)\s*[:\-–—]?$", re.I)


def _names(values) -> list[str] | None:
    """Author names, a byline's label ("Posted by", "Veröffentlicht von") left out."""
    out = [v for v in values or [] if v and not _BYLINE_LABEL.search(v.strip())]
    return out or None


def _author_candidates(f: dict) -> dict:
    return {"ld": _names(f.get("ld_authors")), "meta": _names(f.get("meta_authors")),
            "extractor": _names((f.get("content") or {}).get("authors"))}


def self_description(facts: dict) -> dict:
    """One page alone: its title, date and authors where two of its sources agree, else
    the most trusted source that has the field."""
    titles = _title_candidates(facts)
    title = _agreed(titles) or next((titles[k] for k in _TITLE_SOURCES if titles[k]), None)
    dates = _date_candidates(facts)
    published = next((dates[k] for k in _DATE_SOURCES if dates[k]), None)
    authors = _author_candidates(facts)
    return {"title": title, "published": published,
            "authors": next((authors[k] for k in _AUTHOR_SOURCES if authors[k]), [])}


def _agreed(cands: dict) -> str | None:
    vals = [v for v in cands.values() if v]
    for v in vals:
        if sum(_same(v, w) for w in vals) >= 2:
            return v
    return None


# ---------------------------------------------------------------- across pages

def _common_affixes(titles: list[str]) -> tuple[str, str]:
    """The prefix and suffix that most `<title>`s share (the site name), if any."""
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
    pre = pre if re.search(r"[|:\-–—·•»«]\s*$", pre) else ""
    suf = suf if re.match(r"^\s*[|:\-–—·•»«]", suf) else ""
    return pre, suf


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
            if any(k2 != k and cands.get(k2) and _same(str(v), str(cands[k2])) for k2 in order):
                agree[k] += 1
    rank = agree if agree else present
    if not rank:
        return None
    return max(order, key=lambda k: (rank[k], present[k], -order.index(k)))


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
    return {"title": _vote(titles, _TITLE_SOURCES), "date": _vote(dates, _DATE_SOURCES),
            "author": _vote(joined, _AUTHOR_SOURCES)}


def _entry(f: dict, titles: dict, dates: dict, authors: dict, src: dict) -> dict | None:
    """A feed-like entry for one page by the voted sources, or None without a title or content."""
    content = f.get("content") or {}
    title = (titles.get(src["title"]) if src["title"] else None) or _agreed(titles)
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
    titles = [_title_candidates(f, pre, suf, affixes) for f in chosen]
    dates = [_date_candidates(f) for f in chosen]
    authors = [_author_candidates(f) for f in chosen]
    src = _voted_sources(titles, dates, authors)
    # where most pages of the template are dated, an undated one is a page (about, contact), not a post
    dated = sum(any(d.values()) for d in dates) >= DATED_SHARE * len(dates)
    out, urls = [], set()
    for f, t, d, a in zip(chosen, titles, dates, authors):
        entry = None if dated and not any(d.values()) else _entry(f, t, d, a, src)
        if entry is not None and entry["url"] not in urls:
            urls.add(entry["url"])
            out.append(entry)
    return _usual_shapes(out, prefer)


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
    return [e for e in entries if shapes[shape(e["url"])] * 10 >= total]


def checked_by_feed(pseudo: list[dict], entries: list[dict], facts_of: dict) -> list[dict]:
    """Pseudo entries whose date and authors come from a page source that the feed confirms.

    A feed (even an excerpt-only or short one) states the date and authors of its own
    posts; read on those posts' pages, the source the pseudo entries use must say the same
    on every one of them, else the field is left out of the pseudo entries (the feed's
    entries alone then teach it): a meta author that is the site's name, an extractor
    reading 08/05 as August (right from the 13th on: a few wrong pages are wrong targets
    all the same). Where no feed post can be checked the pseudo entries stay as they are."""
    checks = {"date": (_date_candidates, lambda e: e.get("published"), _same_day),
              "author": (_author_candidates, lambda e: e.get("authors"), _same_names)}
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
    return any(_same(x, y) for x in a for y in b)


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
            and not any(_same(entry["title"], h) for h in facts.get("headings") or []):
        return entry
    return dict(entry, content_html=content["content_html"], content_is_summary=False,
                summary_html=summary, content_from="page")
