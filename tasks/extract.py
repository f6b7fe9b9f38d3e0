"""Apply a blog's learned rules to one post page (the cheap step done for every post).

`extract_post` parses the page once and evaluates one compiled XPath per field. Where a
rule finds nothing on a page (a post without a byline, an odd template), the page's own
metadata fills the gap: og:title/h1 for the title, article:published_time, <time
datetime> and JSON-LD for the date, meta author/rel=author for authors. `matches_entry`
is update_crawl's check that the stored rules still extract what the feed says.
"""
from __future__ import annotations

import re

from tasks.dates import parse_date
from tasks.html import html_to_text, json_ld, node_text, parse_html, to_html
from tasks.learn import clean_author, page_authors
from tasks.rules import apply_rule
from tasks.similarity import dice

FIELDS = ("title", "content", "author", "date")
_DATE_PROBES = ("//meta[@property='article:published_time']/@content",
                "//meta[@name='article:published_time']/@content",
                "//meta[@itemprop='datePublished']/@content",
                "//*[@itemprop='datePublished']/@datetime",
                "//time[@datetime]/@datetime",
                "//meta[@name='date']/@content",
                "//meta[@name='DC.date.issued' or @name='dc.date']/@content")
_TITLE_PROBES = ("//meta[@property='og:title']/@content", "//h1", "//title")
_MAX_AUTHORS = 5


def rule_of(rules: dict | None, field: str) -> str | None:
    """The XPath of a field, whether stored as {"rule": ...} or as a bare string."""
    v = (rules or {}).get(field)
    if isinstance(v, dict):
        return v.get("rule")
    return v if isinstance(v, str) else None


def _first_text(root, rule: str | None) -> str:
    for r in apply_rule(root, rule):
        t = node_text(r)
        if t:
            return t
    return ""


def _authors(root, rule: str | None, raw) -> list[str]:
    names = []
    for r in apply_rule(root, rule)[:_MAX_AUTHORS]:
        name = clean_author(node_text(r))
        if name and name not in names and len(name) <= 120:
            names.append(name)
    return names or (page_authors(root, raw) if rule is None else [])


def _date(root, rule: str | None, raw) -> str | None:
    for r in apply_rule(root, rule)[:3]:
        d = parse_date(node_text(r))
        if d:
            return d
    for probe in _DATE_PROBES:
        for r in apply_rule(root, probe)[:1]:
            d = parse_date(node_text(r))
            if d:
                return d
    for obj in json_ld(raw):
        d = obj.get("datePublished")
        if isinstance(d, str) and parse_date(d):
            return parse_date(d)
    return None


def extract_root(root, raw, rules: dict | None) -> dict:
    """`extract_post` on a page already parsed (rendered pages, the learner's checks)."""
    title = _first_text(root, rule_of(rules, "title"))
    if not title:
        for probe in _TITLE_PROBES:
            title = _first_text(root, probe)
            if title:
                break
    content = apply_rule(root, rule_of(rules, "content"))
    node = next((c for c in content if not isinstance(c, str)), None)
    return {
        "title": title or None,
        "content_text": node_text(node) if node is not None else None,
        "content_html": to_html(node) if node is not None else None,
        "authors": _authors(root, rule_of(rules, "author"), raw),
        "published": _date(root, rule_of(rules, "date"), raw),
    }


def extract_post(html, url: str | None, rules: dict | None) -> dict:
    """{"title", "content_text", "content_html", "authors", "published"} of one post page."""
    root = parse_html(html, url)
    return extract_root(root, html, rules)


def matches_entry(extracted: dict, entry: dict, threshold: float = 0.5) -> bool:
    """Do the rules still extract this feed entry? Title and content (or summary) must
    be similar to the feed's, in the paper's sense (Dice of bigrams above 0.5)."""
    title = html_to_text(entry.get("title") or "")
    got_title = extracted.get("title") or ""
    if title and dice(title.casefold(), got_title.casefold()) <= threshold:
        return False
    target = html_to_text(entry.get("content_html") or entry.get("summary_html") or "")
    got = extracted.get("content_text") or ""
    if not target:
        return bool(got)
    if entry.get("content_html"):
        return dice(target, got) > threshold
    # a summary: its words should appear in the extracted body
    words = re.findall(r"\w+", target.casefold())[:60]
    body = set(re.findall(r"\w+", got.casefold()))
    return bool(words) and sum(w in body for w in words) / len(words) > threshold
