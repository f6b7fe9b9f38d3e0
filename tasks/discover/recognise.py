"""Posts recognised by their template, beyond every learned URL pattern.

A feed that covers one section, or a blog that changed its slug scheme, teaches a post
pattern that misses posts. Such a page is still a post when the blog's learned rules
find on it what they found on the training posts: a title, a content block that the
content rule selects alone (a listing repeats it), and a date. A blog whose posts show
no date reliably has no template recognition: its pages would pass for posts. Listing pages and pages below a post's URL never pass (tasks.discover.canonical).
"""
from __future__ import annotations

import re

from urllib.parse import urljoin, urlsplit

from tasks.extract.post import rule_of
from tasks.fetch.html import node_text
from tasks.learn.rules import apply_rule
from tasks.text.dates import url_day

__all__ = ["dated_blog", "generic_post", "listing_like", "template_post", "title_holds", "MIN_CONTENT_CHARS",
           "build_times", "built_at"]

MIN_CONTENT_CHARS = 20  # a post says something, if only "(download part 1 | part 2)"; an empty shell of the template does not
RELIABLE_SHARE = 0.6  # a field whose rule won this share of the training votes is part of the template


BUILD_SHARED = 3  # stamps sharing one second: a build's


def _second(stamp: str | None) -> str | None:
    """The wall-clock second an ISO time names ("2018-02-06T02:43:37"), None for a bare day or a
    midnight (a day-precise date of many posts on one day is no build)."""
    if not stamp or len(stamp) < 19 or stamp[10] != "T" or stamp[11:19] == "00:00:00":
        return None
    return stamp[:19]


def build_times(stamps: list[str | None], shared: int = BUILD_SHARED) -> list[str]:
    """The seconds that `shared` of the stamps name (with `shared`=1: the seconds they name, a
    feed's own <updated> among them); a bare day or a midnight names none."""
    from collections import Counter

    count = Counter(s for s in map(_second, stamps) if s)
    return sorted(s for s, n in count.items() if n >= shared)


def built_at(published: str | None, built: list[str] | None) -> bool:
    """Is a page's date the site's build time (the same wall-clock second), not a publication
    date? A Jekyll page without a date of its own prints the build's time (held-out mehdix-fa:
    four project pages in the post template, dated 2018-02-06T02:43:37, the feed's <updated>).
    Sitemap lastmods shared by several URLs are no build time: a Hugo post's tag and section
    pages share its date."""
    s = _second(published)
    return bool(s and built and s in built)


def dated_blog(rules: dict | None) -> bool:
    """Do the blog's posts show a date (the date rule held on most training pages)?"""
    return _reliable(rules, "date")


def _reliable(rules: dict, field: str) -> bool:
    v = (rules or {}).get(field)
    return isinstance(v, dict) and bool(v.get("rule")) and float(v.get("share") or 0) >= RELIABLE_SHARE


def _selects_text(root, rule: str | None) -> bool:
    try:
        return any((n.strip() if isinstance(n, str) else node_text(n)) for n in apply_rule(root, rule)[:3])
    except Exception:
        return False


def template_post(root, extracted: dict | None, rules: dict | None, url: str | None = None) -> bool:
    """Whether a page outside the post patterns is a post of the blog's template. `url`: the page's
    own; a day in it (/2018/09/12/...) dates the page where the blog's pages show no date rule
    reliably (a post of a date-named scheme one level deeper or shallower than the feed's)."""
    if not extracted or not rules:
        return False
    return (_reads_as_dated_post(extracted, rules, bool(url_day(url))) and _template_fields_hold(root, rules)
            and _one_content_block(root, rules) and _not_a_title_list(root, rules) and not _teaser(root, rules, url))


def _reads_as_dated_post(extracted: dict, rules: dict, url_dated: bool = False) -> bool:
    """A title, some content, and a date on a blog whose posts show dates (or on a page whose
    URL names its day: no site page's does): posts without dates cannot be told from the
    site's pages (/about/) by their template."""
    if not (extracted.get("title") and len(extracted.get("content_text") or "") >= MIN_CONTENT_CHARS):
        return False
    return (dated_blog(rules) or url_dated) and bool(extracted.get("published"))


def _template_fields_hold(root, rules: dict) -> bool:
    """What held on most training posts (title, date, byline) holds here too: a page of the
    site in the post template, without a byline or date, is no post."""
    return all(_selects_text(root, rule_of(rules, field))
               for field in ("title", "date", "author") if _reliable(rules, field))


def title_holds(root, rules: dict | None, extracted: dict | None = None) -> bool:
    """The title rule that held on most training posts finds a title here too (or there is none
    such): a site's page in another template (a Jekyll page's heading) does not show it. With
    `extracted`: or the page is an untitled post, showing the date and the byline the posts
    show (a Blogger post left without a title, its body text or photos alone); a site's page
    shows neither."""
    if not _reliable(rules, "title") or _selects_text(root, rule_of(rules, "title")):
        return True
    return bool(extracted and extracted.get("published")
                and (extracted.get("content_text") or extracted.get("content_html"))
                and dated_blog(rules) and _reliable(rules, "author")
                and _selects_text(root, rule_of(rules, "author")))


def _one_content_block(root, rules: dict) -> bool:
    """The content rule selects exactly one element: not nothing in the post's place, nor
    one per listed post (a listing). A rule that no longer compiles here is no evidence."""
    content = rule_of(rules, "content")
    if not content:
        return False
    try:
        hits = [n for n in apply_rule(root, content) if not isinstance(n, str)]
    except Exception:
        return False
    return len(hits) == 1


TEASER_LEVELS = 2  # ancestors of the content block looked in for the heading of a listed post


def _teaser(root, rules: dict, url: str | None) -> bool:
    """Is the one content block a listed post's (a tag's listing of one post): beside it, in its
    own item, a heading that links to another page of the blog (the post's title, linked to the
    post); a post's own heading links nowhere, or to the post itself."""
    content = rule_of(rules, "content")
    if not content or not url:
        return False
    try:
        node = next((n for n in apply_rule(root, content) if not isinstance(n, str)), None)
    except Exception:
        return False
    here = urlsplit(url)
    up = node
    for _ in range(TEASER_LEVELS):
        up = up.getparent() if up is not None else None
        if up is None or up.tag in ("body", "html"):
            return False
        for h in up.iter("h1", "h2", "h3", "h4", "h5", "h6"):
            if any(x is node for x in h.iterancestors()):
                continue
            for a in h.iter("a"):
                href = (a.get("href") or "").strip()
                if not href or href.startswith("#"):
                    continue
                try:
                    there = urlsplit(urljoin(url, href))
                except ValueError:
                    continue
                if there.netloc == here.netloc and there.path.rstrip("/") != here.path.rstrip("/") \
                        and not _above(there.path, here.path) and not _FEEDISH.search(there.path):
                    return True
    return False


# a feed's address: a sidebar's "RSS" heading links it, and no listed post's title does
_FEEDISH = re.compile(r"\.(?:xml|rss|rdf|atom)$|/(?:feeds?|rss|atom)(?:/|\.xml)?$", re.I)


def _above(path: str, below: str) -> bool:
    """Is `path` the site's root or a folder `below` lies in (the banner's heading links the
    blog's home, a section's heading its section: no listed post's title)?"""
    p = re.sub(r"/index\.html?$", "/", path).rstrip("/")
    return below.startswith(p + "/")


def _not_a_title_list(root, rules: dict) -> bool:
    """At most two titles where the title rule looks: several are a listing of excerpts."""
    title = rule_of(rules, "title")
    if not title:
        return True
    try:
        return len(apply_rule(root, title)) <= 2 or _one_day_shown(root, rules)
    except Exception:
        return False


def _one_day_shown(root, rules: dict) -> bool:
    """Does the date rule, reading the page's body, find one date only? A listing dates each of
    its items where the posts show their date; a post whose body heads its sections in the
    title's markup (a Hugo post's `<h1>`s beside its title's, in one article) shows one."""
    date = rule_of(rules, "date")
    if not date:
        return False
    try:
        found = apply_rule(root, date)
    except Exception:
        return False
    nodes = [n if not isinstance(n, str) else getattr(n, "getparent", lambda: None)() for n in found]
    nodes = [n for n in nodes if n is not None]
    return len(nodes) == 1 and all(a.tag != "head" for a in nodes[0].iterancestors())


MIN_GENERIC_CHARS = 200  # an article, as the page-level extractor reads it (tasks.learn.pseudo_feed)
MAX_LINKED_HEADINGS = 2  # headings that link elsewhere: more are a listing's post titles


def generic_post(root, got: dict | None, url: str | None = None) -> bool:
    """Whether a page read with no rules (the page-level extractor's reading, `got`) is a post:
    an article's length, a date, and not a listing (a listing's post titles are headings that
    link to their posts). Used while a blog has no rules at all (issue 31)."""
    if not got or len(got.get("content_text") or "") < MIN_GENERIC_CHARS or not got.get("published"):
        return False
    here = (url or "").split("#")[0].rstrip("/")
    linked = 0
    for a in root.xpath("//h1//a[@href] | //h2//a[@href] | //h3//a[@href]")[:50]:
        href = (a.get("href") or "").split("#")[0].rstrip("/")
        if href and not href.endswith(here.rsplit("/", 1)[-1] or "\x00"):
            linked += 1
    return linked <= MAX_LINKED_HEADINGS


def listing_like(root, rules: dict | None) -> bool:
    """Does the page repeat the post template (the content rule selects several blocks, or the
    title rule more than two titles, inside the content rule's one block where it selects one)?
    A listing whose URL a broad post pattern takes in (Pelican's index2.html beside /slug.html
    posts) is no post."""
    content, title = rule_of(rules, "content"), rule_of(rules, "title")
    try:
        blocks = [n for n in apply_rule(root, content) if not isinstance(n, str)] if content else []
        titles = apply_rule(root, title) if title else []
    except Exception:  # a rule that does not compile here is no evidence of a listing
        return False
    if len(blocks) > 1:
        # one title beside them: a post whose comment section (or another box) shares the content's
        # markup (a held-out theme's `div.entry` holds its "Kommentare" too); a listing shows a title a post
        return len(titles) != 1
    if len(titles) <= 2:
        return False
    if len(blocks) == 1 and all(not isinstance(t, str) for t in titles):
        # one post's block, and titles beside it: a "related posts" box repeats the title's markup
        # (held-out 330k-ja, WordPress Hueman); a listing's titles stand in the one block that wraps them
        return sum(any(a is blocks[0] for a in t.iterancestors()) for t in titles) > 2 and not _one_day_shown(root, rules)
    return True
