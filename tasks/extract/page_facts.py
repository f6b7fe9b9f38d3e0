"""What one page says of itself: the facts a page-level reading starts from (issue 31).

JSON-LD (an Article-like object's headline, datePublished, author), og:title, article:published_time
and other date metas, meta author, `<title>` against the h1-h3 headings, the first `<time datetime>`,
the page's id/class template, and the content the generic extractor finds (tasks.extract.generic).
`self_description` reads one page alone (two sources agreeing, else the most trusted one);
tasks.learn.pseudo_feed chooses each field's source across the pages of a template instead.
"""
from __future__ import annotations

import re
import urllib.parse

from tasks.extract.generic import page_content
from tasks.fetch.html import json_ld, node_text, parse_html
from tasks.learn.authors import shown_instead
from tasks.text.dates import parse_date
from tasks.text.similarity import normalize_text

_POST_TYPES = {"article", "blogposting", "newsarticle", "posting", "socialmediaposting", "techarticle",
               "report", "webpage"}


_DATE_META = ("article:published_time", "og:published_time", "datepublished", "date", "dc.date",
              "dc.date.issued", "pubdate", "publishdate", "sailthru.date", "parsely-pub-date")


_AUTHOR_META = ("author", "article:author", "dc.creator", "parsely-author")


# a field's sources, most trusted first (ties of the vote go to the first)
TITLE_SOURCES = ("ld", "og", "heading", "title", "extractor")


DATE_SOURCES = ("ld", "meta", "time", "extractor")


AUTHOR_SOURCES = ("ld", "meta", "extractor")


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


def _above(target: str, url: str) -> bool:
    """Is `target` the site's root or a page above `url` (a proper ancestor of its path)?"""
    t, u = urllib.parse.urlsplit(target), urllib.parse.urlsplit(url)
    if t.netloc.lower() != u.netloc.lower():
        return False
    tp, up = t.path.rstrip("/") + "/", u.path.rstrip("/") + "/"
    if tp.endswith("/index.html/"):
        tp = tp[: -len("index.html/")]
    return tp != up and up.startswith(tp)


def _site_headings(root, url: str | None) -> list[str]:
    """The h1-h3 headings that link to the site's root or a page above this one (the masthead's
    blog name, a section's or an archive's name): headings of the site, never the page's own
    title, whatever their length."""
    if not url:
        return []
    out = []
    for h in root.xpath("//h1 | //h2 | //h3")[:40]:
        links = h.xpath(".//a[@href] | ancestor::a[@href]")
        if not links:
            continue
        try:
            target = urllib.parse.urljoin(url, links[0].get("href").strip())
        except ValueError:
            continue
        if _above(target, url) and (t := node_text(h)):
            out.append(t)
    return out


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
    shown = _meta_facts(meta)
    if shown["meta_authors"]:  # the name the page shows, where its metadata names someone it does not
        shown["meta_authors"] = shown_instead(root, shown["meta_authors"][0]) or shown["meta_authors"]
    facts = {"url": url, **_ld_facts(_ld_post(json_ld(html))), **shown,
             "title_tag": node_text(title_el) if title_el is not None else None,
             "headings": _headings(root),
             "site_headings": _site_headings(root, url),
             "time_date": _first_time(root),
             "template": template_signature(root)}
    if content:
        facts["content"] = page_content(html, url, root=root)
    return facts


def same_text(a: str | None, b: str | None) -> bool:
    return bool(a and b) and normalize_text(a).casefold() == normalize_text(b).casefold()


def _strip_affix(title: str | None, prefix: str | tuple = "", suffix: str | tuple = "") -> str | None:
    """A `<title>` without the site-wide part ("Post | Blog name") and its separator; a
    prefix or suffix may be one of several (a site's sections: "Post · Blog", "Note · Notes")."""
    if not title:
        return None
    t = title
    pre = next((p for p in ((prefix,) if isinstance(prefix, str) else prefix) if p and t.startswith(p)), "")
    t = t[len(pre):]
    suf = next((x for x in ((suffix,) if isinstance(suffix, str) else suffix) if x and t.endswith(x)), "")
    t = t[: len(t) - len(suf)]
    t = re.sub(r"^[\s|:\-–—·•»«]+|[\s|:\-–—·•»«]+$", "", t)
    return t or None


def _title_part(title: str | None, headings: list[str], site: list[str] = ()) -> str | None:
    """One page alone: the part of "Post | Site" (either side of a separator) that a heading repeats,
    a heading of the site (`site`: one linking to the site's root or above this page) the
    last choice."""
    if not title:
        return None
    t = normalize_text(title)
    found = []
    ours = {normalize_text(x).casefold() for x in site}
    headings = sorted(headings, key=lambda h: normalize_text(h).casefold() in ours)
    for h in headings:
        h = normalize_text(h)
        if not h:
            continue
        if t.casefold() == h.casefold():
            return h
        if (t.endswith(h) and re.search(r"[|:\-–—·•»«]\s*$", t[: -len(h)])) or \
                (t.startswith(h) and re.match(r"^\s*[|:\-–—·•»«]", t[len(h):])):
            found.append(h)
    # both sides may be headings ("Site: Post", a masthead h1): the post's title is the one that is
    # no heading of the site, else the longer, mostly
    own = [h for h in found if h.casefold() not in ours]
    return max(own or found, key=len) if found else None


def title_candidates(f: dict, prefix: str = "", suffix: str = "", affixes: dict | None = None) -> dict:
    """source -> this page's title by that source. `affixes`: the site-wide part that a source's
    titles share on every page of the template (og:title "Post - Blog" as often as <title>)."""
    stripped = _strip_affix(f.get("title_tag"), prefix, suffix)
    own = {k: _strip_affix(f.get(k), *(affixes or {}).get(k, ("", ""))) for k in ("ld_title", "og_title")}
    headings, site = f.get("headings") or [], f.get("site_headings") or []
    if not (prefix or suffix):
        stripped = _title_part(f.get("title_tag"), headings, site) or stripped
    elif stripped and not any(same_text(h, stripped) for h in headings):
        # what the site-wide affix leaves may still be "Post | Site Post": the part a heading repeats
        stripped = _title_part(stripped, headings, site) or stripped
    heading = next((h for h in f.get("headings") or [] if stripped and same_text(h, stripped)), None)
    if heading is None:  # the first heading another source agrees with
        heading = next((h for h in f.get("headings") or []
                        if any(same_text(h, own[k]) for k in ("ld_title", "og_title"))), None)
    content = _strip_affix((f.get("content") or {}).get("title"), *(affixes or {}).get("extractor", ("", "")))
    return {"ld": own["ld_title"], "og": own["og_title"], "title": stripped, "heading": heading,
            "extractor": content}


def date_candidates(f: dict) -> dict:
    content = (f.get("content") or {}).get("published")
    return {k: parse_date(v) if v else None for k, v in (
        ("ld", f.get("ld_date")), ("meta", f.get("meta_date")), ("time", f.get("time_date")),
        ("extractor", content))}


_BYLINE_LABEL = re.compile(r"(?:^|\s)(?:by|par|von|por|di|door|posted|published)\s*[:\-–—]?$", re.I)


def _names(values) -> list[str] | None:
    """Author names, a byline's label ("Posted by", "Veröffentlicht von") left out."""
    out = [v for v in values or [] if v and not _BYLINE_LABEL.search(v.strip())]
    return out or None


def author_candidates(f: dict) -> dict:
    return {"ld": _names(f.get("ld_authors")), "meta": _names(f.get("meta_authors")),
            "extractor": _names((f.get("content") or {}).get("authors"))}


def self_description(facts: dict) -> dict:
    """One page alone: its title, date and authors where two of its sources agree, else
    the most trusted source that has the field."""
    titles = title_candidates(facts)
    title = agreed(titles) or next((titles[k] for k in TITLE_SOURCES if titles[k]), None)
    dates = date_candidates(facts)
    published = next((dates[k] for k in DATE_SOURCES if dates[k]), None)
    authors = author_candidates(facts)
    return {"title": title, "published": published,
            "authors": next((authors[k] for k in AUTHOR_SOURCES if authors[k]), [])}


def agreed(cands: dict) -> str | None:
    vals = [v for v in cands.values() if v]
    for v in vals:
        if sum(same_text(v, w) for w in vals) >= 2:
            return v
    return None
