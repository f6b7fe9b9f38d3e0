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


MT3_PEOPLE = [("Donald", "Excellent first post, enjoy the trip and write often"),
              ("Meryan Madden", "Congratulations on the new journal, we will read along"),
              ("Aly Buckingham", "Thanks for the awesome update, keep them coming please"),
              ("Steven Graham", "Am I right that I am the first to comment here?")]


def mt3_page(i: int, people) -> str:
    """Movable Type 3 as held-out whitesrv prints it: one `div.content` holds the title, the post,
    its "Posted by X at DATE" line, a "Comments" heading, then each comment's text in a `div#cN`
    with its "Posted by: NAME at DATE" line after it."""
    said = f"The road from Toronto to the coast, day {i}, and what we saw there on the way. " * 6
    comments = "".join(f"<div id='c{i}{k}'><p>{t} (post {i})</p></div>"
                       f"<p class='posted'>Posted by: <a href='http://p{k}.example/'>{n}</a> at March {k + 2}, 2005 04:0{k} PM</p>"
                       for k, (n, t) in enumerate(people))
    return (f"<html><body><div id='container'><div class='content'><p><a href='/'>Main</a></p>"
            f"<h2>March {i + 1}, 2005</h2><h3>Chapter {i}</h3><p>{said}</p><p>{said}</p>"
            f"<div id='a00{i}more'><div class='more'></div></div>"  # the entry's empty "more" anchor
            f"<p class='posted'>Posted by Ross at March {i + 1}, 2005 04:07 PM</p>"
            f"<h2 id='comments'>Comments</h2>{comments}</div></div></body></html>")


def test_comments_named_by_the_line_after_them_inside_the_content_are_learned_and_cut():
    """Held-out whitesrv (comments 0 -> 99.7, content 53.8 -> 95.2): the blocks are looked for after
    the byline that closes the post (workers.extract.comments.post_end), each comment is its text
    and the footer naming it (tasks.learn.comment_slots.run_of), and both are cut from the content."""
    from workers.extract.comments import post_end
    rules = {"content": {"rule": "//div[@class='content']"}, "title": {"rule": "//div[@class='content']/h3"},
             "author": {"rule": "//*[@class='posted']"}}
    pages = []
    for i in range(3):
        root = parse_html(mt3_page(i, MT3_PEOPLE[: 2 + i % 3]), f"https://b.example/archives/00{i}.html")
        end = post_end(root, rules)
        assert end is not None and end.get("class") == "posted"  # not the content element, which holds the comments
        pages.append((root, end))
    rule = learn_comment_blocks(pages)
    assert rule
    url = "https://b.example/archives/009.html"
    root = parse_html(mt3_page(9, MT3_PEOPLE), url)
    got = extract_comments(root, rule, url, url)
    assert [c["author"] for c in got] == [n for n, _ in MT3_PEOPLE]
    assert [c["content_text"] for c in got] == [f"{t} (post 9)" for _, t in MT3_PEOPLE]
    text, _ = content_without_comments(root.xpath("//div[@class='content']")[0], rule["container"])
    assert "The road from Toronto" in text and not any(n in text or t in text for n, t in MT3_PEOPLE)
    assert "Posted by:" not in text
    # a byline at the top of the content (a header) is no end of the post: the content is
    header = parse_html(mt3_page(1, MT3_PEOPLE).replace("<h3>Chapter 1</h3>", "<h3>Chapter 1</h3><p class='by'>Ross</p>"))
    assert post_end(header, dict(rules, author={"rule": "//p[@class='by']"})).get("class") == "content"


def test_an_element_left_open_keeps_the_posts_last_part_when_its_comments_are_cut():
    """Broken markup: an element the post leaves open (a `<div>` never closed) holds the post's last
    part, its byline and the comment blocks, all inside the content rule's element. Their lowest
    common element is no comment area (most of its text is the post's): the blocks alone are cut,
    each with its line, and the post's last part stays (a held-out blog's two such posts lost
    half their text once their comments were read)."""
    last = "The last part of the post, which the open element holds. " * 12
    blocks = "".join(f"<div class='comments-body'><p>Reader {i} says a thing about it.</p>"
                     f"<span class='comments-post'>Posted by: r{i} at May {i + 1}, 2004 01:00 PM</span></div>"
                     for i in range(3))
    html = ("<html><body><div class='blogbody'><h3 class='title'>A post</h3>"
            f"<p>{SAID * 6}</p><div class='note'><p>{last}</p>"
            "<span class='posted'>Posted by Owner at May 1, 2004 09:00 AM</span>"
            f"<div class='comments-head'>Comments</div>{blocks}</div></body></html>")
    root = parse_html(html, "https://b.example/archives/000368.html")
    content = root.find(".//div[@class='blogbody']")
    text, _ = content_without_comments(content, "//div[@class='comments-body']")
    assert SAID.strip() in text and last.strip() in text
    assert "Reader 1 says" not in text and "r2 at" not in text


def test_a_posts_one_comment_is_cut_with_its_line_after_it():
    """Movable Type 3 with one comment: its "Posted by: NAME at DATE" line follows it and no pair
    repeats to say it is the comment's; the blocks' rule (a path by position) also takes the
    entry's empty "more" anchor (a new held-out blog: each post with one comment kept it in its
    text). A short dated line after the blocks is theirs."""
    html = mt3_page(1, MT3_PEOPLE[:1]).replace("<div id='a001more'><div class='more'></div></div>", "<div id='a001more'></div>")
    root = parse_html(html, "https://b.example/archives/1.html")
    content = root.xpath("//div[@class='content']")[0]
    text, _ = content_without_comments(content, "/html/body/div/div/div")
    assert "Excellent first post" not in text and "Posted by: Donald" not in text
    assert "The road from Toronto" in text
