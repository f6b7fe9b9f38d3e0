"""tasks.learn.byline_end: a post that ends at its byline, learned on training pages."""
from __future__ import annotations

from tasks.extract.footer import cut_from, cut_keeping
from tasks.fetch.html import block_text, parse_html
from tasks.learn.byline_end import ends_at_date
from tasks.learn.rules import apply_rule

TEMPLATE = ('<html><body><div class="content"><h2>{day}</h2><h3>{title}</h3>{body}'
            '<p class="posted">Posted by Sachi : {day} 22:23</p>'
            '<h2 id="trackbacks">Trackbacks</h2><p>Trackback URL: http://b.test/mt-tb.cgi/{n}</p>'
            '<h2 id="comments">Comments</h2>{comments}<form>Post a comment</form></div></body></html>')
BODIES = ["Tomorrow we move house. Please change your bookmarks.", "The new season opens at the Kabukiza.",
          "A seminar at the national theatre next week.", "Tickets for the summer performances are on sale."]


def _pages(bodies=BODIES, posted=True):
    out = []
    for n, body in enumerate(bodies):
        html = TEMPLATE.format(day=f"2005-11-{10 + n}", title=f"Title {n}", body=body, n=400 + n,
                               comments=f"<div><p>Comment {n} by a reader</p></div>" if n % 2 else "")
        if not posted:
            html = html.replace('class="posted"', 'class="note"')
        root = parse_html(html, f"http://b.test/2005/11/post_{n}.html")
        node = apply_rule(root, "//*[@class='content']")[0]
        dates = apply_rule(root, "//*[@class='posted']")
        out.append((node, dates[0] if dates else None, body))
    return out


def test_cut_from_leaves_what_precedes_the_line():
    node, line, body = _pages()[1]
    cut = block_text(cut_from(node, line))
    assert body in cut and "Posted by" not in cut and "Trackback" not in cut and "Comment 1" not in cut
    assert "Posted by" in block_text(node)  # the page is not changed
    title = node.find("h3")
    copy_, title_copy = cut_keeping(node, line, title)
    assert title_copy is not None and title_copy.text == "Title 1" and any(a is copy_ for a in title_copy.iterancestors())
    assert cut_from(node, parse_html("<p>elsewhere</p>").find(".//p")) is None


def test_the_feed_says_the_posts_end_at_their_byline():
    pages = _pages()
    assert ends_at_date([n for n, _, _ in pages], [d for _, d, _ in pages], [b for _, _, b in pages])


def test_without_a_feed_the_template_after_the_line_says_so():
    pages = _pages()
    assert ends_at_date([n for n, _, _ in pages], [d for _, d, _ in pages], [None] * len(pages))


def test_a_date_line_above_the_post_or_outside_its_node_is_no_end():
    # the day heading opens the node: the post follows it
    heads = []
    for n, body in enumerate(BODIES):
        root = parse_html(f'<div class="content"><p class="posted">2005-11-{10 + n}</p><p>{body}</p>'
                          f'<p>More text of post {n}.</p></div>', "http://b.test/")
        heads.append((apply_rule(root, "//*[@class='content']")[0], apply_rule(root, "//*[@class='posted']")[0], body))
    assert not ends_at_date(*zip(*heads))
    pages = _pages()
    assert not ends_at_date([n for n, _, _ in pages], [None] * len(pages), [b for _, _, b in pages])


def test_a_feed_whose_contents_go_on_past_the_line_says_no():
    pages = _pages()
    said = [block_text(n) for n, _, _ in pages]  # the feed's content is all the node holds
    assert not ends_at_date([n for n, _, _ in pages], [d for _, d, _ in pages], said)


def test_a_post_of_such_a_blog_is_read_up_to_its_byline_and_from_below_its_title():
    from tasks.extract.post import extract_root

    html = TEMPLATE.format(day="2005-11-30", title="We move", body="Please change your bookmarks.", n=499,
                           comments="<div><p>Good luck with the move!</p></div>")
    rules = {"title": {"rule": "//*[@class='content']/h3"}, "content": {"rule": "//*[@class='content']"},
             "date": {"rule": "//*[@class='posted']"}}
    root = parse_html(html, "http://b.test/2005/11/post_9.html")
    plain = extract_root(root, html, rules, url="http://b.test/2005/11/post_9.html")
    assert "Good luck" in plain["content_text"]  # (the premise: the node holds the comments)
    ended = extract_root(root, html, dict(rules, content=dict(rules["content"], ends_at_date=True)),
                         url="http://b.test/2005/11/post_9.html")
    assert ended["content_text"] == "Please change your bookmarks.", ended["content_text"]
    assert ended["title"] == "We move" and (ended["published"] or "")[:10] == "2005-11-30"
