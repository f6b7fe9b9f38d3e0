"""What a page says of itself: title, authors and date from JSON-LD, microdata and meta tags.

The fallbacks behind the learned rules (tasks.extract.fields) and the training entries
of blogs without a feed both need the page's own metadata, read one way. Each value
remembers where it came from ("jsonld", "microdata", "meta", "title_tag"). A site's
name or tagline is not an author: names equal to og:site_name, application-name or
the page's <title>, organisations, and URLs are dropped. Dates keep the offset the
page gives and get none where it gives none (tasks.text.dates).
"""
from __future__ import annotations

import json
import re

from lxml import etree

from tasks.fetch.html import JSON_LD_REL, flatten_json_ld, node_text
from tasks.text.dates import parse_date
from tasks.text.names import split_authors
from tasks.text.similarity import normalize_text

__all__ = ["declared_site_names", "page_metadata", "json_ld_objects", "site_names", "SOURCES"]

SOURCES = ("jsonld", "microdata", "meta", "title_tag")
_POST_TYPES = {"blogposting", "article", "newsarticle", "posting", "socialmediaposting", "reportagenewsarticle",
               "techarticle", "scholarlyarticle", "webpage", "liveblogposting", "discussionforumposting",
               "report", "creativework", "analysisnewsarticle", "opinionnewsarticle"}
_NOT_PEOPLE = {"organization", "corporation", "newsmediaorganization", "website", "wpheader", "brand"}
_LD = etree.XPath(f"//link[@rel='{JSON_LD_REL}']/@data-json", smart_strings=False)
_META = etree.XPath("//meta[@content]")
_ITEMSCOPE = etree.XPath("boolean(//*[@itemscope])")
_TITLE = etree.XPath("//title")
_URLISH = re.compile(r"^(?:https?:|www\.|/)|\.(?:com|org|net)\b|^@", re.I)
_TITLE_SEP = re.compile(r"\s+[|·•»\-–—]\s+")

# meta name/property -> field, in order of preference within the meta source
_META_TITLE = ("og:title", "citation_title", "dc.title", "twitter:title")
_META_AUTHOR = ("author", "article:author", "citation_author", "dc.creator", "parsely-author",
                "sailthru.author", "byl")
_META_DATE = ("article:published_time", "citation_publication_date", "citation_date",
              "citation_online_date", "dc.date.issued", "dc.date", "date", "og:published_time",
              "datepublished", "publish-date", "pubdate", "parsely-pub-date", "sailthru.date")
_META_SITE = ("og:site_name", "application-name", "twitter:site", "publisher")


def json_ld_objects(root) -> list[dict]:
    """Every JSON-LD object of a parsed page (tasks.fetch.html keeps them), @graph flattened."""
    out = []
    for text in _LD(root):
        try:
            obj = json.loads(text)
        except ValueError:
            try:  # trailing commas and the like; extruct's lenient reader when installed
                import jstyleson
                obj = jstyleson.loads(text)
            except Exception:
                continue
        out += flatten_json_ld(obj)
    return out


def _types(obj) -> set[str]:
    t = obj.get("@type") or obj.get("type") or []
    t = t if isinstance(t, list) else [t]
    return {str(x).rsplit("/", 1)[-1].lower() for x in t}


def _plain(v) -> str:
    if isinstance(v, list):
        v = next((x for x in v if isinstance(x, str) and x.strip()), "")
    return normalize_text(v) if isinstance(v, str) else ""


def _props(obj: dict) -> dict:
    """An object's properties: extruct's microdata nests them, JSON-LD does not."""
    return obj.get("properties") if isinstance(obj.get("properties"), dict) else obj


def _people(value, by_id: dict) -> list[str]:
    """Names of schema.org author values: strings, Person objects, @id references, lists."""
    names: list[str] = []
    for x in value if isinstance(value, list) else [value]:
        if isinstance(x, dict):
            if "@id" in x and len(x) <= 2 and x["@id"] in by_id:
                x = by_id[x["@id"]]
            if _types(x) & _NOT_PEOPLE:
                continue
            name = _plain(_props(x).get("name"))
            names += [name] if name else []
        elif isinstance(x, str):
            names.append(normalize_text(x))
    return names


def _post_objects(objs: list[dict]) -> list[dict]:
    """The objects that are a post, the most specific first (BlogPosting over WebPage)."""
    posts = [o for o in objs if _types(o) & _POST_TYPES]
    posts.sort(key=lambda o: ("webpage" in _types(o) or "creativework" in _types(o)))
    return posts


def _post_authors(props: dict, by_id: dict) -> list[str]:
    return [a for n in _people(props.get("author") or props.get("creator"), by_id) for a in split_authors(n)]


def _from_objects(objs: list[dict]) -> dict:
    """title/authors/published of the post object among schema.org objects."""
    by_id = {o["@id"]: o for o in objs if isinstance(o.get("@id"), str)}
    out: dict = {}
    for o in _post_objects(objs):
        props = _props(o)
        out.setdefault("title", _plain(props.get("headline")) or _plain(props.get("name")) or None)
        if not out.get("authors"):
            out["authors"] = _post_authors(props, by_id)
        if not out.get("published"):
            out["published"] = parse_date(_plain(props.get("datePublished") or props.get("dateCreated")))
    return {k: v for k, v in out.items() if v}


def _microdata(root, url: str | None) -> list[dict]:
    if not _ITEMSCOPE(root):
        return []
    try:
        from extruct.w3cmicrodata import MicrodataExtractor
    except ImportError:
        return _microdata_lxml(root)
    try:
        return MicrodataExtractor().extract_items(root, url)
    except Exception:  # extruct on odd markup: the plain reading below
        return _microdata_lxml(root)


def _microdata_lxml(root) -> list[dict]:
    """Without extruct: the itemprops of each itemscope that looks like a post (flat)."""
    out = []
    for scope in root.xpath("//*[@itemscope][@itemtype]"):
        props: dict = {}
        for el in scope.xpath(".//*[@itemprop]"):
            key = el.get("itemprop")
            if key == "author":
                name = el.xpath(".//*[@itemprop='name']")
                props.setdefault("author", [])
                props["author"].append(node_text(name[0]) if name else (el.get("content") or node_text(el)))
            elif key in ("headline", "name", "datePublished"):
                props.setdefault(key, el.get("content") or el.get("datetime") or node_text(el))
        out.append({"type": scope.get("itemtype"), "properties": props})
    return out


def _metas(root) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for m in _META(root):
        key = (m.get("property") or m.get("name") or m.get("itemprop") or "").strip().lower()
        v = normalize_text(m.get("content") or "")
        if key and v:
            out.setdefault(key, []).append(v)
    return out


def _site_names(metas: dict, title_tag: str) -> set[str]:
    names = {v.casefold() for k in _META_SITE for v in metas.get(k, [])}
    if title_tag:
        names.add(title_tag.casefold())
        parts = _TITLE_SEP.split(title_tag)
        if len(parts) > 1:
            names.add(parts[-1].casefold())  # "Post | Site"
    return names


def _without_site(title: str | None, site: set[str]) -> str | None:
    """A title without its " | Site" (or "Site - ") part, the site being one of `site`."""
    if not title:
        return title
    parts = _TITLE_SEP.split(title)
    if len(parts) > 1:
        if parts[-1].casefold() in site:
            return title[: title.rfind(parts[-1])].rstrip(" |·•»-–—") or title
        if parts[0].casefold() in site:
            return title[len(parts[0]):].lstrip(" |·•»-–—") or title
    return title


def declared_site_names(root) -> set[str]:
    """The site's names the page declares as such (og:site_name, application-name, the "| Site"
    part of "Post | Site" in <title>), case-folded: never the whole <title>, which may be the
    post's own title. What a post's title never is."""
    t = _TITLE(root)
    title_tag = node_text(t[0]) if t else ""
    names = {v.casefold() for k in _META_SITE for v in _metas(root).get(k, [])}
    parts = _TITLE_SEP.split(title_tag) if title_tag else []
    if len(parts) > 1:
        names.add(parts[-1].casefold())
    return names


def site_names(root) -> set[str]:
    """The site's own names, case-folded (og:site_name, application-name, the parts of
    "Post | Site" in <title>): what an author never is."""
    t = _TITLE(root)
    return _site_names(_metas(root), node_text(t[0]) if t else "")


def _authors_ok(names: list[str], site: set[str]) -> list[str]:
    out = []
    for n in names:
        if n and not _URLISH.search(n) and n.casefold() not in site and len(n) <= 80 \
                and len(n.split()) <= 6 and n not in out:
            out.append(n)
    return out


def _from_metas(metas: dict, cut: set[str]) -> dict:
    """title/authors/published the meta tags give (the title without the site's name `cut`)."""
    meta: dict = {}
    title = _without_site(next((v[0] for k in _META_TITLE if (v := metas.get(k))), None), cut)
    if title:
        meta["title"] = title
    # one citation_author per author, often "Last, First": not a list to split
    names = [a for k in _META_AUTHOR for v in metas.get(k, [])
             for a in ([v] if k == "citation_author" else split_authors(v))]
    if names:
        meta["authors"] = names
    date = next((d for k in _META_DATE for v in metas.get(k, []) if (d := parse_date(v))), None)
    if date:
        meta["published"] = date
    return meta


def _kept(got: dict, site: set[str]) -> dict:
    """One source's fields with the authors that are no site's name, URL or sentence."""
    if "authors" in got:
        got["authors"] = _authors_ok(got["authors"], site)
        if not got["authors"]:
            del got["authors"]
    return got


def _first_by_field(by_source: dict[str, dict]) -> tuple[dict, dict]:
    """({field: value}, {field: source}) of the first source that has each field."""
    values: dict = {"title": None, "authors": [], "published": None}
    sources: dict = {}
    for field in values:
        found = next(((name, v) for name in SOURCES if (v := by_source.get(name, {}).get(field))), None)
        if found:
            sources[field], values[field] = found
    return values, sources


def page_metadata(root, url: str | None = None) -> dict:
    """{"title", "authors", "published", "site_name", "sources": {field: source},
    "by_source": {source: {"title", "authors", "published"}}} of a parsed page
    (tasks.fetch.html.parse_html). Each field is the first source's that has it, in the
    order JSON-LD, microdata, meta tags, <title>; missing fields are None / []."""
    metas = _metas(root)
    t = _TITLE(root)
    title_tag = node_text(t[0]) if t else ""
    site = _site_names(metas, title_tag)
    # the site's declared name, else the last part of <title>, is cut from titles
    declared = {v.casefold() for k in _META_SITE for v in metas.get(k, [])}
    cut = declared or (site - {title_tag.casefold()})
    found = {"jsonld": _from_objects(json_ld_objects(root)),
             "microdata": _from_objects([dict(o, **{"@type": o.get("type")}) for o in _microdata(root, url)]),
             "meta": _from_metas(metas, cut)}
    # a schema.org Person may be named like the blog ("Jane Doe", the blog of Jane Doe);
    # a meta author that is the site's name is the site
    by_source = {name: kept for name, got in found.items()
                 if (kept := _kept(got, site if name == "meta" else set()))}
    if title_tag:
        by_source["title_tag"] = {"title": _without_site(title_tag, cut)}
    values, sources = _first_by_field(by_source)
    return {**values, "sources": sources, "site_names": sorted(site),
            "site_name": next((v[0] for k in _META_SITE[:2] if (v := metas.get(k))), None),
            "by_source": by_source}
