"""Which charset a page's bytes are in, and their text: one decider for fetched responses
(`tasks.fetch.http`) and for bytes handed to the HTML parser (`tasks.fetch.html`), so a page reads the
same wherever it comes from.

BOM, then the declared charsets (HTTP header, <meta charset>, XML declaration) where the
bytes bear them out, valid UTF-8 over a declared single-byte charset (servers lie, bytes
don't), then detection (charset_normalizer). WHATWG's rule that Latin-1 and ASCII labels
mean windows-1252 holds throughout.
"""
from __future__ import annotations

import codecs
import functools
import re

_HEADER_CHARSET = re.compile(r"""charset\s*=\s*["']?\s*([^\s"';,]+)""", re.I)
_META_CHARSET = re.compile(rb"""<meta\b[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)""", re.I)
_XML_DECL = re.compile(rb"""^\s*<\?xml\b[^>]*?encoding\s*=\s*["']([A-Za-z0-9._:-]+)["']""")
_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
         (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
# WHATWG: these labels mean windows-1252 on the web
_AS_CP1252 = {"latin-1", "iso8859-1", "ascii", "cp1252"}
_WESTERN = ("English", "German", "French", "Dutch", "Italian", "Spanish", "Portuguese", "Swedish",
            "Norwegian", "Finnish", "Danish", "Indonesian")


# Python codecs that are no web page's charset: UTF-7 (WHATWG forbids it: "+ADw-script" is
# "<script" to it and text to everyone else), escapes and host-name codings. Codecs that are
# not text encodings at all (rot13, base64, zlib, hex) are refused through `_is_text_encoding`.
_NOT_PAGE_CHARSETS = {"utf-7", "idna", "punycode", "unicode-escape", "raw-unicode-escape", "undefined",
                      "unicode-internal", "mbcs", "oem", "palmos"}


def text_codec(label: str | bytes | None) -> str | None:
    """The codec a charset label names, if it is one a page may be in (None otherwise)."""
    return _codec(label)


def _codec(label: str | bytes | None) -> str | None:
    if not label:
        return None
    if isinstance(label, bytes):
        label = label.decode("ascii", "ignore")
    try:
        info = codecs.lookup(label.strip().strip("\"'"))
    except (LookupError, ValueError, TypeError):
        return None
    if not getattr(info, "_is_text_encoding", True) or info.name in _NOT_PAGE_CHARSETS:
        return None
    if info.name == "utf-8-sig":
        return "utf-8"
    return "cp1252" if info.name in _AS_CP1252 else info.name


def _fits(content: bytes, encoding: str) -> bool:
    """Does `content` decode in `encoding` with no more than a few stray bad bytes?"""
    text = content.decode(encoding, errors="replace")
    return text.count("\ufffd") <= 2 + len(text) // 2000


def _mostly_not_utf8(content: bytes) -> bool:
    """More bytes that are no UTF-8 than characters that are: Latin-1 text ("P\xe4ivi"), not UTF-8
    with a stray byte or two."""
    sample = content[:UTF8_SAMPLE]
    try:
        sample.decode("utf-8")
        return False  # valid UTF-8 throughout (the usual page): no count needed
    except UnicodeDecodeError:
        pass
    text = sample.decode("utf-8", errors="replace")
    bad = text.count("\ufffd")
    non_ascii = len(text) - len(text.encode("ascii", "ignore"))  # counted in C, not char by char
    return bad > non_ascii - bad


@functools.lru_cache(maxsize=64)
def _single_byte(codec: str) -> bool:
    """One character per byte (cp1252, iso-8859-x, koi8-r ...), not UTF-8 nor a CJK codec."""
    if codec.startswith(("utf", "utf_")):
        return False
    try:
        return len(bytes(range(256)).decode(codec, errors="replace")) == 256
    except (LookupError, ValueError):
        return False


UTF8_SAMPLE = 4 << 20  # bytes read to tell UTF-8: the whole of a page (its comments may be further down)


def _utf8_text(content: bytes) -> bool:
    """Valid UTF-8 with some multi-byte characters (plain ASCII proves nothing), all through:
    a Latin-1 page with a stray UTF-8 character near its top is still Latin-1 (its commenters'
    "Martín" further down would read "Mart\ufffdn")."""
    sample = content[:UTF8_SAMPLE]
    if sample.isascii():
        return False
    try:
        sample.decode("utf-8")
    except UnicodeDecodeError as e:
        return e.start >= len(sample) - 3  # a character cut by the sample's end
    return True


def detect_encoding(content: bytes, content_type: str | None = None) -> str:
    """BOM, then the header charset, <meta charset>/http-equiv, XML declaration, then
    detection.  A declared charset that the bytes plainly contradict is skipped."""
    bom = _bom_encoding(content)
    if bom:
        return bom
    declared = _declared_encodings(content, content_type)
    if declared and _utf8_under_single_byte_label(content, declared[0]):
        # a single-byte charset in the header over bytes that are valid UTF-8 with non-ASCII in
        # them: that text is UTF-8 (as cp1252 it would read "CafÃ©"); servers lie, bytes don't
        return "utf-8"
    for i, name in enumerate(declared):
        if name == "utf-8" and any(d != "utf-8" for d in declared[i + 1:]) and _mostly_not_utf8(content):
            continue  # "utf-8" in the header over Latin-1 bytes the page's <meta> names (a server's default)
        if _fits(content, name):
            return name
    guess = _guessed_encoding(content) if content else None
    return guess or (declared[0] if declared else "utf-8")


def _bom_encoding(content: bytes) -> str | None:
    """The encoding a byte-order mark names: it outranks every declaration."""
    return next((name for bom, name in _BOMS if content.startswith(bom)), None)


def _declared_encodings(content: bytes, content_type: str | None) -> list[str]:
    """The page codecs declared for `content`, strongest first: the HTTP header's charset,
    the <meta> charset, the XML declaration (labels naming no page codec left out)."""
    head = content[:4096]
    m = _HEADER_CHARSET.search(content_type or "")
    header = _codec(m.group(1)) if m else None
    m = _META_CHARSET.search(head)
    meta = _codec(m.group(1)) if m else None
    if meta and meta.startswith(("utf-16", "utf-32")):
        meta = "utf-8"  # an ASCII-readable <meta> cannot be telling the truth
    m = _XML_DECL.search(head)
    xml = _codec(m.group(1)) if m else None
    return [d for d in (header, meta, xml) if d]


def _utf8_under_single_byte_label(content: bytes, label: str) -> bool:
    """Is the strongest declaration a single-byte charset over text that is UTF-8?"""
    return label != "utf-8" and _single_byte(label) and _utf8_text(content)


def _guessed_encoding(content: bytes) -> str | None:
    """The encoding of undeclared (or wrongly declared) bytes: UTF-8 when they are valid
    UTF-8, else charset_normalizer's guess, windows-1252 for Western European text.

    Both hand-written steps are measured, not habit (charset-normalizer 3.5, 1478 eval,
    farm and BlogForever pages with their declarations removed; 734 of them with non-ASCII
    text re-encoded to windows-1252): charset_normalizer alone read 1464/1478 UTF-8 pages
    right (its 64 KiB sample all ASCII, or cut inside a character) at 0.2 ms a page, the
    UTF-8 check reads 1478/1478 at 0.01 ms; on windows-1252 it read 230/734 (naming cp1250,
    cp1257, hp-roman8 ...), with the Western override 733/734, at the same ~2 ms a page
    (tests/tasks/fetch/charset_bench.py)."""
    try:  # valid UTF-8 with any non-ASCII byte is almost never another charset
        content.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError:
        pass
    guess, language = _detected(content)
    if guess != "cp1252" and language.startswith(_WESTERN) and _fits(content, "cp1252"):
        # charset_normalizer often names a sibling code page (cp1257, mac_latin2) for
        # Western European text; windows-1252 is what such undeclared pages really use
        return "cp1252"
    return guess


def _detected(content: bytes) -> tuple[str | None, str]:
    """charset_normalizer's best page codec for the first 64 KiB, and the language it read."""
    try:
        import charset_normalizer
        best = charset_normalizer.from_bytes(content[:65536]).best()
        return (_codec(best.encoding), best.language or "") if best else (None, "")
    except Exception:  # detection is best effort
        return None, ""


def decode(content: bytes, encoding: str | None = None) -> str:
    """The text of `content`, in `encoding` when the caller has it (a response's), else in
    what `detect_encoding` finds; a UTF-8 BOM is dropped; never raises."""
    codec = _codec(encoding) or detect_encoding(content)
    if codec == "utf-8" and content.startswith(codecs.BOM_UTF8):
        content = content[len(codecs.BOM_UTF8):]
    try:
        return content.decode(codec, errors="replace")
    except (LookupError, TypeError, ValueError):
        return content.decode("utf-8", errors="replace")


_GARBLE_SAMPLE = 8192
GARBLED_SHARE = 0.05  # control or replacement characters above this share: binary bytes, not text


def garbled(text: str | None) -> bool:
    """Does decoded text read as binary bytes (control characters or U+FFFD in more than
    GARBLED_SHARE of its first 8 KiB)? The text-side twin of `tasks.fetch.http.looks_binary`,
    for pages held as text (cached, rendered): such a page is no page, and no extractor may
    read a post from it."""
    sample = (text or "")[:_GARBLE_SAMPLE]
    if not sample:
        return False
    bad = sum(1 for ch in sample if ch == "\ufffd" or (ord(ch) < 32 and ch not in "\t\n\f\r") or ch == "\x7f")
    return bad > len(sample) * GARBLED_SHARE
