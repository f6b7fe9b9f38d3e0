"""How many posts a blog says it has: the counts beside the links of its date-archive
widget ("March 2012 (5)", "2011 (42)"). The report sets posts found against them and
the progress display takes them as the expected total.

Counts are read from the home page as served; a widget that shows years and months
(Blogger's hierarchy) is summed at its finest level, so no post is counted twice.
"""
from __future__ import annotations

import re
from urllib.parse import urlsplit

COUNT = re.compile(r"\(\s*(\d{1,6})\s*\)\s*$")  # at the end of the link's own text
COUNT_AFTER = re.compile(r"^\s*\(\s*(\d{1,6})\s*\)")  # right after the link
YEAR_MONTH = re.compile(r"(?:^|[/=_-])((?:19|20)\d\d)(?:[/_-]?(0[1-9]|1[0-2]))?(?:[/_.-]|$)")
MAX_LINKS = 5000


def archive_key(href: str) -> tuple[str, str] | None:
    """("month"|"year", "YYYY[-MM]") for a link to a date archive, else None."""
    parts = urlsplit(href)
    text = parts.path + ("?" + parts.query if parts.query else "")
    m = YEAR_MONTH.search(text)
    if not m:
        return None
    # a post URL carries a slug after its date; an archive ends at the date
    tail = text[m.end():].strip("/")
    if tail and not re.fullmatch(r"(?:index\.html?|\d\d?/?)", tail):
        return None
    return ("month", f"{m.group(1)}-{m.group(2)}") if m.group(2) else ("year", m.group(1))


def _text_after(a) -> str:
    """The text after a link up to the next link (its tail, then its siblings')."""
    out = [a.tail or ""]
    for sib in a.itersiblings():
        if not isinstance(sib.tag, str) or sib.tag == "a" or sib.find(".//a") is not None:
            break
        out.append("".join(sib.itertext()) + (sib.tail or ""))
        if len(out) > 4:
            break
    return "".join(out)


def archive_widget_total(root) -> int | None:
    """The total the blog's date-archive widget announces, or None without one."""
    found: dict[str, dict[str, int]] = {"month": {}, "year": {}}
    for a in root.iterfind(".//a[@href]"):
        if len(found["month"]) + len(found["year"]) > MAX_LINKS:
            break
        key = archive_key(a.get("href") or "")
        if key is None:
            continue
        m = COUNT_AFTER.match(_text_after(a)) or COUNT.search("".join(a.itertext()))
        if m:
            found[key[0]].setdefault(key[1], int(m.group(1)))
    level = found["month"] or found["year"]
    return sum(level.values()) if level else None
