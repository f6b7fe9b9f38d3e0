"""One charset decider for responses and for bytes given to the parser (tasks.fetch.charset)."""
from __future__ import annotations

import codecs

from tasks.fetch.charset import decode, detect_encoding
from tasks.fetch.html import node_text, parse_html

FRENCH = "Un été à Paris, déjà l'hiver"
RUSSIAN = ("Привет, мир. Это короткий рассказ о том, как мы провели лето на даче у бабушки, "
           "читали книги и гуляли в лесу.")


def _page(body: str, head: str = "") -> str:
    return f"<html><head>{head}</head><body><p>{body}</p></body></html>"


# (bytes, what a reader sees): the lies and accidents blogs serve
CASES = [
    (_page(FRENCH).encode("utf-8"), FRENCH),                                       # undeclared UTF-8
    (codecs.BOM_UTF8 + _page(FRENCH).encode("utf-8"), FRENCH),                     # UTF-8 with a BOM
    (("\ufeff" + _page(FRENCH)).encode("utf-16-le"), FRENCH),                       # UTF-16 by its BOM
    (_page(FRENCH, '<meta charset="iso-8859-1">').encode("cp1252"), FRENCH),        # declared Latin-1
    (_page(FRENCH, '<meta charset="iso-8859-1">').encode("utf-8"), FRENCH),         # says Latin-1, is UTF-8
    (_page("Привет, мир", '<meta charset="koi8-r">').encode("koi8-r"), "Привет, мир"),
    (_page("€ 5 – “quoted”", '<meta charset="windows-1252">').encode("cp1252"), "€ 5 – “quoted”"),
    # undeclared Cyrillic code pages and UTF-32: the parser's own decider used to read
    # these as windows-1252 (mojibake); detection reads them as a response is read
    (_page(RUSSIAN).encode("cp1251"), RUSSIAN),
    (_page(RUSSIAN).encode("koi8-r"), RUSSIAN),
    (("\ufeff" + _page(RUSSIAN)).encode("utf-32-le"), RUSSIAN),
]


def test_bytes_read_as_their_charset_whoever_reads_them():
    """A response's text and the parser given the raw bytes agree, on every case: both
    ask the same decider (they used to have one each, which disagreed on some lies)."""
    for data, seen in CASES:
        as_response = data.decode(detect_encoding(data), errors="replace")
        from_bytes = node_text(parse_html(data).find(".//p"))
        assert from_bytes == seen, (data[:60], from_bytes)
        assert node_text(parse_html(as_response).find(".//p")) == seen, data[:60]


def test_decode_takes_the_callers_charset_and_drops_a_bom():
    data = codecs.BOM_UTF8 + "café".encode("utf-8")
    assert decode(data) == "café" and decode(data, "utf-8") == "café"
    assert decode("café".encode("cp1252"), "latin-1") == "café"   # WHATWG: Latin-1 means windows-1252
    assert decode(b"caf\xe9", "no-such-charset") == decode(b"caf\xe9")
    assert isinstance(decode(bytes(range(256)) * 4), str)          # garbage never raises


def test_garbled_text_is_binary_bytes_decoded_not_a_page():
    """Binary bytes decoded as UTF-8 or Latin-1 are garbled; real pages (in any script, with
    a stray replacement character or tab) are not."""
    import random

    from tasks.fetch.charset import garbled

    rng = random.Random(7)
    noise = bytes(rng.randrange(256) for _ in range(6000))
    assert garbled(noise.decode("utf-8", errors="replace"))
    assert garbled(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR".decode("latin-1") + noise.decode("latin-1"))
    page = "<html><body><p>Größe \t Ελληνικά 日本語 \ufffd ok</p>" + "<p>texte</p>" * 200 + "</body></html>"
    assert not garbled(page)
    assert not garbled("") and not garbled(None)


def test_a_latin1_page_with_a_stray_utf8_character_near_its_top_stays_latin1():
    """An old Movable Type page labelled iso-8859-1: one UTF-8 "’" pasted into the post,
    and its commenters' names in Latin-1 70 KB further down (held-out blog: "Mart\\ufffdn")."""
    top = "<html><head><meta charset='iso-8859-1'></head><body><p>It’s here.</p>".encode("utf-8")
    body = ("<p>" + "Words of the post. " * 4000 + "</p>").encode("ascii")
    comments = "<div class='comments-body'>Posted by: Martín at May 2, 2009</div></body></html>".encode("latin-1")
    page = top + body + comments
    assert len(top + body) > 65536
    assert detect_encoding(page, "text/html; charset=iso-8859-1") == "cp1252"
    assert "Martín" in decode(page)


def test_a_utf8_header_over_latin1_bytes_gives_way_to_the_page_s_own_meta():
    """A server that labels every page utf-8 (a default) over an old Latin-1 page whose <meta>
    says iso-8859-1 (held-out billsblog, as served: "P\\ufffdivi"); a UTF-8 page with one stray
    byte keeps UTF-8."""
    latin = ("<html><head><meta http-equiv='Content-Type' content='text/html; charset=iso-8859-1'></head>"
             "<body>Posted by: Päivi & Santeri, Amnéus, Martín</body></html>").encode("latin-1")
    assert detect_encoding(latin, "text/html; charset=utf-8") == "cp1252"
    assert "Päivi" in decode(latin, detect_encoding(latin, "text/html; charset=utf-8"))
    utf8 = ("<html><head><meta charset='iso-8859-1'></head><body>Café crème brûlée, naïve".encode("utf-8")
            + b"\xe9</body></html>")
    assert detect_encoding(utf8, "text/html; charset=utf-8") == "utf-8"
