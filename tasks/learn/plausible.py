"""Every learned rule checked on the training pages before the blog keeps it (issue 31).

Algorithm 1's vote elects, per field, the rule most training pages agree on; nothing says
the elected rule reads a post's own value. Two kinds of evidence, both from the training
pages the rules were learned on:

- **Plausibility, no target needed.** A title rule that gives the same text on many pages
  reads the site's name; a content rule whose text is mostly the same on every page reads
  the template (a sidebar, a profile box); a date rule that gives one day on most pages
  reads a build or copyright date. Such a rule is not used.
- **The rule against the generic reading.** Where the entries are the blog's own (a feed's
  title, date, author, full content), the rule's value and the generic one (the page's own
  metadata down the fallback chain; trafilatura for content) are both scored against them;
  a field where the generic reading agrees clearly more often is read generically on every
  page of the blog.

Before both, a content rule whose block holds the post's title or date is narrowed to the
post's own block where the training pages agree on one (tasks.learn.narrow), and one that reads
a part of a post laid out in parts is widened to the whole (tasks.learn.widen).

A field so decided keeps its rule for recognising the template (tasks.discover.recognise) but
is marked `"use": "generic"`; extraction then fills it down the fallback chain, and the
record's `sources` says which source did. `checked_rules` returns the rules and one note per
decision for the crawl's report.
"""
from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from itertools import combinations

from tasks.discover.recency import zoned
from tasks.fetch.html import html_block_text, html_to_text, parse_html
from tasks.learn.narrow import narrowed_content
from tasks.learn.rules import apply_rule
from tasks.learn.authors import person_like
from tasks.learn.byline_end import ends_at_date
from tasks.learn.link_slots import link_slots
from tasks.learn.template_blocks import template_blocks
from tasks.learn.template_lines import template_lines
from tasks.learn.widen import widened_content
from tasks.text.dates import near_day, url_day
from tasks.text.similarity import dice, normalize_text, token_f1

__all__ = ["checked_rules", "generic_fields", "MIN_PAGES"]

MIN_PAGES = 3  # fewer training pages are no evidence either way
SAME_TITLE = 1 / 3  # a title rule giving one text on more than this share of pages reads the site's name
SAME_DATE = 0.5  # one day on more than this share of pages: a build or copyright date
_HANDLE = re.compile(r"\s*[(\[][^)\]]*[)\]]?")  # "Andreas Renberg (IQAndreas)": the name beside a handle
FOUND_AUTHOR = 1 / 3  # an author rule that finds a name on fewer training pages finds the template's odd line
SHARED_CONTENT = 0.6  # mean token F1 between two pages' content above this: the template, not a post
CONTENT_OK = 0.8  # token F1 with the feed's full content that counts as the post's content
REWORDED = 0.5  # Dice of bigrams above which a title is the feed's reworded (the paper's measure)
MARGIN = 0.15  # the generic reading must agree this much more often to take a field over
FIELDS = {"title": "title", "content": "content_text", "author": "authors", "date": "published"}


def _same(a, b) -> bool:
    return bool(a) and normalize_text(str(a)).casefold() == normalize_text(str(b or "")).casefold()


def _same_title(value, title: str) -> bool:
    """The entry's title, or a rewording of it (the page shows its own heading where the feed and
    the page's metadata give an SEO title: "Updating Debian" for "How to update Debian?"), but not
    the title with more around it (a site's name, a counter)."""
    if _same(value, title):
        return True
    v, t = normalize_text(str(value or "")).casefold(), normalize_text(title).casefold()
    return bool(v and t) and t not in v and v not in t and dice(v, t) > REWORDED


def _same_day(a, b) -> bool:
    """Is `a` (a page's reading) the day of `b` (its feed entry's date)? A feed's time in UTC (or
    with no zone) is a day in every zone from UTC-12 to UTC+14: a page printing the blog's own
    day may print the day before or after it (a post at 00:10 UTC, printed a day later in China)."""
    if not (a and b):
        return False
    day, given = str(a)[:10], str(b)
    if day == given[:10]:
        return True
    m = re.match(r"(\d{4}-\d\d-\d\d)T(\d\d):(\d\d)", given)
    if not m or zoned(given):
        return False
    try:
        t = dt.datetime.fromisoformat(f"{m.group(1)}T{m.group(2)}:{m.group(3)}")
    except ValueError:
        return False
    return (t - dt.timedelta(hours=12)).date().isoformat() <= day <= (t + dt.timedelta(hours=14)).date().isoformat()


def _same_names(a: list, b: list) -> bool:
    return any(_same(x, y) for x in a or [] for y in b or [])


def generic_fields(rules: dict | None) -> set[str]:
    """The fields the blog reads generically (`"use": "generic"`)."""
    return {f for f, v in (rules or {}).items() if isinstance(v, dict) and v.get("use") == "generic"}


_COMMENTISH = re.compile(r"@(?:class|id)\s*=\s*'[^']*(?:comment|respond|reply|discussion)", re.I)


_COMMENT_MARKS = re.compile(r"comment|respond|reply|discussion", re.I)


def _in_comments(rule: str, roots: list) -> str | None:
    """A post's field is never read inside its comments (a commenter's name is no author): the
    rule names a comment block, or the first node it selects lies in one on most training pages."""
    if _COMMENTISH.search(rule or ""):
        return "reads inside the comments"
    inside = selecting = 0  # (the page's body and html aside: their classes describe the whole page)
    for root in roots:
        try:
            first = next((n for n in apply_rule(root, rule) if not isinstance(n, str)), None)
        except Exception:  # a rule that does not apply here: no evidence
            continue
        if first is None:  # (a rule naming the first comment's name selects nothing where none is)
            continue
        selecting += 1
        inside += any(_COMMENT_MARKS.search(f"{a.get('class') or ''} {a.get('id') or ''}")
                      for a in first.iterancestors() if a.tag not in ("body", "html"))
    if selecting >= MIN_PAGES and inside > selecting / 2:
        return f"selects a node inside the comments on {inside} of the {selecting} training pages it selects one on"
    return None


def _implausible(field: str, values: list, pseudo: bool = False, entries: list | None = None) -> str | None:
    """Why the rule's values on the training pages are no post's own value, or None. `pseudo`:
    the entries are read off the pages (no feed), so a page where the rule finds nothing has no
    author from the feed either. `entries` (the pages' feed entries, in order): a day the feed
    gives a page too is that post's own (posts of a series published on one day), no build date."""
    got = [v for v in values if v]
    if field == "author" and len(values) >= MIN_PAGES:
        names = [n for v in got for n in (v if isinstance(v, list) else [v]) if n]
        if pseudo and len(got) < FOUND_AUTHOR * len(values):
            return f"finds a name on {len(got)} of {len(values)} training pages only"
        if names and sum(person_like(_HANDLE.sub("", n).strip() or n) for n in names) < 0.5 * len(names):
            return f"reads no person's name on most training pages ({names[0][:40]!r})"
    if len(got) < MIN_PAGES:
        return None
    if field == "title":
        text, n = Counter(normalize_text(v).casefold() for v in got).most_common(1)[0]
        if n >= 2 and n > SAME_TITLE * len(got):
            return f"gives the same title on {n} of {len(got)} training pages ({text[:60]!r}: the site's name)"
    if field == "date":
        day, _ = Counter(v[:10] for v in got).most_common(1)[0]
        confirmed = [v for v, e in zip(values, entries or []) if v and e and not e.get("pseudo")
                     and _same_day(v, e.get("published"))]
        n = sum(1 for v in got if v[:10] == day) - sum(1 for v in confirmed if v[:10] == day)
        if n >= 2 and n > SAME_DATE * len(got):
            return f"gives the same date on {n} of {len(got)} training pages ({day}: a build or copyright date)"
    if field == "content":
        pairs = list(combinations(got[:12], 2))
        shared = sum(token_f1(a, b) for a, b in pairs) / len(pairs)
        if shared > SHARED_CONTENT:
            return f"reads mostly the same text on every training page (mean F1 {shared:.2f} between pages: the template)"
    return None


def _agrees(field: str, value, entry: dict, target_text: str | None) -> bool | None:
    """Does `value` agree with the entry's own value of the field (None: the entry has none)?"""
    if field == "title":
        return _same_title(value, html_to_text(entry.get("title") or "")) if entry.get("title") else None
    if field == "date":
        return _same_day(value, entry.get("published")) if entry.get("published") else None
    if field == "author":
        own = entry.get("authors") if not entry.get("authors_from_feed") else None
        return _same_names(value, own) if own else None
    return token_f1(target_text, value) >= CONTENT_OK if target_text else None


def _full_content(entry: dict) -> str | None:
    """The entry's full content as text: a feed's, not a summary nor a pseudo entry's nor an
    excerpt's given its page's content (both are the generic reading itself)."""
    if (entry.get("pseudo") or entry.get("content_from") or entry.get("content_is_summary")
            or not entry.get("content_html")):
        return None
    return html_block_text(entry["content_html"]) or None


def _rule_of(rules: dict, field: str) -> str | None:
    v = rules.get(field)
    return v.get("rule") if isinstance(v, dict) and v.get("use") != "generic" else None


def _first_node(root, rule: str | None):
    """The first element `rule` selects on the page (None: none, or no rule)."""
    try:
        return next((n for n in apply_rule(root, rule) if not isinstance(n, str)), None) if rule else None
    except Exception:  # a rule that does not apply to this page: no node
        return None


def _feed_words(entry: dict) -> str | None:
    """What the blog's own feed says of the post (its content, else its summary) as text; None
    for a pseudo entry or one given its page's content (the generic reading itself)."""
    if entry.get("pseudo") or entry.get("content_from"):
        return None
    html = entry.get("content_html") or entry.get("summary_html")
    return html_block_text(html) if html else None


def _readings(root, html: str, url: str, rules: dict, extract, generic_content) -> tuple[dict, dict]:
    """(the rules' own values, the generic values) of one training page (`root`: parsed)."""
    ruled = extract(root, html, rules, url=url)
    own = {f: ruled.get(k) if (ruled.get("sources") or {}).get(_source_key(f)) in ("rule", "span") else None
           for f, k in FIELDS.items()}
    own["content"] = ruled.get("content_text")
    bare = extract(root, html, {}, url=url)
    generic = {f: bare.get(k) for f, k in FIELDS.items()}
    generic["content"] = None
    return own, dict(generic, _content=lambda: generic_content(html, url))


def _source_key(field: str) -> str:
    return {"author": "authors", "date": "published"}.get(field, field)


def checked_rules(rules: dict, pages: list[tuple[str, str, dict]], extract, generic_content) -> tuple[dict, list[str]]:
    """(rules, notes): `rules` with the fields whose rule is implausible or loses to the generic
    reading marked `"use": "generic"`. pages: [(html, url, entry)] of the training pages;
    extract: tasks.extract.post.extract_root; generic_content(html, url) -> text (trafilatura)."""
    if len(pages) < MIN_PAGES:
        return rules, []
    rules, narrowed = narrowed_content(rules, pages)  # a block around the post: the post's block
    roots = [parse_html(html, url) for html, url, _ in pages]
    widened = None
    if not any(_full_content(entry) for _, _, entry in pages):  # learned on no feed's own content
        rules, widened = widened_content(rules, pages, roots)  # a part of the post: the post's block
    rules = _with_template(rules, roots, [_feed_words(entry) for _, _, entry in pages])
    readings = [(_readings(root, html, url, rules, extract, generic_content), entry)
                for root, (html, url, entry) in zip(roots, pages)]
    out, notes = dict(rules), [n for n in (narrowed, widened) if n]
    for field in FIELDS:
        v = out.get(field)
        if not isinstance(v, dict) or not v.get("rule"):
            continue
        why = _in_comments(v["rule"], roots if field != "content" else [])
        why = why or _implausible(field, [own[field] for (own, _), _ in readings],
                                  pseudo=all(entry.get("pseudo") for _, _, entry in pages),
                                  entries=[entry for _, entry in readings])
        if why and (runner := _plausible_runner_up(field, out, roots, pages, extract)):
            out[field] = runner
            notes.append(f"{field} rule {v['rule']} {why}: its runner-up {runner['rule']} is read instead")
            continue
        why = why or _loses(field, readings)
        if why:
            out[field] = dict(v, use="generic")
            notes.append(f"{field} rule {v['rule']} {why}: the {field} is read from the page's metadata"
                         f"{' and the page-level extractor' if field == 'content' else ''} instead")
    out, note = _url_days(out, pages)
    return out, notes + ([note] if note else [])


RUNNERS_UP = 3  # runners-up of an implausible rule tried before the generic reading


def _plausible_runner_up(field: str, rules: dict, roots: list, pages: list, extract) -> dict | None:
    """The field's rule made of its first runner-up that is plausible on the training pages, or
    None: an elected content rule holding the post and the theme's boxes around it reads mostly
    the same text on every short post, where the post's own block, voted second, does not."""
    v = rules[field]
    pseudo = all(entry.get("pseudo") for _, _, entry in pages)
    entries = [entry for _, _, entry in pages]
    for fb in (v.get("fallbacks") or [])[:RUNNERS_UP]:
        rest = [r for r in (v.get("fallbacks") or []) if r != fb] + [v["rule"]]
        trial = dict(rules, **{field: {k: x for k, x in dict(v, rule=fb, fallbacks=rest).items()
                                       if k not in ("template", "link_slots", "template_lines", "ends_at_date")}})
        if field == "content":
            trial = _with_template(trial, roots, [_feed_words(entry) for entry in entries])
        if _in_comments(fb, roots if field != "content" else []):
            continue
        values = [_own(extract(root, html, trial, url=url), field) for root, (html, url, _) in zip(roots, pages)]
        if sum(bool(x) for x in values) >= MIN_PAGES and not _implausible(field, values, pseudo=pseudo, entries=entries):
            return trial[field]
    return None


def _own(ruled: dict, field: str):
    """The rule's own value of `field` in an extraction (None where another source gave it)."""
    if field == "content":
        return ruled.get("content_text")
    return ruled.get(FIELDS[field]) if (ruled.get("sources") or {}).get(_source_key(field)) in ("rule", "span") else None


URL_DAYS_OFF = 0.1  # share of the feed's posts (two at least) dated off their URLs' days


def _url_days(rules: dict, pages: list) -> tuple[dict, str | None]:
    """`rules` with the date rule marked `url_days: off` where the feed dates its posts off the
    days their URLs carry (a static site's file named the day its draft began, the post
    published weeks later): the page's date is then not overruled by its URL's day."""
    date = rules.get("date")
    pairs = [(url_day(url), entry["published"]) for _, url, entry in pages
             if not entry.get("pseudo") and entry.get("published") and url_day(url)]
    off = sum(not near_day(e, d) for d, e in pairs)
    if not isinstance(date, dict) or len(pairs) < MIN_PAGES or off < max(2, URL_DAYS_OFF * len(pairs)):
        return rules, None
    return dict(rules, date=dict(date, url_days="off")), (f"the feed dates {off} of {len(pairs)} training posts off"
                                                          " their URLs' days: a page's date is kept where its URL's day differs")


def _with_template(rules: dict, roots: list, feed_texts: list) -> dict:
    """`rules` with what the content rule's node holds on most training pages beside the post, which
    posts are read without: the texts of its template blocks (tasks.learn.template_blocks: a
    banner, "Comments are closed"; not a text the feed's full contents hold: a newsletter's every
    issue says "send us a pull request"), its lines of links (tasks.learn.link_slots: tags, related)
    and its marked lines of nearly the same words (tasks.learn.template_lines: "This entry was posted on...")."""
    content = rules.get("content")
    if not isinstance(content, dict) or not content.get("rule") or content.get("use") == "generic":
        return rules
    nodes = []
    for root in roots:
        try:
            found = [n for n in apply_rule(root, content["rule"]) if not isinstance(n, str)]
        except Exception:  # a rule that does not apply to this page: no node
            found = []
        nodes.append(found[0] if found else None)
    said = normalize_text(" ".join(t for t in feed_texts if t)).casefold()  # a feed's words are the posts'
    above = None if said else [_first_node(root, _rule_of(rules, "title")) for root in roots]
    dates = [_first_node(root, _rule_of(rules, "date")) for root in roots]
    found = {"template": [t for t in template_blocks(nodes, above) if t not in said], "link_slots": link_slots(nodes),
             "template_lines": template_lines(nodes, said), "ends_at_date": ends_at_date(nodes, dates, feed_texts)}
    found = {k: v for k, v in found.items() if v}
    return dict(rules, content=dict(content, **found)) if found else rules


def _loses(field: str, readings: list) -> str | None:
    """Why the generic reading beats the rule against the entries' own values, or None. The
    generic reading (trafilatura's, for the content: tens of ms a page) is worked out only where
    it could still win: a rule agreeing on all but a margin of the pages keeps its field."""
    judged = []
    for (own, generic), entry in readings:
        if entry.get("pseudo"):  # read off the page by the generic reading itself: no evidence
            continue
        target = _full_content(entry) if field == "content" else None
        if field == "content" and target is None:
            continue
        r = _agrees(field, own[field], entry, target)
        if r is not None:
            judged.append((bool(r), generic, entry, target))
    n, rule_ok = len(judged), sum(r for r, *_ in judged)
    if n < MIN_PAGES or n <= rule_ok + MARGIN * n:
        return None  # (the generic reading agreeing on every page would not be enough)
    generic_ok = 0
    for i, (_, generic, entry, target) in enumerate(judged):
        if generic_ok + (n - i) <= rule_ok + MARGIN * n:
            return None  # (nor would it now, on every page left)
        g = _agrees(field, generic["_content"]() if field == "content" else generic[field], entry, target)
        generic_ok += bool(g)
    if generic_ok <= rule_ok + MARGIN * n:
        return None
    return f"agrees with the feed on {rule_ok} of {n} training pages, the generic reading on {generic_ok}"
