"""A comment's name printed inside its date line, learned with no feed.

Some engines print no element for a comment's name: one line says who and when, "Submitted by
Ann (not verified) on Mon, 03/02/2009 - 10:37", "Napsal uživatel Ann dne 29. Červen 2009 -
10:37." Across a post's comments the line's lead words ("Submitted by") and the words after the
name ("on") are the same on every line; the name is what lies between them, a parenthesised
note after it ("(not verified)") cut. `learn` finds the lead and the stop words on the date
lines of a blog's comment blocks; `name_in` reads a name off one line. Pure functions.
"""
from __future__ import annotations

import re
from collections import Counter

MIN_LINES = 3  # date lines needed to learn what every one of them says
SHARE = 0.8  # a word on this share of the lines is the line's own, not a name's
MAX_LEAD = 4  # lead words at most ("Kommentar von", "Napsal uživatel")
MAX_NAME_WORDS = 4

_NOTE = re.compile(r"^[(\[]")
_NUMBER = re.compile(r"[\d.,:/-]*\d[\d.,:/-]*")  # a day, a year, a time: where the date begins


def _words(line: str) -> list[str]:
    return line.split()


def learn(lines: list[str]) -> dict | None:
    """{"lead": [...], "stops": [...]} where the date lines print a name between constant words:
    every line opens with the same lead words and goes on with a name, then a stop word; None
    where they do not (a name in an element of its own is read there)."""
    split = [_words(t) for t in lines if t and t.strip()]
    if len(split) < MIN_LINES:
        return None
    lead: list[str] = []
    for i in range(MAX_LEAD):
        col = Counter(w[i] for w in split if len(w) > i)
        if not col:
            break
        word, n = col.most_common(1)[0]
        if n < SHARE * len(split) or any(ch.isdigit() for ch in word):
            break
        lead.append(word)
    if not lead:
        return None
    rest = [w[len(lead):] for w in split if w[:len(lead)] == lead]
    if len(rest) < SHARE * len(split):
        return None
    # stop words: the words after the name on most lines, before anything with a digit (the date)
    seen = Counter(word for w in rest for word in set(w[1:]) if not _NUMBER.fullmatch(word))
    stops = sorted(word for word, n in seen.items() if n >= SHARE * len(rest) and not _NOTE.match(word))
    rule = {"lead": lead, "stops": stops}
    names = [name_in(" ".join(w), rule) for w in split]
    signed = len(split) - sum(1 for w in split if unsigned(" ".join(w), rule))
    # (no stop word: a note after every name ends it, "Comment from: Ann [Visitor] ...")
    if sum(1 for n in names if n) < SHARE * signed or len(set(names)) < 2:
        return None
    return rule


def unsigned(line: str | None, rule: dict | None) -> bool:
    """Does the line print no name at all, its stop word right after its lead ("Posted by:  at
    ...": a comment its writer left unsigned)? Such a line still has the lines' shape."""
    if not line or not isinstance(rule, dict) or not rule.get("stops"):
        return False
    lead, words = rule.get("lead") or [], _words(line)
    return bool(lead) and words[:len(lead)] == list(lead) and len(words) > len(lead) \
        and words[len(lead)] in set(rule["stops"])


def name_in(line: str | None, rule: dict | None) -> str:
    """The name a date line prints between its lead and its stop words ("" where it does not)."""
    if not line or not isinstance(rule, dict):
        return ""
    lead, stops = rule.get("lead") or [], set(rule.get("stops") or [])
    words = _words(line)
    if not lead or words[:len(lead)] != list(lead):
        return ""
    name = []
    for word in words[len(lead):]:
        if word in stops or _NOTE.match(word) or _NUMBER.fullmatch(word):
            break
        name.append(word)
    after = words[len(lead) + len(name):]
    # the name ends at a stop word of the lines, or at a note right after it ("(not verified)", "[Member]")
    if not 0 < len(name) <= MAX_NAME_WORDS or not (any(word in stops for word in after) or (after and _NOTE.match(after[0]))):
        return ""
    return " ".join(name).strip(" ,;:")
