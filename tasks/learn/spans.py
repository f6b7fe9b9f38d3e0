"""Where a field's value sits inside its node's text, learned on one page, applied to every post.

A byline "March 3, 2012 · Jane Doe" holds a date, a separator and the author; a title
node "A post (2)" holds a comment counter, "<h1>Title<small>subtitle</small></h1>" a
subtitle. The rule finds the node (Algorithm 2 scores it best); the span says which
part of its text is the value, in one of three template-level ways, tried in order:

- {"parts": [i, j]}: the node's text pieces (its own text and its children's, in order)
  from i (counted from the start) to j (counted from the end, 0 = to the end);
- {"sep": "·", "index": k}: the k-th piece (from the end if negative) split on a separator;
- {"re": "..."}: a regular expression built from the words right before and after the
  value, digits generalised ("by (.+?) on", "^(.+?) \\(\\d+\\)$").

A span is kept only if it gives back the value on the page it was learned from, and a
post where it does not apply (no separator, no counter) keeps the node's whole text.
"""
from __future__ import annotations

import re

from tasks.text.names import strip_byline_prefix
from tasks.text.similarity import normalize_text

__all__ = ["learn_span", "apply_span", "span_key"]

SEPARATORS = ("·", "•", "|", "—", "–", " - ", "/", "::", ":", ",")
_TRIM = " ,;|·•-–—:/()[]"
_DIGITS = re.compile(r"\d+")


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", normalize_text(s)).strip(_TRIM).casefold()


def _parts(node) -> list[str]:
    if isinstance(node, str) or not hasattr(node, "itertext"):
        return [normalize_text(str(node))]
    return [p for p in (normalize_text(t) for t in node.itertext()) if p]


def _text(node) -> str:
    return " ".join(_parts(node))


def _token_re(tok: str) -> str:
    """A template word as a pattern: its digits stand for any number."""
    out, pos = [], 0
    for m in _DIGITS.finditer(tok):
        out.append(re.escape(tok[pos:m.start()]) + r"\d+")
        pos = m.end()
    return "".join(out) + re.escape(tok[pos:])


def _clean(value: str, author: bool) -> str:
    v = normalize_text(value).strip(_TRIM)
    return strip_byline_prefix(v).strip(_TRIM) if author else v


def apply_span(node, span: dict | None, author: bool = False) -> str | None:
    """The value `span` points at in `node` (an element or a string), or None where the
    span does not fit this node (the caller keeps the whole text)."""
    if not span:
        return None
    value = None
    if "parts" in span:
        parts = _parts(node)
        i, j = span["parts"]
        got = parts[i:len(parts) + j if j else None]
        value = " ".join(got) if got and len(parts) > 1 else None
    elif "sep" in span:
        pieces = _text(node).split(span["sep"])
        k = span["index"]
        if len(pieces) > 1 and -len(pieces) <= k < len(pieces):
            value = pieces[k]
    elif "re" in span:
        m = re.search(span["re"], _text(node))
        value = m.group(1) if m else None
    if value is None:
        return None
    value = _clean(value, author)
    return value or None


def _parts_spans(parts: list[str], values: list[str], target: str) -> list[dict]:
    """Runs of the node's text pieces whose words are the value(s): from a piece that
    starts like the first value to the first piece after which the run matches."""
    if len(parts) <= 1:
        return []
    out = []
    first = [k for k, p in enumerate(parts) if _norm(p).startswith(_norm(values[0])[:8])]
    for i in first:
        for j in range(i + 1, len(parts) + 1):
            if _run_matches(parts[i:j], values, target):
                out.append({"parts": [i, j - len(parts)]})
                break
    return out


def _run_matches(run: list[str], values: list[str], target: str) -> bool:
    """Are these pieces the value, or (several names) do they hold each one, ending on the last?"""
    joined = _norm(" ".join(run))
    if joined == target:
        return True
    return len(values) > 1 and all(_norm(v) in joined for v in values) and _norm(run[-1]).endswith(_norm(values[-1]))


def _separator_spans(text: str, target: str) -> list[dict]:
    """For each separator in the text, the piece between separators that is the value
    (counted from the end when it is the last of several)."""
    out = []
    for sep in SEPARATORS:
        if sep not in text:
            continue
        pieces = text.split(sep)
        for k, p in enumerate(pieces):
            if _norm(strip_byline_prefix(p.strip())) == target or _norm(p) == target:
                out.append({"sep": sep, "index": k if k < len(pieces) - 1 or k == 0 else -1})
                break
    return out


def _context_span(text: str, values: list[str]) -> list[dict]:
    """A pattern of the words right before and after the value(s), if it has either."""
    low = text.casefold()
    s = low.find(_norm(values[0])) if values[0] else -1
    e_val = _norm(values[-1])
    e = low.rfind(e_val) if e_val else -1
    if s < 0 or e < s:
        return []
    before, after = text[:s].split(), text[e + len(e_val):].split()
    if not (before or after):
        return []
    head = (("^" if len(before) == 1 else r"(?:^|\s)") + _token_re(before[-1]) + r"\s*") if before else "^"
    tail = (r"\s*" + _token_re(after[0]) + ("$" if len(after) == 1 else r"(?:\s|$)")) if after else "$"
    return [{"re": head + "(.+?)" + tail}]


def _candidates(node, values: list[str]) -> list[dict]:
    """Every span that may hold `values` in `node`, in the order they are tried."""
    text = _text(node)
    target = _norm(" ".join(values))
    return _parts_spans(_parts(node), values, target) + _separator_spans(text, target) + _context_span(text, values)


_CONJ = {",", "&", "and", "und", "et", "y", "e", "i", "и", "en", "og", "och", "ja", "ve", "és", "și", "та"}
_PARTICLE = {"van", "von", "de", "der", "den", "da", "di", "du", "del", "della", "la", "le", "bin", "ibn", "al", "el"}


def _with_coauthors(text: str, value: str) -> str:
    """`value` and the names that follow it in `text` ("Jane Doe" in "by Jane Doe and John
    Roe on ..." -> "Jane Doe and John Roe"): the feed may name only the first author, the
    span must cover every one."""
    low = text.casefold()
    s = low.find(value.casefold())
    if s < 0:
        return value
    end = s + len(value)
    tokens = re.findall(r",|[^\s,]+", text[end:])
    pos, k = end, 0
    while k + 1 < len(tokens) and tokens[k].casefold() in _CONJ and tokens[k + 1][:1].isupper():
        j = k + 1
        while j < len(tokens) and (tokens[j][:1].isupper() or tokens[j].casefold() in _PARTICLE):
            j += 1
        pos = text.index(tokens[j - 1], pos) + len(tokens[j - 1])
        k = j
    return text[s:pos]


def _holds_all(text: str, values: list[str]) -> bool:
    """Several names, each of them in `text`."""
    return len(values) > 1 and all(_norm(v) in _norm(text) for v in values)


def _is_whole_value(text: str, whole: str, values: list[str]) -> bool:
    """Is the node's (cleaned) text the value already? Also for a byline of several names
    with little else and no separator ("By Jane Doe and John Roe" is cleaned anyway)."""
    if _norm(whole) == _norm(" ".join(values)):
        return True
    return _holds_all(whole, values) and len(_norm(whole)) <= len(_norm(" ".join(values))) + 10 \
        and not any(s in text for s in SEPARATORS[:6])


def learn_span(node, values: list[str], author: bool = False) -> dict | None:
    """The span of `node`'s text that holds `values` (a title; an author's name, or several
    names of one byline), or None when the whole text is the value or it is not there."""
    values = [v for v in (normalize_text(v) for v in values) if v]
    if not values:
        return None
    text = _text(node)
    if author and len(values) == 1:
        values = [_with_coauthors(text, values[0])]
    whole = _clean(text, author)
    if _is_whole_value(text, whole, values):
        return None
    for span in _candidates(node, values):
        got = apply_span(node, span, author)
        if got is not None and (_norm(got) == _norm(" ".join(values))
                                or (_holds_all(got, values) and len(got) < len(whole))):
            return span
    return None


def span_key(span: dict | None) -> str:
    """A span as a hashable vote (tasks.learn.fields.reduce_rules counts them)."""
    if not span:
        return ""
    return "|".join(f"{k}={span[k]}" for k in sorted(span))
