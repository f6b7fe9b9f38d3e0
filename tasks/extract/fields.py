"""Each field's fallback chain, and which source filled it.

The learned rule (with its span) comes first; where it finds nothing the page's own
metadata does (JSON-LD, microdata, meta tags: tasks.extract.metadata), then the feed
entry, then, for authors, the one author the feed names for the whole blog, then the
page's plain signs (h1, <time datetime>, rel=author). A tagline or a site's title is
never an author. The record's `sources` says, per field, where its value came from:

    rule | span | jsonld | microdata | meta | feed | feed_blog | page | url (a post's day, from its URL)
"""
from __future__ import annotations

from tasks.extract.metadata import declared_site_names, page_metadata
from tasks.fetch.html import html_to_text
from tasks.learn.fields import clean_author, person_like
from tasks.text.names import split_authors
from tasks.text.similarity import normalize_text

__all__ = ["SOURCES", "blog_authors", "complete"]

SOURCES = ("rule", "span", "jsonld", "microdata", "meta", "feed", "feed_blog", "page", "url")
_META_SOURCES = ("jsonld", "microdata", "meta")


def _not_site(names: list[str], site: set[str], strict: bool = True) -> list[str]:
    """Names that are not the site's; from a weak source (`strict`: meta, page signs, the
    feed's blog-wide author) only those that read as a person's name."""
    return [n for n in names if n and n.casefold() not in site and (person_like(n) or not strict)]


def blog_authors(feed: dict | None, entries: list[dict]) -> list[str]:
    """The one author a feed names for the whole blog (its channel author, or the only name
    every entry gives), if it reads as a person's name and not as the blog's title."""
    names = set()
    for e in entries:
        for a in e.get("authors") or []:
            names.add(clean_author(a))
    names.discard("")
    if len(names) != 1:
        return []
    title = ((feed or {}).get("title") or "").casefold()
    name = names.pop()
    # "Jane Doe's notes" is Jane Doe's blog: only a name that is the title itself is the site
    return [name] if person_like(name) and name.casefold() != title else []


def _entry_authors(entry: dict | None, lang: str | None) -> list[str]:
    if not entry or entry.get("authors_from_feed"):
        return []
    return [n for a in entry.get("authors") or [] for n in split_authors(clean_author(a), lang)]


def _site(md: dict, blog: dict | None) -> set[str]:
    """The site's names, case-folded: the page's own and the feed's title."""
    return set(md["site_names"]) | {s.casefold() for s in (md.get("site_name"), (blog or {}).get("title")) if s}


def _chains(md: dict, entry: dict | None, lang: str | None) -> dict[str, list]:
    """field -> [(source, value)]: the page's metadata in order, then the feed entry."""
    by_source = {s: md["by_source"].get(s) or {} for s in _META_SOURCES}
    feed_title = html_to_text((entry or {}).get("title") or "") or None
    return {
        "title": [(s, by_source[s].get("title")) for s in _META_SOURCES] + [("feed", feed_title)],
        # metadata was checked against the site's names already; an entry's own author is trusted
        "authors": [(s, _not_site(by_source[s].get("authors") or [], set(), s == "meta")) for s in _META_SOURCES]
        + [("feed", _not_site(_entry_authors(entry, lang), set(), False))],
        "published": [(s, by_source[s].get("published")) for s in _META_SOURCES]
        + [("feed", (entry or {}).get("published"))],
    }


def _author_steps(steps: list, sign, learned: tuple, site: set[str], blog: dict | None, byline=None) -> list:
    """The authors' chain: without the site-wide meta author where a learned byline rule
    found none; else ending with the page's signs, the feed's blog-wide author and, last, the
    post's own byline even where it names the site (`byline`)."""
    if "authors" in learned:
        return [(s, v) for s, v in steps if s != "meta"]
    return steps + [("page", lambda: _not_site(sign() if sign else [], site)),
                    ("feed_blog", _not_site(list((blog or {}).get("authors") or []), site)),
                    # last, the post's own byline even where it names the site ("Geschrieben von
                    # Blogaddict" on the blog Blogaddict): what a reader of the post sees
                    ("page", byline)]


def _not_site_title(value, site: set[str]):
    """`value` (or a callable giving it) unless it is one of the site's names."""
    if callable(value):
        return lambda: _not_site_title(value(), site)
    return None if value and normalize_text(str(value)).casefold() in site else value


def _first_filled(steps: list) -> tuple[str, object] | None:
    """(source, value) of the first step with a value (callables asked only when reached)."""
    for source, value in steps:
        if callable(value):
            value = value()
        if value:
            return source, value
    return None


def complete(extracted: dict, root, url: str | None, entry: dict | None = None,
             blog: dict | None = None, page_signs: dict | None = None, lang: str | None = None,
             learned: tuple = ()) -> dict:
    """`extracted` (title, authors, published as the rules found them, and their
    `sources`) with every missing field filled down the chain; `sources` updated.

    blog: {"authors": the feed's blog-wide author (blog_authors), "title": the feed's title}.
    page_signs: callables field -> value for the last resort ("page": h1, <time>, rel=author).
    learned: fields whose rule was learned and found nothing on this page: a post without
    a byline where the others have one gets only a post's own author (JSON-LD, microdata,
    its feed entry), never a site-wide one (meta author, the feed's blog-wide author).
    """
    out = dict(extracted)
    sources = dict(out.get("sources") or {})
    missing = [f for f in ("title", "authors", "published") if not out.get(f)]
    if not missing:
        out["sources"] = sources
        return out
    md = page_metadata(root, url)
    site = _site(md, blog)
    chains = _chains(md, entry, lang)
    for field in missing:
        sign = (page_signs or {}).get(field)
        if field == "authors":
            steps = _author_steps(chains[field], sign, learned, site, blog, (page_signs or {}).get("byline"))
        else:
            steps = chains[field] + ([("page", sign)] if sign else [])
        if field == "title":  # an untitled post is untitled: the site's name is no post's title
            names = declared_site_names(root) | {s.casefold() for s in ((blog or {}).get("title"),) if s}
            steps = [(s, _not_site_title(v, names)) for s, v in steps]
        found = _first_filled(steps)
        # a feed's author the page shows nowhere (the entry's, or the feed's for the whole blog,
        # "Fredrik & Hardy") gives way to the byline the page shows ("2007-02-08 by fredrik")
        shown = sign if found and found[0] == "feed" else (page_signs or {}).get("byline") \
            if found and found[0] == "feed_blog" else None
        if found and field == "authors" and shown:
            found = _shown_byline(found, root, lambda: _not_site(shown(), site))
        if found:
            sources[field], out[field] = found
    out["sources"] = sources
    return out


def _shown_byline(found: tuple[str, list], root, shown) -> tuple[str, list]:
    """A feed entry's authors that the page shows nowhere ("anon", a login) give way to the
    byline the page does show: the record keeps what a reader of the post sees."""
    text = normalize_text(" ".join(root.itertext()) if root is not None else "").casefold()
    if any(normalize_text(a).casefold() in text for a in found[1]):
        return found
    names = shown()
    return ("page", names) if names else found
