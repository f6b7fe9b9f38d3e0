"""A crawl's report: the facts an archivist needs to judge an archive at a glance
(is every post there, is every field filled, what went wrong), as JSON facts and as one
self-contained HTML page (inline CSS and SVG: it opens with no network).

`summarise` turns what the crawl left (its info, the blog's learned rules, the records,
the error report, the counts the blog announces) into facts; `render_html` draws them.
Both are pure: the worker side (workers/archive/report.py) only gathers the inputs.
"""
from __future__ import annotations

import html
import json
from collections import Counter, defaultdict

FIELDS = ("title", "content", "authors", "date", "comments")
EXAMPLES_PER_KIND = 3


def _filled(record: dict, field: str) -> bool:
    value = {"content": record.get("content_text"), "date": record.get("published")}.get(
        field, record.get(field))
    return bool(value.strip() if isinstance(value, str) else value)


def _source(record: dict, field: str) -> str:
    """Which path filled a field: the record's own `sources` (per field) or `extraction`
    (per record) when it says, else the learned rule."""
    key = {"content": "content_text", "date": "published"}.get(field, field)
    sources = record.get("sources") or {}
    if isinstance(sources, dict) and (sources.get(field) or sources.get(key)):
        return str(sources.get(field) or sources.get(key))
    if field == "comments":
        return "comments"
    return str(record.get("extraction") or "rule")


def coverage(records: list[dict]) -> dict:
    """Per field: how many records have it, and which sources filled it."""
    out = {}
    for field in FIELDS:
        filled = [r for r in records if _filled(r, field)]
        out[field] = {"filled": len(filled), "of": len(records),
                      "share": round(len(filled) / len(records), 4) if records else 0.0,
                      "sources": dict(Counter(_source(r, field) for r in filled).most_common())}
    return out


def _is_month(key: str) -> bool:
    """A "YYYY-MM" key."""
    return len(key) == 7 and key[4] == "-" and key[:4].isdigit() and key[5:].isdigit()


def _every_month(first: str, last: str, counts: Counter) -> dict[str, int]:
    """"YYYY-MM" -> count of every month from `first` to `last`, a century at most (a bogus
    date cannot blow it up)."""
    out: dict[str, int] = {}
    y, m = int(first[:4]), int(first[5:])
    end = (int(last[:4]), int(last[5:]))
    while (y, m) <= end and len(out) < 1200:
        out[f"{y:04d}-{m:02d}"] = counts.get(f"{y:04d}-{m:02d}", 0)
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    return out


def posts_per_month(records: list[dict]) -> dict[str, int]:
    """"YYYY-MM" -> posts, every month from the first to the last (gaps are zeros: a
    missed period shows as a hole in the chart); undated posts under "undated"."""
    months = Counter((r.get("published") or "")[:7] for r in records)
    undated = sum(n for m, n in months.items() if len(m) != 7 or m[4] != "-")
    dated = sorted(m for m in months if _is_month(m))
    out = _every_month(dated[0], dated[-1], months) if dated else {}
    if undated:
        out["undated"] = undated
    return out


def comments_per_post(records: list[dict]) -> dict:
    counts = [len(r.get("comments") or []) for r in records]
    histogram = Counter(min(n, 20) for n in counts)  # 20 stands for "20 or more"
    return {"total": sum(counts), "posts_with_comments": sum(1 for n in counts if n),
            "histogram": {str(k) + ("+" if k == 20 else ""): v for k, v in sorted(histogram.items())}}


def error_groups(errors: list[dict]) -> list[dict]:
    """Errors by kind, most frequent first, with a few examples each."""
    by_kind: dict[str, list[dict]] = defaultdict(list)
    for e in errors:
        by_kind[str(e.get("kind") or "error")].append(e)
    return [{"kind": k, "count": len(v),
             "examples": [{"url": e.get("url"), "message": e.get("message")} for e in v[:EXAMPLES_PER_KIND]]}
            for k, v in sorted(by_kind.items(), key=lambda kv: -len(kv[1]))]


def learned_rules(blog: dict) -> list[dict]:
    rules = blog.get("rules") or {}
    out = []
    for field, r in rules.items():
        if isinstance(r, dict):
            out.append({"field": field, "rule": r.get("rule"), "share": r.get("share"),
                        "score": r.get("score"), "fallbacks": len(r.get("fallbacks") or [])})
        else:
            out.append({"field": field, "rule": None, "share": None, "score": None, "fallbacks": 0})
    return out


def phases(info: dict) -> list[dict]:
    """Time per phase, from the crawl's `phase_started:<name>` stamps; a last stamp named
    "end" (the follower's, once output is written) closes the one before it."""
    stamps = sorted((t, name) for name, t in (info.get("phase_started") or {}).items())
    end = info.get("finished")
    out = []
    for i, (t, name) in enumerate(stamps):
        if name == "end":
            continue
        stop = stamps[i + 1][0] if i + 1 < len(stamps) else end
        out.append({"phase": name, "seconds": round(stop - t, 3) if stop and stop >= t else None})
    return out


def gaps(months: dict[str, int]) -> list[str]:
    """Months without a post between months with posts (a missed period, or a pause)."""
    return [m for m, n in months.items() if m != "undated" and n == 0]


def _missing_advice(f: dict) -> list[str]:
    return [f"{miss} of the {f['announced'][source]} posts the {source} announces were not found: "
            "see the errors below and the empty months of the chart; running the same command "
            "again resumes the crawl and retries what failed."
            for source, miss in f["missing_against"].items() if miss and source != "feed entries"]


def _gap_advice(f: dict) -> list[str]:
    missed = gaps(f["posts_per_month"])
    if not missed:
        return []
    shown = ", ".join(missed[:6]) + (" ..." if len(missed) > 6 else "")
    return [f"No post in {len(missed)} month(s) between others ({shown}): the blog may have paused, or "
            "those months' pages failed (errors below); compare with the blog's own archive."]


def _coverage_advice(f: dict) -> list[str]:
    out = [f"{field} is filled on {100 * cov['share']:.0f} % of the posts only: some posts use "
           "another template than the training posts; their records say which source filled "
           "each field (`sources`, `extraction`)."
           for field, cov in f["coverage"].items() if field != "comments" and cov["of"] and cov["share"] < 0.9]
    if sum(n for cov in f["coverage"].values() for s, n in cov["sources"].items() if s == "fallback"):
        out.append("Some posts were read by the page-level fallback, not the learned rules (a template the "
                   "rules did not match): check those records' titles and dates.")
    return out


def _retry_advice(f: dict) -> list[str]:
    if any(g["kind"] in ("timeout", "connection", "http_status", "http_503", "http_429") for g in f["errors"]):
        return ["Some pages failed for reasons that may pass (timeouts, refused connections, server "
                "errors): run the same command again later to retry them."]
    return []


def _not_found_advice(f: dict) -> list[str]:
    nf = f.get("not_found") or {}
    if not nf.get("count"):
        return []
    reasons = ", ".join(f"{n} {why}" for why, n in sorted(nf["by_reason"].items(), key=lambda x: -x[1]))
    return [f"{nf['count']} posts the blog announces (feed, sitemap) gave no record ({reasons}); "
            "they are listed below under 'Announced, not found'."]


def advice(f: dict) -> list[str]:
    """What to do, fault by fault, in words a first-time reader can act on: posts missing
    against the announced counts, empty months, thin fields, the crawl's warnings, failures
    worth retrying."""
    return (_not_found_advice(f) + _missing_advice(f) + _gap_advice(f) + _coverage_advice(f)
            + list((f.get("warnings") or {}).values()) + _retry_advice(f))


def summarise(info: dict, blog: dict, records: list[dict], errors: list[dict],
              announced: dict[str, int] | None = None) -> dict:
    """Every fact of the report, JSON-ready."""
    posts = len(records)
    announced = {k: int(v) for k, v in (announced or {}).items() if v is not None}
    duration = (info["finished"] - info["started"]) if info.get("finished") and info.get("started") else None
    return {
        "crawl": {k: info.get(k) for k in ("crawl_id", "url", "state", "message", "since", "pages",
                                            "errors", "started", "finished")},
        "posts": posts,
        "duration_seconds": round(duration, 3) if duration is not None else None,
        "pages_per_post": round(info.get("pages", 0) / posts, 3) if posts else None,
        "announced": announced,
        "missing_against": {k: max(0, v - posts) for k, v in announced.items()},
        "coverage": coverage(records),
        "rules": learned_rules(blog),
        "posts_per_month": posts_per_month(records),
        "comments": comments_per_post(records),
        "errors": error_groups(errors),
        "phases": phases(info),
        "warnings": dict(info.get("warnings") or {}),
        "rendering": rendering(blog),
    }


RENDERED = {"all": "every page", "posts": "post pages", False: "no page"}


def rendering(blog: dict) -> dict | None:
    """Which pages a browser drew, and why (--js auto's decision and what it saw on the sample):
    an archivist reading the report knows whether the records are the pages as served."""
    if "js" not in blog:
        return None
    js = blog.get("js")
    return {"decision": js, "pages": RENDERED.get(js, str(js)), "reason": str(blog.get("js_reason") or "")[:2000]}


# ----------------------------------------------------------------------------- HTML

_CSS = """body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:70em;color:#222;padding:0 1em}
h1{font-size:1.5em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse}td,th{padding:.2em .7em;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
.num{text-align:right}.bad{color:#b00020;font-weight:600}.ok{color:#1b5e20}code{font-size:.9em;word-break:break-all}
.bar{fill:#3f6fb5}.gap{fill:#d33}svg text{font-size:10px;fill:#444}"""


def _e(value) -> str:
    return html.escape("" if value is None else str(value))


def _table(head: list[str], rows: list[list], numeric: set[int] = frozenset()) -> str:
    th = "".join(f"<th>{_e(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td class='num'>{c}</td>" if i in numeric else f"<td>{c}</td>"
                                    for i, c in enumerate(row)) + "</tr>" for row in rows)
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


def bar_chart(values: dict[str, int], title: str, height: int = 120) -> str:
    """An inline SVG bar chart; zero bars between others are drawn as red gaps."""
    if not values:
        return "<p>nothing to draw</p>"
    width = max(300, min(1100, 12 * len(values)))
    step = width / len(values)
    top = max(values.values()) or 1
    bars = []
    for i, (label, v) in enumerate(values.items()):
        h = (height - 20) * v / top
        cls = "gap" if v == 0 else "bar"
        hh = 3 if v == 0 else h
        bars.append(f"<rect class='{cls}' x='{i * step:.1f}' y='{height - 15 - hh:.1f}' width='{max(step - 1, 1):.1f}' "
                    f"height='{hh:.1f}'><title>{_e(label)}: {v}</title></rect>")
    labels = list(values)
    ticks = "".join(f"<text x='{i * step:.1f}' y='{height - 2}'>{_e(labels[i])}</text>"
                    for i in range(0, len(labels), max(1, len(labels) // 8)))
    return (f"<svg role='img' aria-label='{_e(title)}' width='{width}' height='{height}' "
            f"viewBox='0 0 {width} {height}'>{''.join(bars)}{ticks}</svg>")


def _section_overview(f: dict) -> str:
    c = f["crawl"]
    rows = [["state", _e(c.get("state")) + (f" ({_e(c.get('message'))})" if c.get("message") else "")],
            ["posts found", f["posts"]], ["pages fetched", c.get("pages")],
            ["pages per post", f["pages_per_post"]], ["errors", c.get("errors")],
            ["duration (s)", f["duration_seconds"]]]
    for source, n in f["announced"].items():
        miss = f["missing_against"][source]
        mark = f"<span class='bad'>{miss} missing</span>" if miss else "<span class='ok'>all found</span>"
        rows.append([f"announced by {_e(source)}", f"{n} ({mark})"])
    r = f.get("rendering")
    if r:
        rows.append(["rendered by a browser", f"{_e(r['pages'])}" + (f": {_e(r['reason'])}" if r["reason"] else "")])
    return "<h2>Overview</h2>" + _table(["", ""], rows)


def _section_coverage(f: dict) -> str:
    rows = []
    for field, cov in f["coverage"].items():
        pct = f"{100 * cov['share']:.1f} %"
        cls = "ok" if cov["share"] >= 0.9 or field == "comments" else "bad"
        sources = ", ".join(f"{_e(s)} {n}" for s, n in cov["sources"].items())
        rows.append([_e(field), f"<span class='{cls}'>{pct}</span>", f"{cov['filled']} / {cov['of']}", sources])
    return "<h2>Fields</h2>" + _table(["field", "coverage", "records", "filled by"], rows, {1, 2})


def _section_rules(f: dict) -> str:
    rows = [[_e(r["field"]), f"<code>{_e(r['rule'])}</code>" if r["rule"] else "<span class='bad'>none</span>",
             "" if r["share"] is None else f"{100 * r['share']:.0f} %", r["fallbacks"]] for r in f["rules"]]
    return "<h2>Learned rules</h2>" + (_table(["field", "rule", "votes", "fallbacks"], rows, {2, 3})
                                       if rows else "<p>no rules were learned</p>")


def _section_not_found(f: dict) -> str:
    nf = f.get("not_found") or {}
    if not nf.get("count"):
        return ""
    rows = [[f"<code>{_e(x['url'])}</code>", _e(x["source"]), _e(x["why"])] for x in nf["examples"]]
    more = f"<p>... and {nf['count'] - len(rows)} more</p>" if nf["count"] > len(rows) else ""
    return "<h2>Announced, not found</h2>" + _table(["url", "announced by", "why"], rows) + more


def _section_errors(f: dict) -> str:
    if not f["errors"]:
        return "<h2>Errors</h2><p class='ok'>none</p>"
    rows = [[_e(g["kind"]), g["count"], "<br>".join(f"<code>{_e(x['url'])}</code>: {_e(x['message'])}"
                                                    for x in g["examples"])] for g in f["errors"]]
    return "<h2>Errors</h2>" + _table(["kind", "count", "examples"], rows, {1})


def _section_verdict(f: dict) -> str:
    todo = advice(f)
    if not todo:
        return "<h2>Verdict</h2><p class='ok'>Complete: every announced post found, every field filled, no gap.</p>"
    return "<h2>Verdict: what to check</h2><ul>" + "".join(f"<li>{_e(t)}</li>" for t in todo) + "</ul>"


def _section_update(facts: dict) -> str:
    """An update crawl (issue 35): what it read, what it left unread and why."""
    u = facts.get("update")
    if not u:
        return ""
    rows = [[_e(why), n] for why, n in u["skipped_by_reason"].items()]
    head = f"Update since {_e(u['since'])}" if u.get("since") else "Pages left unread"
    return (f"<h2>{head}</h2><p>{u['read']} pages read, {u['skipped']} left unread"
            + (f"; other listings left once {_e(u['covered_by'])} reached the new posts" if u.get("covered_by") else "")
            + "</p>" + (f"<p>{_e(u['note'])}</p>" if u.get("note") else "")
            + (_table(["left unread", "pages"], rows, {1}) if rows else ""))


def render_html(facts: dict) -> str:
    """One self-contained page: no script, no external resource."""
    c = facts["crawl"]
    months = {k: v for k, v in facts["posts_per_month"].items() if k != "undated"}
    phases_rows = [[_e(p["phase"]), "" if p["seconds"] is None else p["seconds"]] for p in facts["phases"]]
    cm = facts["comments"]
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>blogharvest report: {_e(c.get('url'))}</title><style>{_CSS}</style></head><body>",
        f"<h1>Crawl of {_e(c.get('url'))}</h1><p>crawl <code>{_e(c.get('crawl_id'))}</code></p>",
        _section_verdict(facts), _section_overview(facts), _section_update(facts), _section_coverage(facts),
        _section_rules(facts),
        "<h2>Posts per month</h2>", bar_chart(months, "posts per month"),
        (f"<p>{facts['posts_per_month']['undated']} posts without a date</p>"
         if "undated" in facts["posts_per_month"] else ""),
        f"<h2>Comments</h2><p>{cm['total']} comments on {cm['posts_with_comments']} of {facts['posts']} posts</p>",
        bar_chart(cm["histogram"], "posts by number of comments", 100),
        _section_not_found(facts), _section_errors(facts),
        "<h2>Time per phase</h2>" + (_table(["phase", "seconds"], phases_rows, {1}) if phases_rows else "<p>-</p>"),
        "<script type='application/json' id='facts'>" + json.dumps(facts).replace("</", "<\\/") + "</script>",
        "</body></html>"]
    return "".join(parts)
