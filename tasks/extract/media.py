"""Media of a post (images, audio, video): which URLs to keep and where their bytes go.

Storage is content-addressed: a file is named by the sha256 of its bytes and sits at
<root>/ab/cd/<sha256>, so the same picture linked from a hundred posts (or under
two URLs) is stored once, and a record's `sha256` is enough to check the file.

Only `src` and the largest `srcset` candidate of an image are kept: a WordPress
image lists five sizes, and at one request per second per host the others would
cost more crawl time than they are worth to an archive.
"""
from __future__ import annotations

import hashlib
import mimetypes
import os
import re
import tempfile
import urllib.parse

from tasks.fetch.html import parse_html

DEFAULT_TYPES = ("image/*", "audio/*", "video/*")
DEFAULT_MAX_BYTES = 50_000_000
MAX_PER_POST = 100  # a gallery page with thousands of thumbnails is not a post's media

# tag -> attributes holding one URL
_SINGLE = {"img": ("src",), "audio": ("src",), "video": ("src", "poster"), "source": ("src",)}


def srcset_candidates(srcset: str | None) -> list[tuple[str, float, str]]:
    """[(url, value, "w" or "x")] of a srcset, parsed as the HTML standard does (URLs may hold commas)."""
    out, s, i = [], srcset or "", 0
    while i < len(s):
        while i < len(s) and (s[i].isspace() or s[i] == ","):
            i += 1
        j = i
        while j < len(s) and not s[j].isspace():
            j += 1
        url, i = s[i:j], j
        descriptor = ""
        if url.endswith(","):
            url = url.rstrip(",")
        else:
            k = s.find(",", i)
            k = len(s) if k < 0 else k
            descriptor, i = s[i:k].strip(), k + 1
        if not url:
            continue
        m = re.fullmatch(r"([\d.]+)([wx])", descriptor.split()[0]) if descriptor else None
        try:
            out.append((url, float(m.group(1)), m.group(2)) if m else (url, 1.0, "x"))
        except ValueError:
            out.append((url, 1.0, "x"))
    return out


def _largest_srcset(srcset: str) -> str | None:
    """The srcset candidate with the largest width descriptor (else the largest density)."""
    best: dict[str, tuple[float, str]] = {}
    for url, value, unit in srcset_candidates(srcset):
        if unit not in best or value > best[unit][0]:
            best[unit] = (value, url)
    pick = best.get("w") or best.get("x")
    return pick[1] if pick else None


def _absolute(url: str | None, base: str) -> str | None:
    if not url:
        return None
    url = url.strip()
    if not url or url.startswith(("data:", "javascript:", "blob:", "#")):
        return None
    try:
        full = urllib.parse.urljoin(base, url)
    except ValueError:
        return None
    full, _ = urllib.parse.urldefrag(full)
    return full if urllib.parse.urlsplit(full).scheme in ("http", "https") else None


def content_media_urls(content_html: str | None, base_url: str) -> list[str]:
    """Image, audio and video URLs referenced by a post's content, absolute, in document order."""
    if not content_html or not content_html.strip():
        return []
    root = parse_html(content_html, base_url)
    out: list[str] = []
    for el in root.iter("img", "audio", "video", "source"):
        for attr in _SINGLE.get(el.tag, ()):
            out.append(_absolute(el.get(attr), base_url))
        if el.get("srcset") and el.tag in ("img", "source"):
            out.append(_absolute(_largest_srcset(el.get("srcset")), base_url))
    return _unique(out)


def enclosure_urls(entry: dict | None, base_url: str) -> list[str]:
    """URLs of a feed entry's enclosures (podcast audio, attached images...)."""
    urls = [_absolute((e or {}).get("url"), base_url) for e in (entry or {}).get("enclosures") or []]
    return _unique(urls)


def _unique(urls) -> list[str]:
    return list(dict.fromkeys(u for u in urls if u))


def parse_types(spec: str | None) -> tuple[str, ...]:
    """'image/*, audio/mpeg' -> ('image/*', 'audio/mpeg'); empty or None gives the default."""
    items = tuple(t.strip().lower() for t in (spec or "").split(",") if t.strip())
    return items or DEFAULT_TYPES


def media_type(content_type: str | None, url: str) -> str | None:
    """The media type to judge a download by: the server's, unless it says nothing useful."""
    ctype = (content_type or "").split(";")[0].strip().lower()
    if ctype and ctype not in ("application/octet-stream", "binary/octet-stream", "application/unknown"):
        return ctype
    guessed = mimetypes.guess_type(urllib.parse.urlsplit(url).path)[0]
    return guessed or ctype or None


def type_allowed(ctype: str | None, allowed: tuple[str, ...]) -> bool:
    if not ctype:
        return False
    major = ctype.split("/")[0]
    return any(a == ctype or a == "*/*" or (a.endswith("/*") and a[:-2] == major) for a in allowed)


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def storage_path(sha256: str) -> str:
    """Path of a blob relative to the media root: ab/cd/<sha256>."""
    return f"{sha256[:2]}/{sha256[2:4]}/{sha256}"


def store(root: str, data: bytes) -> tuple[str, str]:
    """Write `data` under `root` by its sha256 (atomically, once); returns (sha256, relative path)."""
    digest = sha256_hex(data)
    rel = storage_path(digest)
    full = os.path.join(root, rel)
    if os.path.exists(full) and os.path.getsize(full) == len(data):
        return digest, rel
    os.makedirs(os.path.dirname(full), exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(full), prefix=".part-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, full)  # two writers of one blob write the same bytes: last rename wins, harmlessly
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return digest, rel
