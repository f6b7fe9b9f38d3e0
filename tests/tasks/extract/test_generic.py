"""tasks.extract.generic: trafilatura as the generic extractor, read again where it misses the
post of an old page (a layout table, text loose between <br>s)."""
from __future__ import annotations

from tasks.extract.generic import page_content

BODY = ("Neben Adsense ist das Partnerprogramm von Amazon sicherlich für viele Blogger ein großer "
        "Einkommensfaktor.<br />Über lange Zeit konnte man Links dabei einfach erstellen, indem man in die "
        "direkte Amazon-Url seine Partner-ID eingefügt hat.<br /><br />Das Ergebnis war ein Link, der das "
        "gewünschte Produkt zeigte, und einige Empfehlungen dazu. Jahrelang gab es einen Trick dagegen.")
SIDEBAR = "".join(f"<div class='side'><a href='/a/{i}.html'>Eintrag Nummer {i} im Blog</a><br/>Dienstag, {i}. Mai</div>"
                  for i in range(12))


def _page(body: str) -> str:
    """Serendipity's default template, as held-out blogaddict-de serves it: the page laid out in a
    table, the entry's text loose in a div between <br>s, a long sidebar in the next cell."""
    return ("<html><head><title>Amazon: ref=nosim - Blogaddict</title></head><body>"
            "<table id='mainpane'><tr><td id='content'><div class='serendipity_Entry_Date'>"
            "<h3 class='serendipity_date'>Donnerstag, 14. Dezember 2006</h3>"
            "<h4 class='serendipity_title'><a href='/a/24.html'>Amazon: ref=nosim</a></h4>"
            f"<div class='serendipity_entry'><div class='serendipity_entry_body'>{body}</div></div></div></td>"
            f"<td id='serendipityRightSideBar'>{SIDEBAR}</td></tr></table></body></html>")


def test_a_post_loose_in_a_layout_table_is_read_not_the_sidebar():
    got = page_content(_page(BODY), "http://blog.example/a/24.html")
    text = got["content_text"] or ""
    assert "Partnerprogramm von Amazon" in text and "Jahrelang gab es einen Trick" in text
    assert "Eintrag Nummer 7" not in text


def test_a_page_trafilatura_reads_is_read_once_as_it_is():
    from tasks.extract import generic
    html = ("<html><body><article><h1>A post</h1>" + "".join(f"<p>Paragraph {i} of the post, which says a thing or two.</p>"
                                                            for i in range(8))
            + "</article><aside><a href='/x'>elsewhere</a></aside></body></html>")
    first = generic._trafilatura(html, "http://blog.example/post/")
    assert generic._with_loose_text(html, "http://blog.example/post/", first) is first  # no second reading
    got = page_content(html, "http://blog.example/post/")
    assert "Paragraph 7 of the post" in got["content_text"] and "elsewhere" not in got["content_text"]
