"""Parsing and the one definition of a node's text (tasks.fetch.html)."""
from __future__ import annotations

import unicodedata

from hypothesis import given, settings, strategies as st
from lxml import etree
from lxml import html as lhtml

from tasks.fetch.html import DROP_TAGS, _odd_space, nfkc, node_text, parse_html

# characters blog text is made of, and the ones NFKC and whitespace folding care about
_CHARS = st.sampled_from(list("ab Zé’“”-.\n\t") + ["\xa0", "\u2026", "\u0301", "\u2028", "\u3000", "ﬁ",
                                                  "™", "½", "\u200b", "漢", "字", "😀", "\x0b", "  "])
_TEXT = st.lists(_CHARS, max_size=40).map("".join)


def _reference_tree(text: str) -> bytes:
    """The page as lxml parses the text itself (the plain parser, no re-encoding)."""
    parser = etree.HTMLParser(recover=True, huge_tree=True, remove_comments=True, remove_pis=True,
                              default_doctype=False)
    root = lhtml.document_fromstring(text, parser=parser)
    etree.strip_elements(root, *DROP_TAGS, with_tail=False)
    return etree.tostring(root, encoding="utf-8")


@settings(max_examples=150, deadline=None)
@given(_TEXT, _TEXT)
def test_text_beyond_latin1_parses_to_the_tree_lxml_makes_of_it(head, body):
    """Non-ASCII text is handed to libxml2 as UTF-8 bytes (faster than lxml's UTF-16 or
    UCS-4): the tree is the one the text itself gives."""
    page = f"<html><head><title>{head}</title></head><body><p class='x'>{body}</p><div>{head}</div></body></html>"
    assert etree.tostring(parse_html(page), encoding="utf-8") == _reference_tree(page)


def test_text_after_a_lone_surrogate_is_kept():
    # JSON can carry one ("\\ud800"); libxml2 would stop reading the page there
    root = parse_html("<p>before \ud800 after</p><p>next</p>")
    assert [node_text(p) for p in root.iter("p")] == ["before \ufffd after", "next"]


@settings(max_examples=300, deadline=None)
@given(_TEXT)
def test_nfkc_is_unicodedata_nfkc(text):
    """The common compatibility characters are replaced before the quick check: the
    result is still exactly NFKC, combining marks after them included."""
    assert nfkc(text) == unicodedata.normalize("NFKC", text)


@settings(max_examples=150, deadline=None)
@given(st.lists(_TEXT, min_size=1, max_size=6))
def test_node_text_is_folded_nfkc_of_the_visible_text(pieces):
    """libxml2's normalize-space folds what it can; the rest is folded by split(): the
    result is the NFKC text with every run of whitespace as one space, trimmed."""
    inner = "".join(f"<span>{p}</span><script>hidden {p}</script>{p}" for p in pieces)
    el = parse_html(f"<html><body><div id='d'>{inner}</div></body></html>").find(".//div")
    visible = "".join(p + p for p in pieces)
    assert node_text(el) == " ".join(unicodedata.normalize("NFKC", visible).split())


def test_odd_spaces_are_the_whitespace_nfkc_keeps_and_normalize_space_leaves():
    """node_text folds with split() only when NFKC changed the text or `_odd_space` says
    so: it must name exactly the whitespace that survives NFKC and that libxml2's
    normalize-space (space, tab, CR, LF) does not fold, over all of Unicode."""
    odd = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF and chr(c).isspace()
           and unicodedata.normalize("NFKC", chr(c)) == chr(c) and chr(c) not in " \t\r\n"]
    assert [ch for ch in map(chr, range(0x110000)) if _odd_space("a" + ch + "b")] == odd


def test_block_text_keeps_blocks_apart_where_markup_is_minified():
    """A list written without whitespace (`<li>A</li><li>B</li>`, a sitemap post, minified
    pages) reads as a page shows it, each item a word of its own; inline markup still joins."""
    from tasks.fetch.html import block_text, node_text, parse_html

    root = parse_html("<html><body><div id='c'><h1>Sitemap</h1><ul><li><a href='/a'>One post</a></li>"
                      "<li>Two <b>bold</b>er</li></ul><p>a<br>b</p><!-- x -->end<script>var s</script></div>"
                      "</body></html>")
    div = root.xpath("//div[@id='c']")[0]
    assert block_text(div) == "Sitemap One post Two bolder a b end"
    assert node_text(div) == "SitemapOne postTwo bolderabend"  # the string value glues them
    assert block_text("  a  string ") == "a string" and block_text(None) == ""


def test_block_text_reads_a_formula_once_as_the_page_shows_it():
    """KaTeX and MathJax print a formula twice: drawn (hidden from screen readers) and as
    MathML for them (hidden from sight), the MathML carrying the TeX source as an annotation.
    The text is the drawing's; a MathML formula with no drawing beside it is read, never its
    annotation."""
    from tasks.fetch.html import block_text, parse_html

    root = parse_html(
        "<html><body><div id='c'><p>Weighted <span class='katex'><span class='katex-mathml'><math><semantics>"
        "<mrow><msub><mi>F</mi><mi>ST</mi></msub></mrow><annotation encoding='application/x-tex'>F_{ST}"
        "</annotation></semantics></math></span><span class='katex-html' aria-hidden='true'><span>F</span>"
        "<span>ST</span></span></span> by sample</p><p>MathJax <mjx-container><mjx-math aria-hidden='true'>y"
        "</mjx-math><mjx-assistive-mml><math><mi>y</mi></math></mjx-assistive-mml></mjx-container> too</p>"
        "<p>Plain <math><mi>x</mi><annotation>x</annotation></math> alone</p></div></body></html>")
    div = root.xpath("//div[@id='c']")[0]
    assert block_text(div) == "Weighted FST by sample MathJax y too Plain x alone"


def test_a_frames_fallback_markup_is_no_text():
    """What an <iframe> holds is shown only by browsers without frames (a PDF viewer's "your
    browser cannot show PDFs" in six posts of a new held-out blog); its element and src stay."""
    from tasks.fetch.html import node_text, parse_html

    root = parse_html("<html><body><div><p>Ouvrage de 1884</p><iframe src='/a.pdf'><p>Votre navigateur ne prend pas "
                      "en charge les PDF. <a href='/a.pdf'>ici</a></p></iframe><p>Source Gallica</p></div></body></html>")
    text = node_text(root.find(".//div"))
    assert "Ouvrage de 1884" in text and "Source Gallica" in text and "navigateur" not in text and "ici" not in text
    assert root.find(".//iframe").get("src") == "/a.pdf"
