"""Posts recognised by their template, beyond every learned URL pattern.

A feed that covers one section, or a blog that changed its slug scheme, teaches a post
pattern that misses posts. Such a page is still a post when the blog's learned rules
find on it what they found on the training posts: a title, a content block that the
content rule selects alone (a listing repeats it), and a date. A blog whose posts show
no date reliably has no template recognition: its pages would pass for posts. Listing pages and pages below a post's URL never pass (tasks.discover.canonical).
"""
from __future__ import annotations

from tasks.extract.post import rule_of
from tasks.fetch.html import node_text
from tasks.learn.rules import apply_rule

__all__ = ["dated_blog", "template_post", "MIN_CONTENT_CHARS"]

MIN_CONTENT_CHARS = 80  # a post says something; an empty shell of the template does not
RELIABLE_SHARE = 0.6  # a field whose rule won this share of the training votes is part of the template


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


def template_post(root, extracted: dict | None, rules: dict | None) -> bool:
    """Whether a page outside the post patterns is a post of the blog's template."""
    if not extracted or not rules:
        return False
    if not (extracted.get("title") and len(extracted.get("content_text") or "") >= MIN_CONTENT_CHARS):
        return False
    if not dated_blog(rules) or not extracted.get("published"):
        # posts without dates cannot be told from the site's pages (/about/) by their template
        return False
    for field in ("title", "date", "author"):  # what held on most training posts holds here too
        if _reliable(rules, field) and not _selects_text(root, rule_of(rules, field)):
            return False  # (a page of the site, in the post template, without a byline or date)
    content = rule_of(rules, "content")
    if not content:
        return False
    try:
        hits = [n for n in apply_rule(root, content) if not isinstance(n, str)]
    except Exception:  # a rule that no longer compiles on this page: no evidence
        return False
    if len(hits) != 1:
        return False  # nothing in the post's place, or one per listed post (a listing)
    title = rule_of(rules, "title")
    if title:
        try:
            if len(apply_rule(root, title)) > 2:
                return False  # several titles: a listing of excerpts
        except Exception:
            return False
    return True
