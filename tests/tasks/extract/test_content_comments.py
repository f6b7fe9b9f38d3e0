"""tasks.extract.content_comments, and comments learned inside a content rule that holds them:
an article whose comment section sits inside it (the content rule, learned on a feed of
posts with few comments, selects the article whole)."""
from __future__ import annotations

from tasks.extract.comments import extract_comments
from tasks.extract.content_comments import content_without_comments
from tasks.fetch.html import node_text, parse_html
from tasks.learn.comment_blocks import learn_comment_blocks

SAID = "Words of the post itself, which the post says and nothing else does. "


def page(i: int, comments: list[tuple[str, str]]) -> str:
    items = "".join(f"<div class='comment-chain'><article id='c{i}{k}'><div class='comment-body-wrapper'>"
                    f"<span class='meta'><small><a href='https://people.example/{n}'><span>{n}</span></a></small>"
                    f" <small><a href='#c{i}{k}'>2017-04-{10 + k:02d}</a></small></span><p>{t} (on post {i})</p></div></article></div>"
                    for k, (n, t) in enumerate(comments))
    return (f"<html><head><title>Post {i}</title></head><body><main><article class='post-content'>"
            f"<h1 class='post-title'>Post {i}</h1><p>{SAID * 8}</p><p>{SAID * 3}</p>"
            f"<nav class='pagination'><a href='/p{i - 1}/'>previous</a></nav>"
            f"<section><section id='static-comments'><h4>Comments</h4><div id='comments'>{items}</div>"
            "<form><input name='a'><textarea></textarea></form></section></section></article></main></body></html>")


COMMENTS = [("Amir H.", "Very good, thank you for all the work you put in here"),
            ("Mehdi S.", "You are welcome, glad it was of use to you"),
            ("Sara K.", "Does this work with the older releases as well?")]


def test_the_comment_area_is_cut_from_the_content():
    root = parse_html(page(1, COMMENTS), "https://b.example/p1/")
    content = root.find(".//main")
    text, html = content_without_comments(content, "//div[contains(@class, 'comment-body-wrapper')]")
    assert SAID.strip() in text and "previous" in text
    assert not any(n in text or t in text for n, t in COMMENTS) and "Comments" not in text and "textarea" not in html
    assert COMMENTS[0][1] in node_text(content)  # the page itself is left whole
    assert content_without_comments(content, "//div[@class='nothing']") is None


def test_comments_inside_the_content_are_learned():
    pages = []
    for i in range(4):
        root = parse_html(page(i, COMMENTS[: 1 + i % 3] if i else []), f"https://b.example/p{i}/")
        pages.append((root, root.find(".//main")))
    rule = learn_comment_blocks(pages)
    assert rule
    root = parse_html(page(9, COMMENTS), "https://b.example/p9/")
    got = extract_comments(root, rule, "https://b.example/p9/")
    assert [c["author"] for c in got] == [n for n, _ in COMMENTS]


def test_comments_beside_the_post_in_one_element_are_cut_with_their_heading():
    """Movable Type 2: the content rule learned without a feed selects the entry's element, which
    holds the post's body, a "Comments" heading and the comment blocks side by side (held-out
    billsblog: every comment-heavy post's content held its comments)."""
    from tasks.extract.content_comments import content_without_comments
    from tasks.fetch.html import parse_html

    page = ("<html><body><div id='container'><div class='blog'><h2 class='date'>June 25, 2017</h2>"
            "<div class='blogbody'><h3>Party</h3><p>Come to the party on the 8th of July.</p></div>"
            "<div class='comments-head'>Comments</div>"
            "<div class='comments-body'><p>Happy birthday, Bill!</p><span>Posted by: Päivi</span></div>"
            "<div class='comments-body'><p>See you there.</p><span>Posted by: Anders</span></div>"
            "</div></div></body></html>")
    root = parse_html(page)
    content = root.xpath("//div[@class='blog']")[0]
    text, html = content_without_comments(content, "//div[@class='comments-body']")
    assert "Come to the party" in text and "Happy birthday" not in text and "Comments" not in text
    # blocks the post goes on after are no comment section: nothing is cut
    inside = page.replace("</div></div></body>", "<p>And a closing word of the post itself.</p></div></div></body>")
    root = parse_html(inside)
    assert content_without_comments(root.xpath("//div[@class='blog']")[0], "//div[@class='comments-body']") is None
