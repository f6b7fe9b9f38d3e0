"""Hybrid extraction per page: the learned rules first, the page-level extractor where they fail.

A post page on which the rules find no title or no content (template drift, a special
post, a blog whose rules were learned from few pages) is extracted by
tasks.extract.fallback instead, and its record says so (`extraction: "fallback"`). The
pages that fell back are kept (newest RELEARN_KEEP, with what the fallback read on them:
pseudo feed entries); when RELEARN_AFTER of them have gathered since the last time, one
worker learns rules on them (Algorithm 2, as from a feed) and adds those rules to the
blog's as runners-up, tried where the main rule finds nothing: the drifted template is
then read at rules' speed again.

Keys: `bh:{B}:crawl:<id>:fallbacks` (list of JSON {url, html, entry}); the crawl hash's
`fallbacks` and `relearned` counters.
"""
from __future__ import annotations

import json
import logging

from tasks.extract.fallback import fallback_extract, whole_page
from tasks.extract.footer import MEDIA
from tasks.fetch.page import Page
from tasks.learn.fields import learn_page, reduce_rules
from tasks.learn.plausible import generic_fields
from tasks.text.similarity import normalize_text
from tasks.learn.pseudo_feed import MIN_POST_CHARS
from tasks.learn.rules import apply_rule

log = logging.getLogger("blogharvest")

RELEARN_AFTER = 5  # pages fallen back to since the last re-learning, before learning again
RELEARN_KEEP = 12  # pages kept to learn from (newest)
MIN_CONTENT = 40  # rules' content shorter than this is no content (a caption, a stray node)
HELD = 0.5  # vote share above which a field's rule is the blog's: a page it misses is a failure
MAX_RELEARN = 4  # re-learnings per crawl: a blog whose pages the rules keep missing falls back on them


def fallbacks_key(rt, crawl_id: str) -> str:
    return f"{rt.keys(crawl_id).crawl}:fallbacks"


def _held(rules: dict, field: str) -> bool:
    """Did the field's rule hold on most training pages (so a page without it is a miss)?"""
    v = rules.get(field)
    if isinstance(v, str):
        return True
    return isinstance(v, dict) and bool(v.get("rule")) and float(v.get("share") or 1.0) >= HELD


def rules_failed(extracted: dict, rules: dict | None, root=None) -> bool:
    """Did the learned rules miss this page: no rules, or no content to speak of where the
    blog's training pages had it? A post whose content rule reads its body is read, titled
    or not: an untitled post, or a photo post whose body holds no text (`root`: the page, to
    see that the content rule's node is there) is no failure, and the page-level extractor
    would read the sidebar for it."""
    if not rules or "content" in generic_fields(rules):  # (tasks.learn.plausible: the blog's content is generic)
        return True
    if len(extracted.get("content_text") or "") >= MIN_CONTENT or not _held(rules, "content"):
        return False
    if root is None:
        return True
    if not extracted.get("title"):  # read only where the rules read its body, and that is photos
        return not (extracted.get("content_html") and _node_found(root, rules["content"], media=True))
    return not _node_found(root, rules["content"])


def _node_found(root, rule, media: bool = False) -> bool:
    """Does the content rule select an element on this page (the post's body, however short)?
    `media`: one holding a photo or a player (an untitled post of photos alone: an empty body
    and no title is a template the rules no longer read)."""
    rule = rule.get("rule") if isinstance(rule, dict) else rule
    try:
        found = [n for n in apply_rule(root, rule)[:2] if not isinstance(n, str)] if rule else []
    except Exception:
        return False
    return any(next(n.iter(*MEDIA), None) is not None for n in found) if media else bool(found)


def extraction_of(extracted: dict) -> str:
    """The path a rules extraction took: "rules+span" where a field's value was cut from part
    of its rule's node text (its source is "span", tasks.extract.fields), else "rules"."""
    return "rules+span" if "span" in (extracted.get("sources") or {}).values() else "rules"


def complete(rt, crawl_id: str, url: str, page, extracted: dict, rules: dict | None,
             known_post: bool, site_title: str | None = None) -> tuple[dict, str]:
    """(extracted, extraction) for a post page (a Page): the rules'
    result, or the fallback's where the rules failed. A page only the URL pattern calls a post
    must read as one (a date and an article) before the fallback makes it a record."""
    if extracted.get("extraction") == "fallback":  # read so already (a blog with no rules: generic)
        got = {k: v for k, v in extracted.items() if k != "extraction"}
        _untitled_if_site(got, site_title)
        _remember(rt, crawl_id, url, page, got)
        return got, "fallback"
    # binary bytes (garbled text): the page-level extractor would read a "post" from noise
    if not rules_failed(extracted, rules, page.root) or page.garbled:
        return extracted, extraction_of(extracted)
    got = fallback_extract(page.html, page.final_url, root=page.root)
    if not _reads_as_post(got, known_post):
        return extracted, extraction_of(extracted)
    if extracted.get("content_text") and whole_page(got["content_text"], page.root, extracted.get("title")):
        # a one-line post: the rule's short text is the post, the extractor's "content" the page
        return extracted, extraction_of(extracted)
    merged = _merged(extracted, got)
    _untitled_if_site(merged, site_title)
    _remember(rt, crawl_id, url, page, merged)
    return merged, "fallback"


def _untitled_if_site(got: dict, site_title: str | None) -> None:
    """An untitled post: the blog's name read as its title is no title."""
    if site_title and normalize_text(got.get("title") or "").casefold() == normalize_text(site_title).casefold():
        got["title"] = None


def _reads_as_post(got: dict, known_post: bool) -> bool:
    """Does what the fallback read make a post: content, and for a page the feed does not
    list, a date and an article's length?"""
    if not got.get("content_text"):
        return False
    return known_post or bool(got.get("published") and len(got["content_text"]) >= MIN_POST_CHARS)


def _merged(extracted: dict, got: dict) -> dict:
    """The fallback's content under the fields the rules did read (title, authors, date)."""
    merged = dict(got, title=extracted.get("title") or got.get("title"),
                  authors=extracted.get("authors") or got.get("authors") or [],
                  published=extracted.get("published") or got.get("published"))
    kept = {"title": "title", "authors": "authors", "published": "published"}
    merged["sources"] = {f: v for f, v in (extracted.get("sources") or {}).items()
                         if f in kept and extracted.get(kept[f])}  # content's source: the record's extraction
    return merged


def _remember(rt, crawl_id: str, url: str, page: Page, got: dict) -> None:
    st = rt.state
    k = rt.keys(crawl_id)
    entry = {"url": url, "title": got.get("title"), "content_html": got.get("content_html"),
             "authors": got.get("authors") or [], "published": got.get("published")}
    key = fallbacks_key(rt, crawl_id)
    with st.r.pipeline(transaction=False) as p:
        p.lpush(key, json.dumps({"url": url, "html": page.html, "final": page.final_url, "entry": entry}))
        p.ltrim(key, 0, RELEARN_KEEP - 1)
        p.hincrby(k.crawl, "fallbacks", 1)
        p.hget(k.crawl, "fallbacks_learned")
        _, _, n, learned = p.execute()
    if n - int(learned or 0) >= RELEARN_AFTER and st.lock(f"relearn:{crawl_id}", 120.0):
        st.r.hset(k.crawl, "fallbacks_learned", n)
        if st.r.hincrby(k.crawl, "relearned", 1) > MAX_RELEARN:
            return
        try:
            relearn(rt, crawl_id)
        except Exception as e:  # the pages are extracted all the same; say so and go on
            log.exception("re-learning on fallen-back pages of %s failed", crawl_id)
            st.add_error(crawl_id, url, "relearn", f"{type(e).__name__}: {e}")


def merge_rules(old: dict | None, new: dict) -> dict:
    """The blog's rules with `new`'s rule per field first among the runners-up (the main
    rule stays: it still reads the pages it was learned on)."""
    out = dict(old or {})
    for field, v in (new or {}).items():
        if not isinstance(v, dict) or not v.get("rule"):
            continue
        cur = out.get(field)
        if not isinstance(cur, dict) or not cur.get("rule"):
            out[field] = v
            continue
        if v["rule"] == cur["rule"]:
            continue
        rest = [r for r in (cur.get("fallbacks") or []) if r != v["rule"]]
        out[field] = dict(cur, fallbacks=[v["rule"], *rest])
    return out


def relearn(rt, crawl_id: str) -> dict:
    """Learn rules on the pages that fell back; add them to the blog's rules. Returns the new rules."""
    st = rt.state
    kept = [json.loads(x) for x in st.r.lrange(fallbacks_key(rt, crawl_id), 0, -1)]
    page_rules = []
    for item in kept:
        e = item["entry"]
        target = {"title": e.get("title") or "", "content": e.get("content_html") or "",
                  "content_is_summary": False, "authors": e.get("authors") or [],
                  "authors_from_feed": False, "published": e.get("published")}
        try:
            page_rules.append(learn_page(item["html"], item.get("final") or item["url"], target))
        except Exception:
            log.exception("learning on %s failed", item["url"])
    if not page_rules:
        return {}
    merged = merge_rules(st.blog(crawl_id).get("rules"), reduce_rules(page_rules))
    st.save_blog(crawl_id, rules=merged)
    st.add_error(crawl_id, kept[0]["url"], "relearn",
                 f"rules failed on {len(kept)} recent post pages: rules re-learned on them, added as runners-up")
    return merged
