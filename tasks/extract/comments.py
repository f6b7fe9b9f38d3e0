"""Comments of a post: from its comment feed, and from its pages by a rule.

A comment feed (wfw:commentRss, Atom replies, Blogger's and WordPress's per-post feeds)
gives exact comments but often only the newest few; the page shows them all. A rule
({"container", "author", "date", "text"}, XPath strings) reads them off the page: learned
from a comment feed (tasks.learn.comment_rules), from the repeated blocks of several posts
(tasks.learn.comment_blocks, found by their structure alone). Replies: a comment is the reply
of the nearest earlier comment whose thread element (the comment's container or its
parent) encloses it at a greater depth. Pure functions: text in, plain data out.
"""
from __future__ import annotations

import datetime as dt
import re
import threading
import urllib.parse

from lxml import etree

from tasks.extract.comment_clock import read_in
from tasks.fetch.html import node_text
from tasks.learn.comment_lines import name_in
from tasks.learn.comment_nodes import (
    MIN_SIMILARITY, REST, clean_shown_author, date_value, depth, elements, first,
    in_region, is_ancestor, lines, match_comments, own_matches, said_text, shown_name, similarity)
from tasks.learn.comment_rules import group_rules, learn_comment_rule, relative_rules
from tasks.learn.fields import clean_author
from tasks.learn.rules import apply_rule
from tasks.text.dates import parse_iso
from tasks.text.similarity import normalize_text

__all__ = ["feed_comments", "learn_comment_rule", "extract_comments", "match_comments", "merge_comments",
           "comment_id", "reading_score", "comment_page_links", "comment_feed_links", "similarity", "MIN_SIMILARITY",
           "group_rules", "relative_rules", "paired_times"]

SAME_COMMENT = 0.8  # a page comment and a feed comment merged into one from this similarity on

_COMMENT_PAGE = re.compile(r"/comment-page-\d+/?$|[?&](?:cpage|commentPage|comment_page|comments_page)=\d+", re.I)
_COMMENT_PAGE_HINT = re.compile(r"comment|cpage", re.I)
_HREFS = etree.XPath("//a/@href", smart_strings=False, regexp=False)
_COMMENT_WORDS = re.compile(r"comment|commentaire|comentario|kommentar|réponse|replies", re.I)


# ---------------------------------------------------------------- feed comments

def comment_id(href: str | None, post_url: str | None) -> str | None:
    """One id per comment whichever source names it: a link to the post (or to one of its
    comment pages, with any query: ?showComment=, ?replytocom=) with a #fragment becomes
    post_url#fragment; any other link or id is kept as it is."""
    if not href or not post_url:
        return href or None
    u = urllib.parse.urljoin(post_url, href)
    s, p = urllib.parse.urlsplit(u), urllib.parse.urlsplit(post_url)
    if not s.fragment or s.netloc != p.netloc:
        return u
    if re.sub(r"/comment-page-\d+/?$", "/", s.path).rstrip("/") != p.path.rstrip("/"):
        return u
    return post_url.split("#")[0] + "#" + s.fragment


def feed_comments(items: list[dict], post_url: str | None = None) -> list[dict]:
    """tasks.discover.feeds.parse_comment_feed's items as record comments, oldest first.

    {"id", "url", "author", "published", "content_text", "parent"}; `parent` is the
    id of the comment answered (None for a comment on the post). With `post_url`, ids are
    comment_id's (post_url#fragment), the ids the post's page gives the same comments."""
    out = [{"id": comment_id(c.get("url"), post_url) or c.get("id"), "url": c.get("url"),
            "author": clean_author(c.get("author")) or None, "published": c.get("published"),
            "content_text": normalize_text(c.get("content_text")), "parent": c.get("parent")}
           for c in items or []]
    alias = {}
    for c, raw in zip(out, items or []):
        for k in (raw.get("id"), raw.get("url")):
            if k:
                alias[k] = c["id"]
    for c in out:
        if c["parent"]:
            c["parent"] = alias.get(c["parent"]) or comment_id(c["parent"], post_url)
    return sorted(out, key=lambda c: c["published"] or "")


# ---------------------------------------------------------------- group rules


# ---------------------------------------------------------------- learning


# ---------------------------------------------------------------- extraction

def _per_comment(name: str | None) -> bool:
    """An element id that can name one comment: numbered (comment-12, c12, cmt-12), unlike the
    ids of the list of all comments (#comments, #respond)."""
    return bool(name) and bool(re.search(r"\d", name))


def _anchor_id(el) -> str | None:
    """The numbered id of the comment's element or of its thread element (li > article)."""
    for node in (el, el.getparent()):
        if node is not None and _per_comment(node.get("id")):
            return node.get("id")
    return None


_ids = threading.local()  # this thread's last page and its id/name -> element index


def _named(root, fragment: str):
    """The element a #fragment names (by id or name, first in document order); the page's
    index is built once per page, not once per link."""
    if getattr(_ids, "root", None) is not root:
        index: dict = {}
        for el in root.iter():
            if isinstance(el.tag, str):
                for key in (el.get("id"), el.get("name")):
                    if key is not None:
                        index.setdefault(key, el)
        _ids.root, _ids.index = root, index
    return _ids.index.get(fragment)


class _Among:
    """A comment's element among the page's comment containers: what its links are checked against."""

    def __init__(self, c, containers: list):
        self.c = c
        self.root = c.getroottree().getroot()
        self.others = [o for o in containers if o is not c]
        self.members = set(containers)
        self.close = [c]  # the comment and up to three of its ancestors
        for _ in range(3):
            if self.close[-1].getparent() is None:
                break
            self.close.append(self.close[-1].getparent())


def _stands_for(target, among: _Among) -> bool:
    """Does the element a #fragment names stand for this comment: the comment, an element
    inside it or in its region, or its own thread element (li > article; not the list of
    all, #comments, which holds other comments first), and no other comment?"""
    c, others = among.c, among.others
    if any(o is target for o in others):
        return False
    if is_ancestor(target, c):
        return target in among.close[1:3] and next((o for o in target.iter() if o in among.members), None) is c
    return (target is c or is_ancestor(c, target) or in_region(c, target)) and \
        not any(is_ancestor(target, o) for o in others)


def _names_comment(href: str | None, among: _Among) -> bool:
    """Does `href` end in a #fragment naming this comment's element?"""
    if not href or "#" not in href:
        return False
    frag = urllib.parse.unquote(href.split("#", 1)[1])
    target = _named(among.root, frag) if _per_comment(frag) else None
    return target is not None and _stands_for(target, among)


def _date_links(date_node, c) -> list:
    """The links in or around the comment's date (the date's two nearest ancestors below
    the comment's parent), nearest first."""
    if date_node is None or isinstance(date_node, str):
        return []
    around, node = list(date_node.iter("a")), date_node.getparent()
    for _ in range(2):
        if node is None or node is c.getparent():
            break
        around.append(node)
        node = node.getparent()
    return [a for a in around if a.tag == "a"]


def _permalink(c, date_node, containers: list, base_url: str | None) -> str | None:
    """The comment's own link (href with #fragment naming this comment's element): the link
    around its date, else a link inside it to the comment or one of its close ancestors."""
    among = _Among(c, containers)
    for a in _date_links(date_node, c):
        if _names_comment(a.get("href"), among):
            return urllib.parse.urljoin(base_url or "", a.get("href"))
    ids = {n.get("id") for n in among.close if n.get("id")}
    for a in c.iter("a"):
        href = a.get("href") or ""
        if "#" in href and urllib.parse.unquote(href.split("#", 1)[1]) in ids and _names_comment(href, among):
            return urllib.parse.urljoin(base_url or "", href)
    return None


def _content_id(post_url: str, author: str | None, published: str | None, text: str) -> str:
    import hashlib

    h = hashlib.sha1(f"{author or ''}\n{published or ''}\n{normalize_text(text)}".encode()).hexdigest()[:12]
    return f"{post_url.split('#')[0]}#bh-comment-{h}"


_LINKBACK = re.compile(r"(?<![\w-])(pingback|trackback)(?![\w-])", re.I)


def comment_kind(el) -> str:
    """"pingback" or "trackback" when the comment's element (or its thread element) is
    marked as one, as blog engines mark them; "comment" otherwise."""
    for node in (el, el.getparent()):
        m = _LINKBACK.search(node.get("class") or "") if node is not None else None
        if m:
            return m.group(1).lower()
    return "comment"


def _read(c, rule: dict, containers: list, base_url: str | None, post_url: str, nested: set) -> dict | None:
    """One comment from its container by the rule (None when it says nothing); the author is
    the first line of the name node (not a reply note under it), the text all of its own."""
    text, _ = said_text(c, rule, nested)
    if not text:
        return None
    name_node = next(iter(own_matches(c, rule["author"], nested)), None) if rule.get("author") else None
    author = "" if name_node is None else name_in(node_text(name_node), rule["author_line"]) \
        if rule.get("author_line") else clean_shown_author(shown_name(name_node), rule)
    if rule.get("source") == "blocks" and not author:
        return None  # a block with no name is no comment (the rule was learned on named ones)
    date_node = first(c, rule.get("date")) if rule.get("date") else None
    published = date_value(date_node) if date_node is not None else None  # never the post's date
    link = _permalink(c, date_node, containers, base_url)
    anchor = _anchor_id(c)
    cid = (comment_id(link, post_url) if link else None) or \
        (f"{post_url}#{anchor}" if anchor else None) or _content_id(post_url, author, published, text)
    # (the id from the time as printed: the same whatever clock the blog's rule learns)
    return {"id": cid, "url": link, "author": author or None, "published": read_in(published, rule.get("clock")),
            "content_text": text, "parent": None, "kind": comment_kind(c), "_el": c, "_printed": published,
            "_notes": lines(name_node)[1:] if name_node is not None else []}


def _unique_ids(out: list[dict], post_url: str) -> None:
    """An id shared by several comments names none of them: those get content ids."""
    counts: dict = {}
    for c in out:
        counts[c["id"]] = counts.get(c["id"], 0) + 1
    for c in out:
        if counts[c["id"]] > 1:
            c["id"], c["url"] = _content_id(post_url, c["author"], c["_printed"], c["content_text"]), None


THREAD_LEVELS = 4  # ancestors of a comment's element searched for its thread element


def _threads(out: list[dict], depths: dict) -> dict:
    """id(comment element) -> its thread elements: the element and its ancestors (a few
    levels) that hold no other comment as high as it (li > div.comment, then li > ul of
    replies; never the list of all comments)."""
    els = [c["_el"] for c in out]
    owner = {}
    for e in els:
        for a in e.iterancestors():
            owner.setdefault(a, []).append(e)
    found = {}
    for e in els:
        up, node = [e], e.getparent()
        for _ in range(THREAD_LEVELS):
            if node is None or any(o is not e and depths[id(o)] <= depths[id(e)] for o in owner.get(node, ())):
                break
            up.append(node)
            node = node.getparent()
        found[id(e)] = up
    return found


def _link_replies(out: list[dict]) -> None:
    """A comment answers the nearest earlier one whose element or thread element encloses
    it at a smaller depth; else the one its name line notes."""
    depths = {id(c["_el"]): depth(c["_el"]) for c in out}
    threads = _threads(out, depths)
    els = {c["_el"] for c in out}
    for k, c in enumerate(out):
        el = c["_el"]
        for j in range(k - 1, -1, -1):
            d = out[j]["_el"]
            if depths[id(d)] < depths[id(el)] and any(is_ancestor(t, el) for t in threads[id(d)]):
                c["parent"] = out[j]["id"]
                break
        if c["parent"] is None:
            c["parent"] = _replied_after(out[:k], el, els)
        if c["parent"] is None and c["_notes"]:
            c["parent"] = _noted_parent(out[:k], c["_notes"])


def _replied_after(earlier: list[dict], el, els: set) -> str | None:
    """A reply printed in the element right after its comment's, no comment itself (a thread of
    replies beside the comment, not inside it: `<div class=comment>` then `<div class=indented>`):
    the nearest earlier comment whose next element encloses it."""
    for d in reversed(earlier):
        sib = d["_el"].getnext()
        while sib is not None and not isinstance(sib.tag, str):
            sib = sib.getnext()
        if sib is not None and sib not in els and is_ancestor(sib, el):
            return d["id"]
    return None


def _noted_parent(earlier: list[dict], notes: list[str]) -> str | None:
    """A flat reply whose name line notes whom it answers ("In reply to Ann", "@Ann"): the
    nearest earlier comment by that name."""
    for c in reversed(earlier):
        name = c.get("author")
        if name and any(re.search(r"(?<!\w)" + re.escape(name) + r"(?!\w)", n) for n in notes):
            return c["id"]
    return None


def extract_comments(root, rule: dict, base_url: str | None = None, post_url: str | None = None) -> list[dict]:
    """Comments on one page by a learned (or known) rule, in page order:
    [{"id", "url", "author", "published", "content_text", "parent", "kind"}].

    The id is the comment's permalink as comment_id(…, post_url) gives it (the same on
    every comment page of the post and in its comment feed), else the post URL with the
    comment's element id, else with a hash of its author, date and text: never its position.
    A comment with no date shown has published None."""
    if root is None or not rule or not rule.get("container"):
        return []
    post_url = post_url or re.sub(r"comment-page-\d+/?$", "", (base_url or "").split("#")[0])
    containers = elements(apply_rule(root, rule["container"]))
    if rule.get("text") and rule["text"] not in (".", REST):  # a container without a text is not a comment
        containers = [c for c in containers if first(c, rule["text"]) is not None]
    nested = set(containers)
    out = [c for c in (_read(c, rule, containers, base_url, post_url, nested) for c in containers) if c]
    _unique_ids(out, post_url)
    _link_replies(out)
    for c in out:
        del c["_el"], c["_notes"], c["_printed"]
    return out


def _pairs(page: list[dict], feed: list[dict]) -> dict[int, int]:
    """page index -> feed index of the comments both sources hold (merge_comments' pairing)."""
    pair = _paired_by_id(page, feed)
    pair.update(_paired_by_text(page, feed, pair))
    return pair


def paired_times(page: list[dict], feed: list[dict]) -> list[tuple[str | None, str | None]]:
    """(page time, feed time) of each comment both sources hold (tasks.extract.comment_clock)."""
    return [(page[i].get("published"), feed[j].get("published")) for i, j in _pairs(page, feed).items()]


def _paired_by_id(page: list[dict], feed: list[dict]) -> dict[int, int]:
    """page index -> feed index of the comments both sources name by the same id (each
    feed comment paired once, with the first page comment of its id)."""
    by_id: dict = {}
    for j, f in enumerate(feed):
        by_id.setdefault(f.get("id"), j)
    pair: dict[int, int] = {}
    for i, c in enumerate(page):
        j = by_id.get(c.get("id"))
        if j is not None and j not in pair.values():
            pair[i] = j
    return pair


def _alike(page_comment: dict, feed_comment: dict, weight: float) -> bool:
    """One comment whose texts match with `weight`: alike enough (SAME_COMMENT), or
    somewhat alike (MIN_SIMILARITY) and by the same author."""
    if weight >= SAME_COMMENT:
        return True
    return weight >= MIN_SIMILARITY and bool(page_comment.get("author")) and \
        similarity(clean_author(page_comment["author"]), clean_author(feed_comment.get("author"))) >= 0.8


def _paired_by_text(page: list[dict], feed: list[dict], pair: dict[int, int]) -> dict[int, int]:
    """page index -> feed index of the comments `pair` left alone whose texts say the same
    (maximum weight matching)."""
    rest_p = [i for i in range(len(page)) if i not in pair]
    rest_f = [j for j in range(len(feed)) if j not in pair.values()]
    if not rest_p or not rest_f:
        return {}
    _, pairs = match_comments([page[i]["content_text"] for i in rest_p], [feed[j]["content_text"] for j in rest_f])
    return {rest_p[a]: rest_f[b] for a, b, w in pairs if _alike(page[rest_p[a]], feed[rest_f[b]], w)}


def _completed(c: dict, f: dict) -> dict:
    """A page comment confirmed and completed by its feed comment: what the page shows wins (the
    name as the page prints it, in the blog's language), the feed fills what it lacks (a
    name, a date, a text the page cuts short); the feed's id and link stand in where the
    page shows no permalink."""
    c = dict(c)
    c["author"] = c.get("author") or f.get("author")
    c["published"] = f.get("published") or c.get("published")
    if f.get("content_text") and len(c.get("content_text") or "") < 0.8 * len(f["content_text"]):
        c["content_text"] = f["content_text"]
    if not c.get("url") and f.get("id"):
        c["id"] = f["id"]
    c["url"] = c.get("url") or f.get("url")
    return c


def _relink_parents(out: list[dict], pair: dict[int, int], feed: list[dict], final: dict) -> None:
    """Parents named by a feed id renamed to the merged comment's id; a paired comment the
    page does not nest gets the parent its feed comment names."""
    for c in out:
        if c.get("parent") in final:
            c["parent"] = final[c["parent"]]
    for i, j in pair.items():
        if out[i].get("parent") is None and feed[j].get("parent"):
            out[i]["parent"] = final.get(feed[j]["parent"], feed[j]["parent"])


def reading_score(found: list[dict], feed: list[dict], known: int | None = None) -> float:
    """How well the comments a rule read off a post's pages agree with its comment feed, per feed
    comment: the text's similarity to the page comment paired with it, half a point more for its
    name and half for its day where they agree, less one for every page comment the feed does not
    hold. A rule that reads each comment's whole block (name and date in the text) and no name
    scores below one that reads the parts (issue 30's held-out blogs: a rule learned on a sample
    of two comments). Where the post is `known` to have as many comments as the reading found
    (its feed entry's count, its page's), a page comment older than every comment of the feed
    is no such fault: a comment feed holds the newest comments, often only the last few
    (WordPress: ten), and the page all of them (issue 33: such a sample read no rule well, and
    settling read every other sample and the blocks of eight posts)."""
    if not feed:
        return 0.0
    _, pairs = match_comments([c.get("content_text") or "" for c in found], [f.get("content_text") or "" for f in feed])
    score, paired = 0.0, 0
    oldest = None
    if known is not None and known == len(found) > len(feed):
        oldest = min((t for f in feed if (t := parse_iso(f.get("published"))) is not None), default=None)
    unpaired = set(range(len(found)))
    for i, j, w in pairs:
        if w < MIN_SIMILARITY:
            continue
        paired += 1
        unpaired.discard(i)
        c, f = found[i], feed[j]
        score += w
        if c.get("author") and f.get("author") and \
                similarity(clean_author(c["author"]), clean_author(f["author"])) >= 0.8:
            score += 0.5
        if _same_day(c.get("published"), f.get("published")):
            score += 0.5
    older = sum(1 for i in unpaired if oldest is not None and (t := parse_iso(found[i].get("published"))) is not None
                and _before(t, oldest))
    return (score - (len(found) - paired - older)) / len(feed)


def _before(a: dt.datetime, b: dt.datetime) -> bool:
    """a before b (a time without its zone compared as if in the other's)."""
    if (a.tzinfo is None) != (b.tzinfo is None):
        a, b = a.replace(tzinfo=None), b.replace(tzinfo=None)
    return a < b


def _same_day(a: str | None, b: str | None) -> bool:
    """Two dates of one comment, a day apart at most (a page prints local time, a feed UTC)."""
    try:
        da, db = dt.date.fromisoformat((a or "")[:10]), dt.date.fromisoformat((b or "")[:10])
    except ValueError:
        return False
    return abs((da - db).days) <= 1


def merge_comments(page: list[dict], feed: list[dict]) -> list[dict]:
    """One list of a post's comments from its pages and its comment feed, whatever share of
    them the feed lists: the page's comments in page order, each completed by its feed
    comment (its exact date; a name or text the page lacks), then the feed comments no page showed, oldest
    first. A page and a feed comment are one when their ids are equal, or (maximum weight
    matching) their texts are alike (SAME_COMMENT, or MIN_SIMILARITY by the same author)."""
    if not feed:
        return [dict(c) for c in page]
    pair = _pairs(page, feed)
    out = []
    final = {}  # feed id -> id in the output
    for i, c in enumerate(page):
        c = _completed(c, feed[pair[i]]) if i in pair else dict(c)
        if i in pair:
            final[feed[pair[i]].get("id")] = c["id"]
        out.append(c)
    used = set(pair.values())
    out += sorted((dict(f) for j, f in enumerate(feed) if j not in used), key=lambda f: f.get("published") or "")
    _relink_parents(out, pair, feed, final)
    return out


# ---------------------------------------------------------------- links

def comment_page_links(root, post_url: str) -> list[str]:
    """Other pages of this post's comments (WordPress comment-page-N/, ?cpage=N, Blogger
    ?commentPage=N) linked from the page, in page order."""
    base = urllib.parse.urlsplit(post_url)
    post_path = re.sub(r"comment-page-\d+/?$", "", base.path)
    out = []
    for href in _HREFS(root):
        href = href.strip()
        if href and not href.startswith(("#", ".")) and not _COMMENT_PAGE_HINT.search(href):
            continue  # no comment-page word in it: the joined address cannot be one
        u = urllib.parse.urljoin(post_url, href).split("#")[0]
        p = urllib.parse.urlsplit(u)
        if p.netloc != base.netloc or not p.path.startswith(post_path.rstrip("/")):
            continue
        if _COMMENT_PAGE.search(p.path + ("?" + p.query if p.query else "")) and "replytocom" not in p.query:
            out.append(u)
    return list(dict.fromkeys(out))


def comment_feed_links(root, post_url: str) -> list[str]:
    """The post's own comment feed advertised by the page (<link rel=alternate> whose title
    or address says comments, under the post's path or a Blogger /feeds/N/comments/)."""
    out = []
    path = urllib.parse.urlsplit(post_url).path.rstrip("/")
    for link in root.xpath("//link[@rel='alternate'][@href]"):
        href = urllib.parse.urljoin(post_url, link.get("href"))
        hpath = urllib.parse.urlsplit(href).path
        title = link.get("title") or ""
        per_post = (path and hpath.startswith(path + "/")) or re.search(r"/feeds/\d+/comments/", hpath)
        if per_post and (_COMMENT_WORDS.search(title) or _COMMENT_WORDS.search(hpath) or hpath.endswith("/feed/")):
            out.append(href)
    return list(dict.fromkeys(out))
