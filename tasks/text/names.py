"""Author names as a reader sees them: "Posted by Jane Doe and John Roe" -> ["Jane Doe", "John Roe"].

Bylines join several authors with commas, "&" and the blog's own word for "and"; the
words that only mean "and" in some languages ("y", "e", "i") are names' particles in
others ("José Ortega y Gasset"), so they split only when the page's language says so.
"""
from __future__ import annotations

import re

from tasks.text.similarity import normalize_text

__all__ = ["strip_byline_prefix", "split_authors", "AND_WORDS"]

# "and" everywhere it cannot be part of a name
_AND_ANY = ("and", "und", "et", "&", "og", "och", "und")
# "and" in one language only (lower-case language code -> words)
AND_WORDS = {"en": ("and",), "fr": ("et",), "de": ("und",), "es": ("y", "e"), "it": ("e", "ed"),
             "pt": ("e",), "nl": ("en",), "ru": ("и",), "uk": ("і", "та"), "pl": ("i",),
             "cs": ("a",), "sk": ("a",), "ca": ("i",), "sv": ("och",), "da": ("og",), "no": ("og",),
             "nb": ("og",), "fi": ("ja",), "tr": ("ve",), "hu": ("és",), "ro": ("și", "si"),
             "el": ("και",), "bg": ("и",), "sr": ("и", "i"), "hr": ("i",)}
_PREFIX = re.compile(
    r"^(?:(?:posted|written|published|authored|publié|écrit|geschrieben|veröffentlicht|publicado|"
    r"escrito|scritto|pubblicato|gepost|geschreven|opublikowano|napisane|опубликовано|написано)\s+)?"
    r"(?:by|par|von|por|di|da|door|av|af|przez|от|автор|author|auteur|autor|autore|verfasser|"
    r"written by|ecrit par|écrit par)\s*[:\-–—]?\s+", re.I)
_LABEL = re.compile(r"^(?:authors?|auteurs?|autor(?:en|es)?|autori?|автор(?:ы)?)\s*:\s*", re.I)
_EMAIL = re.compile(r"\S+@\S+")
_URL = re.compile(r"(?:\b[a-z][a-z0-9+.-]*://|\bwww\.)\S*", re.I)  # a link printed beside (or as) the byline


def strip_byline_prefix(text: str) -> str:
    """`text` without a leading "By", "Posted by", "par", "von", "Author:" and the like."""
    s = normalize_text(text)
    for _ in range(2):  # "Posted by: Author: Jane"
        s = _LABEL.sub("", _PREFIX.sub("", s)).strip()
    return s


def _and_words(lang: str | None) -> tuple[str, ...]:
    code = (lang or "").lower().replace("_", "-").split("-")[0]
    return tuple(dict.fromkeys(_AND_ANY + AND_WORDS.get(code, ())))


def split_authors(text: str | None, lang: str | None = None) -> list[str]:
    """The names a byline lists, in order, without prefixes, e-mails or duplicates."""
    s = strip_byline_prefix(_URL.sub("", _EMAIL.sub("", text or "")))
    if not s:
        return []
    words = "|".join(re.escape(w) for w in sorted(_and_words(lang), key=len, reverse=True))
    sep = re.compile(r"\s*(?:[,;/]|\s(?:" + words + r")\s|&)\s*", re.I)
    out: list[str] = []
    for part in sep.split(s):
        name = strip_byline_prefix(part).strip(" ,;|-–—:·•()")
        if name and any(c.isalpha() for c in name) and name not in out:
            out.append(name)
    return out
