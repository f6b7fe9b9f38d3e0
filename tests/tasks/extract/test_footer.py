"""tasks/extract/footer.py: a content block's closing "Posted by X at DATE" line is cut, and
nothing else is."""
from tasks.extract.footer import without_footer
from tasks.fetch.html import block_text, parse_html

BODY = ("<p>The ferry left the orchard at dawn, and the teapot sang while the violin played.</p>"
        "<p>Then the marble station filled with pencils and village kitchens, all afternoon long.</p>")


def _block(end: str):
    root = parse_html(f"<html><body><div class='body'>{BODY}{end}</div></body></html>", "http://b.test/p")
    return root.xpath("//div[@class='body']")[0]


def test_the_closing_byline_with_the_posts_day_is_cut():
    for end in ('<span class="posted">Posted by patton at March 02, 2003 06:50 AM<br/></span><a name="more"></a>',
                "<p>Publié par André le 2 mars 2003 à 10:00</p>"):
        block = _block(end)
        cut = without_footer(block, "2003-03-02T06:50:00")
        assert block_text(cut).endswith("all afternoon long."), end
        assert "Posted" in block_text(block) or "Publié" in block_text(block)  # the page itself unchanged


def test_a_closing_paragraph_is_kept_when_it_is_not_such_a_line():
    for end, published in [
        ("<p>Posted by patton at March 02, 2003 06:50 AM</p>", "2004-05-06"),  # another day
        ("<p>Then the ferry came back on March 2, 2003, and the whole village sang along with the violin "
         "until the lantern went out over the harbour at night.</p>", "2003-03-02"),  # a paragraph, not a line
        ("<p>See you soon.</p>", "2003-03-02"),  # no date at all
    ]:
        block = _block(end)
        assert without_footer(block, published) is block, end
    block = _block("<span>Posted on March 2, 2003</span> and the rest of the sentence")
    assert without_footer(block, "2003-03-02") is block  # text after it: not the block's end


def test_the_days_heading_and_the_byline_of_a_movable_type_entry_are_cut():
    """<div class="blog"><h2 class="date">day</h2><div class="blogbody"><h3>title</h3>text
    <span class="posted">Posted by Sara</span></div></div>: the day above, the byline below."""
    html = ("<html><body><div class='blog'><h2 class='date'>October 12, 2003</h2><div class='blogbody'>"
            "<p>Ike's favorite new toy, until he hurt himself while trying to shove that hat into his mouth.</p>"
            "<span class='posted'>Posted by Sara</span></div></div></body></html>")
    block = parse_html(html, "http://b.test/p").xpath("//div[@class='blog']")[0]
    cut = without_footer(block, "2003-10-12", authors=["Sara"])
    assert block_text(cut) == "Ike's favorite new toy, until he hurt himself while trying to shove that hat into his mouth."
    assert without_footer(block, "2004-01-01", authors=["Doug"]) is block  # another day, another author


def test_a_closing_line_naming_the_author_among_many_words_is_kept():
    block = _block("<p>Thanks to Sara for the photos of the village and the harbour.</p>")
    assert without_footer(block, None, authors=["Sara"]) is block


def test_a_photo_posts_day_and_byline_are_cut_and_its_photos_kept():
    html = ("<html><body><div class='blog'><h2>July 13, 2003</h2><div class='blogbody'>"
            "<img src='/a.jpg'><img src='/b.jpg'><span>Posted by Sara</span></div></div></body></html>")
    block = parse_html(html, "http://b.test/p").xpath("//div[@class='blog']")[0]
    cut = without_footer(block, "2003-07-13", authors=["Sara"])
    assert block_text(cut) == "" and len(cut.xpath(".//img")) == 2


def test_a_short_posts_last_paragraph_mentioning_its_day_is_kept():
    """Two short paragraphs, the last saying "bought on 25 October 2025", the post's day: a
    paragraph of the post, not a line about it."""
    html = ("<html><body><div class='post'><p>本站当前使用IDC服务站为博客列车，感谢站长提供的托管服务。</p>"
            "<p>活动地址：https://idcflare.com/t/topic/32449<br>优惠码为IDCFLARE，购买日期为2025年10月25日。<br>"
            "优惠码使用后免费1年，第二年继续免费续期，每次续期1年。<br>在这里记录一下，以免忘记了。</p></div></body></html>")
    block = parse_html(html, "http://b.test/p").xpath("//div[@class='post']")[0]
    assert without_footer(block, "2025-10-25", authors=["SixHz"]) is block

