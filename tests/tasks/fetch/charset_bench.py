"""Is the hand-written guessing in `tasks.fetch.charset.detect_encoding` needed, or would
charset-normalizer alone do? (issue 24) Not a test: a measurement, run by hand.

    python3 -m tests.farm write wordpress /tmp/farm/wordpress --posts 40   (and blogger, static, bylines)
    python3 -m tests.tasks.fetch.charset_bench /work/shared/eval/blogs /tmp/farm /work/shared/blogforever-testdata

Every text page (read as UTF-8) is tried as served, with its <meta>/XML declarations removed
(the detection path), and re-encoded to windows-1252 when it has non-ASCII text; a Russian
page in cp1251/koi8-r/UTF-8 is added. Two deciders share the declared-charset precedence
(BOM, header, <meta>, XML declaration) and differ in the guess for undeclared bytes:
`hand` is detect_encoding (UTF-8 check, charset_normalizer, the Western windows-1252
override), `cn_only` is charset_normalizer's best guess alone. A reading is right when the
decoded text is the text the bytes were made from.
"""
from __future__ import annotations

import re
import statistics
import sys
import time
from pathlib import Path

from tasks.fetch import charset as C

_DECLARATIONS = re.compile(rb'<meta\b[^>]*charset[^>]*>|(?<=<\?xml)[^>]*?encoding\s*=\s*["\'][^"\']*["\']', re.I)
_NOT_TEXT = {".png", ".jpg", ".jpeg", ".gif", ".ico", ".css", ".js", ".jsonl", ".json", ".markdown", ".txt"}
_RUSSIAN = ("Привет, мир. Это короткий рассказ о том, как мы провели лето на даче у бабушки, "
            "читали книги и гуляли в лесу. ")


def cn_only(content: bytes, content_type: str | None = None) -> str:
    """detect_encoding's declared-charset precedence, then charset_normalizer alone."""
    bom = C._bom_encoding(content)
    if bom:
        return bom
    declared = C._declared_encodings(content, content_type)
    if declared and C._utf8_under_single_byte_label(content, declared[0]):
        return "utf-8"
    for name in declared:
        if C._fits(content, name):
            return name
    guess = C._detected(content)[0] if content else None
    return guess or (declared[0] if declared else "utf-8")


def pages(roots: list[str]):
    for root in roots:
        for p in sorted(Path(root).rglob("*")):
            if not p.is_file() or p.suffix in _NOT_TEXT:
                continue
            data = p.read_bytes()
            if not data or b"\0" in data[:1024]:
                continue
            try:
                yield data.decode("utf-8")
            except UnicodeDecodeError:
                continue


def cases(roots: list[str]):
    """(kind, bytes, the text they were made from)."""
    for text in pages(roots):
        yield "served", text.encode("utf-8"), text
        bare = _DECLARATIONS.sub(b"", text.encode("utf-8")).decode("utf-8")
        yield "bare-utf8", bare.encode("utf-8"), bare
        if not bare.isascii():
            try:
                yield "bare-cp1252", bare.encode("cp1252"), bare
            except UnicodeEncodeError:
                pass
    for n in (1, 3, 10, 40):
        ru = f"<html><head><title>Блог</title></head><body><p>{_RUSSIAN * n}</p></body></html>"
        for enc in ("cp1251", "koi8-r", "utf-8"):
            yield "ru-" + enc, ru.encode(enc), ru


def main(roots: list[str]) -> None:
    rows = list(cases(roots))
    C._detected(b"caf\xe9 warm-up")  # charset_normalizer's first call loads its tables
    results: dict[tuple[str, str], list] = {}
    for name, decide in (("hand", C.detect_encoding), ("cn_only", cn_only)):
        for kind, data, truth in rows:
            t = time.perf_counter()
            enc = decide(data, "text/html")
            took = time.perf_counter() - t
            r = results.setdefault((kind, name), [0, 0, []])
            r[0] += data.decode(enc, errors="replace") == truth
            r[1] += 1
            r[2].append(took)
    print(f"{len(rows)} cases")
    for (kind, name), (ok, n, times) in sorted(results.items()):
        print(f"{kind:12} {name:8} {ok:5}/{n:<5} right   median {statistics.median(times) * 1e3:6.2f} ms"
              f"   mean {statistics.mean(times) * 1e3:6.2f} ms")


if __name__ == "__main__":
    main(sys.argv[1:] or ["/work/shared/eval/blogs"])
