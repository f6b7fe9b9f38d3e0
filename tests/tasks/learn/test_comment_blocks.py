"""tasks.learn.comment_blocks: a comment rule with no comment feed, from the repeated blocks
of a few posts of farm blogs whose comments are only in the page (three themes, four
languages, with and without dates), applied to every post of the blog."""
from __future__ import annotations

import pytest

from tasks.extract.comments import extract_comments
from tasks.fetch.html import node_text, parse_html
from tasks.learn.comment_blocks import learn_comment_blocks, looks_like_comment
from tasks.text.similarity import dice, normalize_text
from tests.farm import make_blog

O = "http://127.0.0.1:9"


def _pages(blog, posts):
    out = []
    for p in posts:
        root = parse_html(blog.render(p.path, O).body, O + p.path)
        content = [e for e in root.iter() if isinstance(e.tag, str) and node_text(e) == p.text]
        out.append((root, content[-1] if content else None))
    return out


@pytest.mark.parametrize("theme,lang,dates,seed", [
    ("list", "en", True, 1), ("list", "de", False, 2), ("divs", "fr", True, 3), ("divs", "es", False, 4),
    ("articles", "en", True, 5), ("articles", "fr", False, 6)])
def test_rule_from_a_few_posts_reads_every_post(theme, lang, dates, seed):
    blog = make_blog("threaded", seed, 24, theme=theme, lang=lang, comment_dates=dates)
    rule = learn_comment_blocks(_pages(blog, blog.newest[:6]))
    assert rule and rule["container"] and rule["author"] and rule["text"]
    assert bool(rule["date"]) == dates
    total = good = 0
    for (root, _), p, t in zip(_pages(blog, blog.posts), blog.posts, blog.truth):
        got = extract_comments(root, rule, O + p.path)
        assert len(got) == len(t["comments"]), p.path
        for g in t["comments"]:
            total += 1
            good += any(c["author"] == g["author"] and dice(normalize_text(c["content_text"]),
                                                             normalize_text(g["content_text"])) > 0.9 for c in got)
            if not dates:
                assert all(c["published"] is None for c in got)
    assert total > 40 and good >= 0.95 * total, f"{good}/{total}"


def test_pingbacks_are_marked():
    blog = make_blog("threaded", 2, 30, theme="list", lang="en")
    rule = learn_comment_blocks(_pages(blog, blog.newest[:6]))
    kinds = {}
    for (root, _), p, t in zip(_pages(blog, blog.posts), blog.posts, blog.truth):
        for c in extract_comments(root, rule, O + p.path):
            kinds[c["kind"]] = kinds.get(c["kind"], 0) + 1
    want = sum(1 for t in blog.truth for g in t["comments"] if g["kind"] == "pingback")
    assert want and kinds.get("pingback") == want


def test_no_rule_where_nothing_repeats():
    blog = make_blog("static", 1, 8)
    assert learn_comment_blocks(_pages(blog, blog.newest[:6])) is None


def test_a_comment_has_a_name_and_something_said():
    div = parse_html("<div><p><b>Ann</b></p><p>I liked this very much, thanks for writing it</p></div>").find(".//div")
    date_only = parse_html("<div><span>Ann</span><span>March 3, 2014 at 2:05 PM</span></div>").find(".//div")
    assert looks_like_comment(div) and not looks_like_comment(date_only)


def test_the_owner_answers_under_a_name_the_footer_heads():
    """The blog's author replies to readers, and the theme's footer heads its bio with the same
    name on every page: a heading every post prints is not what a post calls itself."""
    def page(i):
        items = "".join(
            f'<li class="comment"><div class="comment-author">{name}</div>'
            f'<div class="comment-body">{text} (post {i}, comment {k})</div></li>'
            for k, (name, text) in enumerate([
                (f"Reader {i}a", "Thanks for this write-up, it saved me an afternoon of debugging"),
                ("Jo Owner", "Glad it helped, and thanks for writing back about what you found"),
                (f"Reader {i}b", "Would this also work with the older version of the library?"),
                ("Jo Owner", "It should, though I have not tried it on anything older than two")]))
        html = (f"<html><head><title>Post {i} | example.org</title></head><body>"
                f"<article><h1>Post number {i}</h1><div class='post'><p>{'Body text of the post. ' * 30}</p></div></article>"
                f"<div id='comments'><h2>4 comments</h2><ol class='comments-list'>{items}</ol></div>"
                "<section class='footer'><div><h3>Jo Owner</h3><p>Writes about analytics.</p></div></section>"
                "</body></html>")
        root = parse_html(html, f"{O}/post-{i}/")
        return root, root.find(".//div[@class='post']")
    pages = [page(i) for i in range(6)]
    rule = learn_comment_blocks(pages)
    assert rule
    for root, _ in pages:
        got = extract_comments(root, rule, root.base)
        assert len(got) == 4 and [c["author"] for c in got][1::2] == ["Jo Owner", "Jo Owner"]
        assert all("(post" in c["content_text"] and c["content_text"].count("comment") == 1 for c in got)


def test_the_theme_prints_no_comment_and_a_label_is_no_name():
    """Most sample posts have no comment, only the theme's "Post a comment" heading over its
    notice, which one post with a comment prints too: that heading is no comment; the one
    comment's block is named by what it is ("comment"), not by a state ("odd"); "From:" before
    the name is a label."""
    def page(i, comments):
        items = "".join(f'<div class="comment odd"><p class="comment_header">From: <a href="http://x.example/">{n}</a>'
                        f'<br><span class="comment_date">2014-03-{10 + k} 11:28</span></p><p>{t}</p></div>'
                        for k, (n, t) in enumerate(comments))
        head = f"<h1>{len(comments)} Comment</h1>{items}" if comments else ""
        html = (f"<html><head><title>Post {i}</title></head><body><article><h1>Post {i}</h1>"
                f"<div class='entry-content'><p>{'Words of the post. ' * 30}</p></div></article>"
                f"<section id='comments'>{head}<h1>Post a comment</h1>"
                "<p>All comments are held for moderation; Markdown and basic HTML formatting accepted.</p>"
                "<form><input name='n'></form></section></body></html>")
        root = parse_html(html, f"{O}/post-{i}/")
        return root, root.find(".//div[@class='entry-content']")
    pages = [page(i, [("Jimmy Breck-McKye", "Wait, putting your conditional procedures in a new block is unusual?")]
                  if i == 3 else []) for i in range(8)]
    rule = learn_comment_blocks(pages)
    assert rule and "comment" in rule["container"] and "odd" not in rule["container"]
    got = extract_comments(*page(9, [("Ann Lee", "First of two comments here"), ("Bo", "The second one, even")]) [:1],
                           rule, O + "/post-9/")
    assert [c["author"] for c in got] == ["Ann Lee", "Bo"]


def test_a_name_printed_with_its_date_is_the_name():
    from tasks.learn.comment_nodes import shown_name
    for html, name in [("<h5>5.10.2022 - Greg</h5>", "Greg"), ("<b>Ann Lee | March 3, 2014</b>", "Ann Lee"),
                       ("<b>Jean-Marc D.</b>", "Jean-Marc D."), ("<b>Ann - Bob</b>", "Ann - Bob")]:
        assert shown_name(parse_html(f"<div>{html}</div>").find(".//div")[0]) == name


def test_a_posts_own_sections_named_by_their_headings_are_no_comments():
    """docutils names each section of a post by its heading's slug: a post about threads has
    sections #fix-threads, #dangling-threads; "thread" in such an id is the text's word, not
    the markup calling the blocks comments, so the post's sections are never read as comments."""
    from tasks.fetch.html import parse_html
    from tasks.learn.comment_blocks import learn_comment_blocks

    heads = ["Fix threads in socketserver", "Dangling threads", "Reply to threads", "Threading cleanup"]
    sections = "".join(
        f"<div class='section' id='{h.lower().replace(' ', '-')}'><h3>{h}</h3><p>Paragraph {i} about the bug in "
        f"the module, with its details and what was changed to fix it for good.</p></div>" for i, h in enumerate(heads))
    html = (f"<html><body><div class='article'><h1>Post</h1><div class='article-body'><p>Intro of the post.</p>"
            f"{sections}</div><hr/><h2>Comments</h2></div></body></html>")
    root = parse_html(html, "https://b.test/p.html")
    body = root.xpath("//div[@class='article-body']")[0]
    assert learn_comment_blocks([(root, body)]) is None


def test_a_name_shown_in_one_of_two_tags_is_read_in_every_block():
    """A theme prints a commenter who left a site as <a><strong>Name</strong></a> and one who
    did not as <h7>Name</h7> (held-out blog: the name rule read <strong> only, and the rule
    kept the replies alone, 17 % of the comments); both are names, and the "Reply" link
    every block has is none."""
    people = [("Justa", True), ("Róża", False), ("Martita", False), ("anjami", True), ("Ola", False),
              ("mamafulltime", True)]

    def block(i, name, linked):
        who = f"<a href='https://site{i}.example/'><strong>{name}</strong></a>" if linked else f"<h7>{name}</h7>"
        return (f"<div class='comment' id='comment-{i}'><div class='gravatar'><img src='/a.png'></div>"
                f"<div class='right'>{who}<div class='comment_date'>{i + 1} lutego 2013 at 19:3{i}</div>"
                f"<a class='comment-reply-link' href='#comment-{i}'>Reply</a><br>"
                f"<p>{name} pisze komentarz numer {i} o tym wpisie, dziękuję bardzo.</p></div></div><hr>")

    pages = []
    for k in range(2):
        order = people[k:] + people[:k]
        html = ("<html><body><div class='post'><h5>Wpis</h5><div class='post_header'><p>" + f"Tekst wpisu {k}. " * 40
                + "</p></div></div><div class='fullwidth_comment_wrapper'><h2>6 komentarzy</h2><div>"
                + "".join(block(i, n, linked) for i, (n, linked) in enumerate(order)) + "</div></div></body></html>")
        root = parse_html(html, f"{O}/2013/02/1{k}/wpis-{k}/")
        pages.append((root, root.xpath("//div[@class='post_header']")[0]))
    _reads_names_and_days(pages, people, "/2013/02/1{k}/wpis-{k}/", "2013-02-")


def _reads_names_and_days(pages, people, path: str, day: str):
    """The rule learned on `pages` (page k lists `people` rotated by k) reads every name, in order, and a day."""
    rule = learn_comment_blocks(pages)
    assert rule is not None
    for k, (root, _) in enumerate(pages):
        url = O + path.format(k=k)
        got = extract_comments(root, rule, url, url)
        assert [c["author"] for c in got] == [n for n, _ in people[k:] + people[:k]]
        assert all(c["published"] and c["published"].startswith(day) for c in got)


def test_a_name_printed_as_text_beside_its_date_link_is_the_name():
    """A theme prints <cite><a class=url>Name</a><a href=#comment-N>date</a></cite> for a
    commenter who left a site and <cite>Name<a href=#comment-N>date</a></cite> for one who did
    not (held-out lukem-pl: the name rule read the first link, the date for the unlinked, and
    those comments were lost); the cite is the name's, its date link is no part of it."""
    people = [("Kamil Nicieja", True), ("grobo", False), ("Lukem", True), ("Ethan", False), ("bobiko", True),
              ("daromar", False)]

    def block(i, name, linked):
        who = f"<a href='https://site{i}.example/' class='url'>{name}</a>" if linked else name
        return (f"<li id='comment-{i}'><cite>{who}<a href='#comment-{i}' class='cmd'>1{i}.01.2008, 21:0{i}</a></cite>"
                f"<p>{name} pisze komentarz numer {i} o tym wpisie, dziękuję bardzo.</p></li>")

    pages = []
    for k in range(3):
        order = people[k:] + people[:k]
        html = ("<html><body><div id='cn'><h2>Wpis</h2><p>" + f"Tekst wpisu {k}. " * 40 + "</p>"
                "<h3 id='comments'>Komentarze do wpisu</h3><ul id='cml'>"
                + "".join(block(i, n, linked) for i, (n, linked) in enumerate(order)) + "</ul></div></body></html>")
        root = parse_html(html, f"{O}/2008/01/1{k}/wpis-{k}/")
        pages.append((root, root.xpath("//div[@id='cn']")[0]))
    _reads_names_and_days(pages, people, "/2008/01/1{k}/wpis-{k}/", "2008-01-1")


def test_words_printed_after_every_name_are_cut_whatever_the_handles():
    """ "Ann dit :" on every comment: both words go, also where some commenters are handles
    half made of digits ("yt75": held-out nokto-fr, whose names came out as "yt75 dit")."""
    from tasks.learn.comment_slots import _affixes

    names = ["Alexandre Girardot dit :", "Clément Latzarus dit :", "yt75 dit :", "yt75 dit :", "jcgarnier dit :",
             "yt75 dit :", "Val dit :"]
    assert _affixes(names) == {"author_suffix": "dit :"}
    assert _affixes(["Reader 7", "Reader 8", "Reader 9"]) == {}  # what is left must still read as names


def _serendipity(i: int, trackbacks: bool = True) -> str:
    """A post of an old theme laid out in a table (Serendipity 1.x): the post and its comments in
    the layout's one cell; a section of trackbacks before the comments; the footer's count."""
    people = ["Malte", "Enrico", "Sabine", "Jürgen", "Petra"]
    tb = ("<div class='serendipity_comments serendipity_section_trackbacks'><div class='serendipity_commentsTitle'>"
          "Trackbacks</div>" + "".join(
              f"<div class='serendipity_comment'><div class='serendipity_commentBody'><a href='http://other{k}.test/p'>"
              f"Ein Blog schreibt über Beitrag {i} {k}</a><br>Hier ein Auszug aus dem Artikel {i} mit vielen Worten "
              f"über das Thema, {k} Mal.</div><div class='serendipity_comment_source'><b>Weblog:</b> Blog {k}<br>"
              f"<b>Aufgenommen:</b> Jan 2{k}, 09:27</div></div>" for k in range(2)) + "</div>") if trackbacks else ""
    comments = "".join(
        f"<div id='serendipity_comment_{i}{k}' class='serendipity_comment serendipity_comment_author_{people[k]} "
        f"comment_{'odd' if k % 2 else 'even'}box' style='padding-left: {20 * (k % 2)}px'>"
        f"<div class='serendipity_commentBody'>Das ist mein Kommentar Nummer {k} zu Beitrag {i}, mit einer Meinung.</div>"
        f"<div class='serendipity_comment_source'><a href='#c{k}'>#{k + 1}</a> <span class='comment_source_author'>"
        f"{people[k]}</span> am <span class='comment_source_date'>1{k}.12.2006 09:4{k}</span></div></div>"
        for k in range(3))
    return (f"<html><body><table><tr><td id='sidebar'><div>Kategorien</div><ul><li>Blog</li></ul></td>"
            f"<td id='content'><div class='serendipity_entry'><h4 class='serendipity_title'>Beitrag {i}</h4>"
            f"<div class='serendipity_entry_body'>Der Text von Beitrag {i} " + "mit vielen Wörtern " * 20 + "</div>"
            f"<div class='serendipity_entryFooter'>Geschrieben von Blogaddict | <a href='#comments'>Kommentare (3)</a></div>"
            f"</div>{tb}<div class='serendipity_comments serendipity_section_comments'><div class='serendipity_commentsTitle'>Kommentare</div>"
            f"{comments}</div></td></tr></table></body></html>")


def test_comments_in_a_page_laid_out_in_a_table_and_the_count_tells_them_from_trackbacks():
    """Held-out blogaddict-de (Serendipity): its comments sit in the layout table's cell (a table
    of data holds no comment, a layout cell does), after a section of trackbacks that reads as
    well; the footer's "Kommentare (3)" tells which blocks are the comments."""
    pages = []
    for i in range(1):  # one post read alone, as a post of a blog with no settled rule is
        root = parse_html(_serendipity(i), f"{O}/a/{i}.html")
        pages.append((root, root.xpath("//div[@class='serendipity_entry_body']")[0]))
    rule = learn_comment_blocks(pages)
    assert rule and "serendipity_comment" in rule["container"], rule
    got = extract_comments(pages[0][0], rule, f"{O}/a/0.html")
    assert [c["author"] for c in got] == ["Malte", "Enrico", "Sabine"], got
    # the same post in a table of data (rows of cells, no layout): no comment blocks proposed there
    data = parse_html("<html><body><table>" + "".join(
        f"<tr><td><span class='who'>{n}</span></td><td>says something rather long about the topic {n}</td></tr>"
        for n in ("Anna", "Bert", "Cleo", "Dora")) + "</table></body></html>", O)
    assert learn_comment_blocks([(data, None)]) is None


_PEOPLE = ["Ann Lee", "Bob", "Carla (not verified)", "Dan77 (not verified)", "Eve", "Frank Moe"]


def _line_page(k: int):
    """A post whose comments print no element for the name: a title linking the comment's own
    anchor, then "Submitted by NAME [(not verified)] on DAY - TIME", and replies in the element
    right after their comment (a thread beside it, not inside it)."""
    def comment(i: int, depth: int) -> str:
        who = _PEOPLE[(i + k) % len(_PEOPLE)]
        body = (f"<a id='comment-{k}{i}'></a><div class='comment'><h3><a href='/post-{k}#comment-{k}{i}'>"
                f"Subject {k} {i} here</a></h3><div class='submitted'>Submitted by {who} on Mon, 0{1 + i % 8}/0{1 + k}/2009"
                f" - 1{i % 10}:3{k}</div><div class='content'><p>What reader {i} of post {k} says at some length, "
                f"words {i * 7} and {k * 3}.</p></div><ul class='links'><li><a href='/comment/reply/{k}/{i}'>reply</a>"
                f"</li></ul></div>")
        return body + (f"<div class='indented'>{comment(i + 1, depth + 1)}</div>" if depth == 0 and i % 2 == 0 else "")
    comments = "".join(comment(i, 0) for i in range(0, 8, 2))
    html = (f"<html><head><title>Post {k}</title></head><body><div class='node'><h2>Post {k}</h2><div class='content'>"
            f"<p>The post number {k} says a great many things about its subject.</p></div></div>"
            f"<div id='comments'><h2>Comments</h2>{comments}</div></body></html>")
    root = parse_html(html, f"{O}/post-{k}")
    return root, root.find(".//div[@class='node']")


def test_a_name_printed_in_the_date_line_is_read_there_and_a_permalinks_title_is_no_name():
    pages = [_line_page(k) for k in range(3)]
    rule = learn_comment_blocks(pages)
    assert rule and rule.get("author_line"), rule
    root, _ = _line_page(4)
    got = extract_comments(root, rule, f"{O}/post-4")
    names = [c["author"] for c in got]
    assert len(got) == 8 and names == [_PEOPLE[(i + 4) % len(_PEOPLE)].replace(" (not verified)", "") for i in range(8)]
    by_id = {c["id"]: c for c in got}
    replies = [c for c in got if c["parent"]]
    assert len(replies) == 4 and all(by_id[c["parent"]]["author"] for c in replies)
    assert [got.index(by_id[c["parent"]]) for c in replies] == [0, 2, 4, 6]


def _posted_by_page(people: list[tuple[str, str]], k: int = 0):
    """A post read alone whose comments print "Posted by: NAME at DATE", the name linked where the
    commenter left a site (another site, or the blog's own folder for its owner) and plain where
    not, the comment form last in a block of the comments' own class."""
    def block(i: int, name: str, site: str) -> str:
        who = {"": name, "own": f"<a href='index.htm'>{name}</a>"}.get(site, f"<a href='{site}'>{name}</a>")
        return (f"<div class='comments-body'><p>What {name} says about post {k} here, reader {i}.</p>"
                f"<span class='comments-post'>Posted by: {who} at January {12 - i}, 2004 0{i + 1}:18 PM</span></div>")
    html = ("<html><body><div class='blog'><h2 class='date'>January 8, 2004</h2><div class='blogbody'>"
            f"<h3 class='title'>Post {k}</h3><p>" + f"The post's own words {k}. " * 30 + "</p>"
            "<span class='posted'>Posted by Owner at January 8, 2004 07:47 AM</span></div>"
            "<div class='comments-head'>Comments</div>"
            + "".join(block(i, n, s) for i, (n, s) in enumerate(people))
            + "<div class='comments-head'>Post a comment</div><div class='comments-body'><form action='/mt-comments.cgi'>"
              "<label>Name:</label><input name='author'><label>Comments:</label><textarea name='text'></textarea>"
              "<input type='submit' value='Post'></form></div></div></body></html>")
    root = parse_html(html, f"{O}/archives/00043{k}.html")
    return root, root.xpath("//div[@class='blogbody']")[0]


def test_names_in_the_date_line_linked_on_some_comments_and_the_form_beside_them():
    """Three comments on a post read alone: one name plain, the owner's linked to the blog's own
    folder, one linked to the commenter's site; the form to comment in a block of the same class
    (a held-out blog: each post with fewer than four comments read none). The form is no
    comment and dilutes nothing; the names are read off the date line, linked or not."""
    people = [("ryan", ""), ("Owner", "own"), ("yyl", "http://yyl.example/")]
    root, content = _posted_by_page(people)
    rule = learn_comment_blocks([(root, content)])
    assert rule is not None and rule.get("author_line"), rule
    got = extract_comments(root, rule, f"{O}/archives/000430.html")
    assert [c["author"] for c in got] == ["ryan", "Owner", "yyl"]
    assert all(c["published"].startswith("2004-01-") for c in got)


def test_names_in_the_date_line_where_one_is_digits_and_one_comment_is_unsigned():
    """Nine comments, four names plain, one of them digits, one comment signed by no one ("Posted
    by:  at ..."), beside a post with no comment but the form (a held-out blog: no rule was
    learned, and 188 of its 815 comments were missed). The unsigned one has the lines' shape."""
    people = [("sunwell", "http://s.example/"), ("Hilton", "own"), ("autumnleaf", "http://a.example/"),
              ("kingfish", "http://k.example/"), ("dancewing", ""), ("12345678", ""), ("", ""), ("udoo", ""),
              ("keke", "")]
    root, content = _posted_by_page(people, 1)
    rule = learn_comment_blocks([_posted_by_page([], 2), (root, content)])
    assert rule is not None and rule.get("author_line"), rule
    got = extract_comments(root, rule, f"{O}/archives/000431.html")
    assert [c["author"] for c in got if c["author"]] == [n for n, _ in people if n and not n.isdigit()]


def test_a_line_reading_must_agree_with_the_name_elements():
    """Where the date line's words between lead and stop are not what the name element shows,
    the element stays the name (the line reading is no guess over it), also where one block
    shows no name element."""
    from tasks.learn.comment_slots import learn_slots

    blocks = "".join(f"<div class='c'>{f'<b class=n>{n}</b>' if n else ''}<p>Comment number {i} says a thing or two.</p>"
                     f"<span class='d'>Posted by: user{i} at January {i + 2}, 2004 01:0{i} PM</span></div>"
                     for i, n in enumerate(["Ann", "Bob", "Cid", "Dee", ""]))
    root = parse_html(f"<html><body>{blocks}</body></html>", f"{O}/p.html")
    slots = learn_slots(root.xpath("//div[@class='c']"))
    assert slots and not slots.get("author_line"), slots


def test_names_in_a_title_line_of_their_own_on_a_post_read_alone():
    """b2evolution-like blocks: "Comment from: NAME [Visitor] <a>email form</a> · <a>site</a>", the
    text, then "Permalink MM/DD/YY @ HH:MM" (a new blog: every comment was lost, no element
    holds a name). The line's lead and note frame the name; the line's other links are not the
    name's (the email form of the blog's own host)."""
    people = ["Daniele Medri", "Ikke", "John Drinkwater", "Ikke", "dhon", "Giacomo"]

    def block(i: int, name: str) -> str:
        site = f" &middot; <a href='http://site{i}.example/'>http://site{i}.example</a>" if i % 2 else ""
        return (f"<a name='c{i}'></a><div class='bComment'><div class='bCommentTitle'>Comment from: {name} "
                f"[{'Member' if name == 'Ikke' else 'Visitor'}] <a href='/index.php/ikke?disp=msgform&amp;c={i}'>"
                f"<img alt='Email'></a>{site}</div><div class='bCommentText'>What {name} says here, number {i} of them.</div>"
                f"<div class='bCommentSmallPrint'><a href='#c{i}'>Permalink</a> 09/0{2 + i}/07 @ 12:5{i}</div></div>")
    html = ("<html><body><div class='bPost'><h2>Post details: Seam carving</h2><div class='bText'>"
            + "<p>The post's words about image resizing. </p>" * 20 + "</div></div><h4>Comments:</h4>"
            + "".join(block(i, n) for i, n in enumerate(people))
            + "<div class='bComment'><form action='/htsrv/comment_post.php'><fieldset><textarea name='c'></textarea>"
              "</fieldset></form></div></body></html>")
    url = f"{O}/index.php/ikke/2007/09/02/seam_carving.html"
    root = parse_html(html, url)
    rule = learn_comment_blocks([(root, root.xpath("//div[@class='bText']")[0])])
    assert rule is not None, rule
    got = extract_comments(root, rule, url, url)
    assert [c["author"] for c in got] == people
    assert [c["published"][:10] for c in got] == [f"2007-09-0{2 + i}" for i in range(6)]


def test_a_blocks_date_line_is_found_without_reading_its_long_parts():
    """_date_line_of passes over elements whose text is far longer than a line (their sizes
    counted in one pass up the tree, as itertext counts them)."""
    from tasks.fetch.html import parse_html
    from tasks.learn.comment_blocks import _date_line_of, _text_sizes

    long = "words " * 400
    root = parse_html(f"<html><body><div class='c'><p>{long}<!-- a note --><b>{long}</b>tail</p>"
                      "<p class='by'>Posted by: Ann at March 3, 2010 10:14 PM</p></div></body></html>", "http://x.example/")
    block = root.xpath("//div")[0]
    sizes = _text_sizes(block)
    assert all(sizes[el] == len("".join(el.itertext())) for el in block.iter() if isinstance(el.tag, str))
    assert _date_line_of(block).get("class") == "by"


def test_a_box_of_links_marked_comments_is_no_comment():
    """A post's text copied from another site with its "sharebar-comments" box: a link to a PDF
    over a link to the source, nothing anyone said (a new held-out blog without comments had a
    comment "by" "Télécharger la version PDF"). A text that is only a link is no comment's."""
    said = "Words of the post, a long history of the island told here at length. " * 20
    html = (f"<html><body><article><h1>A post</h1><p>{said}</p><div class='comments'><div class='sharebar-comments'>"
            "<div class='sharebar-comments-right'><strong><a href='http://other.example/a.pdf'>Télécharger la version PDF"
            "</a></strong></div><div class='sharebar-comments-right'><strong>source</strong> :</div>"
            "<div class='sharebar-comments-right'><a href='http://other.example/dossier-158/'>"
            "http://other.example/dossier-158/</a></div></div></div></article></body></html>")
    root = parse_html(html, f"{O}/a-post/")
    assert learn_comment_blocks([(root, None)]) is None


def test_a_second_line_naming_the_commenter_and_the_day_is_not_what_was_said():
    """Movable Type's comment: a header "Ann:", the text, a footer "投稿者: Ann | DATE" and another
    "日時: DATE" (the date rule reads the one); comments short enough that the block's remaining
    lines outweighed the text's element (a new held-out blog: 454 comments read with their footer)."""
    said = ["お疲れさまでした。下りの件は安全面でよかったです。", "すごいですね、みんな仕事もあるのに。", "了解です、また走りましょう。",
            "ありがとうございます、参考になります。", "また来年もよろしくお願いします。", "いい写真ですね、空がきれい。"]
    people = ["ヤマ", "ken", "yama-kei", "jmz", "key", "Bob"]
    link = "<p><a href='http://tarmac.example/entry-294.html'>http://tarmac.example/entry-294.html</a></p>"
    blocks = "".join(
        f"<a id='c{i}'></a><div class='comment' id='comment-{i}'><div class='comment-inner'>"
        f"<div class='comment-header'>{n}:</div><div class='comment-content'><p>{t}</p>{link if i % 2 else ''}</div>"
        f"<p class='comment-footer'>投稿者: {n} | <a href='#comment-{i}'>2010年06月0{i + 1}日 09:5{i}</a></p>"
        f"<p class='comment-footer-experimental'>日時: <a href='#comment-{i}' title='permalink'>2010年06月0{i + 1}日 "
        f"09:5{i}</a></p></div></div>" for i, (n, t) in enumerate(zip(people, said)))
    html = (f"<html><body><div class='entry-content'><p>{'本文です。' * 60}</p></div><div id='comments' "
            f"class='comments'><div class='comments-content'><h3 class='comments-header'>コメント (6)</h3>{blocks}"
            "</div></div></body></html>")
    root = parse_html(html, f"{O}/ltnm/2010/06/mt_2010.html")
    rule = learn_comment_blocks([(root, root.find(".//div[@class='entry-content']"))])
    got = extract_comments(root, rule, f"{O}/ltnm/2010/06/mt_2010.html")
    assert [c["author"] for c in got] == people
    assert [c["content_text"] for c in got] == [t + (" http://tarmac.example/entry-294.html" if i % 2 else "")
                                                for i, t in enumerate(said)]


def test_the_rest_of_a_block_leaves_out_a_line_naming_the_commenter_and_the_day():
    """The block's lines read as its text (no element holds it) leave out its header and the
    date rule's line, and a second line with the commenter's name and the day too ("投稿者: ken |
    DATE" beside "日時: DATE"); a line of the text that gives a day without the name stays."""
    from tasks.learn.comment_nodes import rest_text

    root = parse_html("<html><body><div class='c'><div class='h'>ken:</div><p>We ride again on 12 June 2010.</p>"
                      "<p class='f'>投稿者: ken | <a href='#c1'>2010年06月07日 12:12</a></p>"
                      "<p class='x'>日時: <a href='#c1'>2010年06月07日 12:12</a></p></div></body></html>", f"{O}/p.html")
    block = root.find(".//div[@class='c']")
    got = rest_text(block, {"author": ".//*[@class='h']", "date": ".//p[@class='x']"}, set())
    assert got == "We ride again on 12 June 2010."


def test_the_posts_own_article_is_no_comment_of_it():
    """WordPress posts with no comment, their `body` class "wp-embed-responsive" ("respon", as in
    responses), each `article.post` holding the byline's `fn` and the post's paragraphs around
    the content (a new held-out blog: every post got itself as its one comment, and the rule
    then read none of its 412 comments). Responsive is no response; the article around the
    content is the post."""
    pages = []
    for i in range(8):
        html = (f"<html><body class='single single-post postid-{i} wp-embed-responsive'><div id='page' class='hfeed site'>"
                f"<main id='main'><article id='post-{i}' class='post-{i} post type-post hentry category-reviews'>"
                f"<header><h1 class='entry-title'>Post {i}</h1></header><div class='entry-content'>"
                f"<p>{'The words of post %d, said at some length here. ' % i * 12}</p></div><footer class='entry-footer'>"
                f"<span class='byline'><span class='author vcard'><a class='url fn n' href='/?author=1'>andrew</a></span>"
                f"</span><time class='entry-date published updated' datetime='2020-0{i + 1}-03T10:00:00'>March {i + 3}, "
                f"2020</time></footer></article></main></div></body></html>")
        root = parse_html(html, f"{O}/?p={100 + i}")
        pages.append((root, root.find(".//div[@class='entry-content']")))
    assert learn_comment_blocks(pages) is None


def test_footed_comments_under_a_comments_heading_on_a_post_read_alone():
    """Movable Type 3: each comment a `div#cN` of paragraphs, then its `p.posted` "投稿者 NAME :
    DATE" line, no name element (only some names link a site), blocks named for nothing but
    under `<h2 id="comments">`: on a post read alone the heading calls them comments, and the
    footer line names each (a new blog lost all 156 of its comments)."""
    people = ["yuki", "さちぎく", "HineMosNotari", "佐千菊"]

    def comment(i: int, who: str) -> str:
        name = f"<a href='http://site{i}.example/'>{who}</a>" if i % 2 == 0 else who
        return (f"<div id='c{20 + i}'><p>{who}さん、こんにちは。今日の舞台のお話、とても面白かったです、番号{i}。</p>"
                f"<p>また来ます。</p></div><p class='posted'>投稿者 {name} : 2005年05月0{i + 2}日 1{i}:09</p>")

    html = ("<html><body><div id='container'><div class='content'><h2>2005年04月26日</h2><h3>天保の変化舞踊</h3>"
            + "<p>国立劇場では昨年から、今後復活上演すべき作品の検討を行っております。</p>" * 6
            + "<p class='posted'>投稿者 佐千菊 : 2005年04月26日 10:26</p><h2 id='trackbacks'>トラックバック</h2>"
              "<p class='techstuff'>このエントリーのトラックバックURL: http://s.example/mt-tb.cgi/12</p>"
              "<h2 id='comments'>コメント</h2>" + "".join(comment(i, n) for i, n in enumerate(people))
            + "<h2>コメントしてください</h2><form><input name='author'><textarea></textarea></form></div></div></body></html>")
    url = f"{O}/2005/04/post_80.html"
    root = parse_html(html, url)
    end = root.xpath("//p[@class='posted']")[0]  # the post's own byline: where it ends (workers' post_end)
    rule = learn_comment_blocks([(root, end)])
    assert rule is not None
    got = extract_comments(root, rule, url, url)
    assert [c["author"] for c in got] == people
    assert [c["published"][:10] for c in got] == [f"2005-05-0{i + 2}" for i in range(4)]
    assert all("こんにちは" in c["content_text"] for c in got)
    unmarked = html.replace("<h2 id='comments'>コメント</h2>", "<h2>Sonstiges</h2>")
    root = parse_html(unmarked, url)
    assert learn_comment_blocks([(root, root.xpath("//p[@class='posted']")[0])]) is None  # nothing calls them comments


def test_a_linked_name_s_holder_names_the_commenters_who_left_no_site():
    """The sample posts' commenters all left a site, so each name was a link (`<strong class="fn">
    <a rel="external nofollow">`): the name rule took the link, and on later posts the comments
    of commenters with no site had no name (a new blog: 87 %). The element holding the link and
    nothing else names every commenter."""
    def block(i: int, who: str, site: bool) -> str:
        name = f"<a href='http://s{i}.example/' rel='external nofollow'>{who}</a>" if site else who
        return (f"<li id='comment-{i}' class='comment depth-1'><div class='comment_text'><p>{who} thinks the post "
                f"says something worth a reply, number {i}, and writes it here at some length.</p></div>"
                f"<div class='comment_author vcard'><p><strong class='fn'>{name}</strong></p>"
                f"<p><small>10/06/2005 at 12:0{i} am</small></p></div></li>")

    def page(people, sites, k=9):
        return (f"<html><body><article><div class='entry'>" + f"<p>The post's own words go on here, post {k}.</p>" * 8
                + "</div></article><ol class='commentlist'>"
                + "".join(block(10 * k + i, w, s) for i, (w, s) in enumerate(zip(people, sites))) + "</ol></body></html>")

    sample = [parse_html(page([f"paolo{k}", f"gigi{k}", f"nando{k}"], [True] * 3, k), f"{O}/p{k}/") for k in range(3)]
    rule = learn_comment_blocks([(r, r.xpath("//div[@class='entry']")[0]) for r in sample])
    assert rule is not None
    later = parse_html(page(["paolo", "Carlo Felice", "tammy"], [True, False, False]), f"{O}/later/")
    got = extract_comments(later, rule, f"{O}/later/", f"{O}/later/")
    assert [c["author"] for c in got] == ["paolo", "Carlo Felice", "tammy"]



def test_a_heading_marks_the_blocks_after_it_as_comments_by_its_id_or_class_only():
    """`<h2 id="comments">` over `div#c12` blocks calls them comments; a post's own section
    heading saying "Antworten" or "Discussion" in its words does not (a new blog with no comment
    system got 13 comments from a tutorial's section on a dialog's answers)."""
    from tasks.learn.comment_blocks import _marked

    def first_block(heading: str):
        root = parse_html(f"<html><body><div>{heading}<div id='c12'><p>Some text said here.</p></div></div></body></html>", O)
        return root.xpath("//div[@id='c12']")[0]

    assert _marked(first_block("<h2 id='comments'>コメント</h2>"))
    assert _marked(first_block("<h3 class='comments-title'>3 Responses</h3>"))
    assert not _marked(first_block("<h2>Antworten</h2>"))
    assert not _marked(first_block("<h2>Discussion of the results</h2>"))
