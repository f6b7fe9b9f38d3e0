"""tasks.extract.comment_signals: the signs a page as served gives of comments a script adds,
on farm pages (an unknown widget, comments in the markup, a page with unrelated scripts) and
on markup of the kinds real blogs serve (a paginated thread, a comment form, a table of
contents, data blocks)."""
from __future__ import annotations

import pytest

from tasks.extract.comment_signals import comment_area_words, more_controls, script_signals, shown_count
from tasks.fetch.html import parse_html
from tests.farm import make_blog

O = "http://127.0.0.1:9"


def _page(family, **kw):
    blog = make_blog(family, 3, 12, **kw)
    p = next(p for p in blog.newest if len(p.comments) > 1)
    return blog.render(p.path, O).body, p


def test_widget_page_hints_at_script_comments():
    html, p = _page("widget", lang="de")
    signals = script_signals(html)
    assert any("comments shown" in s for s in signals) and any("filled from data-src" in s for s in signals)
    assert shown_count(parse_html(html)) == len(p.comments)


def test_markup_comments_give_no_hint():
    html, _ = _page("threaded", lang="fr")
    assert script_signals(html) == []


def test_unrelated_scripts_and_frames_are_no_sign():
    html, _ = _page("threaded", lang="es", decoys=True)
    assert "<script" in html and "<iframe" in html
    assert script_signals(html) == []


def test_load_more_controls_by_what_they_say():
    html = ('<main><article><p>post</p></article><div class="xz-root"><div class="xz-stream"></div>'
            '<span class="xz-next" role="button">Mehr …</span><button class="xz-reply">Antworten</button>'
            '<a class="pager" href="#">Afficher plus</a></div></main>')
    assert more_controls(html) == ["span.xz-next", "a.pager"]
    assert script_signals(html) == []  # nothing on the page runs: the controls load nothing
    assert script_signals(html + '<script src="/w.js"></script>')


def test_a_parsed_root_with_its_markup_gives_every_hint():
    """A page parsed once (tasks.fetch.page.Page) gives its root and its markup: the scripts,
    which the parse drops, are read from the markup."""
    html, _ = _page("widget", lang="de")
    root = parse_html(html)
    assert script_signals(root, raw=html) == script_signals(html)
    frame = '<iframe src="/embed/thread.html" title="Comments"></iframe><script src="/w.js"></script>'
    page = html.replace("</main>", frame + "</main>")
    assert any("frame named for comments" in s for s in script_signals(parse_html(page), raw=page))
    assert not any("frame" in s for s in script_signals(parse_html(page)))  # a root alone: no frames looked at


SCRIPTS = ('<script src="/wp-includes/js/jquery.js"></script><script src="/wp-includes/js/comment-reply.min.js">'
           '</script><script type="application/ld+json">{"@type": "BlogPosting"}</script>')


def _post(after: str, head: str = SCRIPTS) -> str:
    return (f"<html><head>{head}</head><body><main><article><h1>Post</h1><div class='entry-content'><p>"
            f"{'word ' * 80}</p></div></article>{after}</main></body></html>")


def _comment(i: int) -> str:
    return (f'<li id="comment-{i}" class="comment"><article class="comment-body"><b class="fn">Reader {i}</b>'
            f'<div class="comment-content"><p>Comment number {i} says something about the post.</p></div>'
            f'</article></li>')


def test_a_thread_continued_on_linked_pages_and_a_comment_form_are_no_sign():
    """A count above the comments in the page is no sign when the page links to the next page
    of them (served, no script needed); the comment form's empty textarea is no container."""
    url = "http://blog.example/2020/01/02/post/"
    thread = (f'<div id="comments" class="comments-area"><h2 class="comments-title">9 Comments</h2>'
              f'<ol class="comment-list">{"".join(_comment(i) for i in range(5))}</ol>'
              f'<nav class="comment-navigation"><a href="{url}comment-page-2/#comments">Newer</a></nav>'
              f'<div id="respond" class="comment-respond"><form><textarea id="comment" name="comment"></textarea>'
              f'</form></div></div>')
    assert script_signals(_post(thread), url=url) == []
    unlinked = thread.replace(f'{url}comment-page-2/#comments', "http://elsewhere.example/")
    assert any("9 comments shown" in s for s in script_signals(_post(unlinked), url=url))
    query = thread.replace(f'{url}comment-page-2/#comments', "/?p=12&cpage=2#comments")
    assert script_signals(_post(query), url=url) == []


def test_an_empty_widget_mount_and_a_noscript_about_comments_are_signs():
    page = _post('<section><h2>Comments</h2><div id="thread_mount"></div>'
                 '<noscript>Please enable JavaScript to view the comments.</noscript></section>')
    signals = script_signals(page)
    assert any("empty comment container" in s for s in signals) and any("noscript" in s for s in signals)


def test_a_page_without_scripts_or_with_data_blocks_only_gives_no_sign():
    page = _post('<div id="comments"></div>', head='<script type="application/ld+json">{}</script>')
    assert script_signals(page) == []
    assert script_signals(page.replace("</head>", "<script>load()</script></head>"))


def test_a_table_of_contents_link_saying_more_is_no_control():
    toc = '<ul class="toc"><li><a href="#more-layers">The Benefit of More Hidden Layers</a></li></ul>'
    page = _post("", head=SCRIPTS).replace("<article>", "<article>" + toc).replace(
        "<p>", '<h2 id="more-layers">The Benefit of More Hidden Layers</h2><p>', 1)
    assert script_signals(page) == []
    assert script_signals(page.replace('href="#more-layers"', 'href="#"'))  # a link that goes nowhere: a control


def test_comment_area_words_count_what_is_drawn_into_the_comments_only():
    """One comment shown and in the page: rendering that adds a cookie notice and a sidebar
    widget adds nothing to the comments; a comment a script draws into them does."""
    page = ("<html><body><div class='responsive-wrap'><article><p>Post text here.</p></article>"
            "<div id='comments'><h4>1 comentario</h4><ol class='comment-list'><li><cite>Ana</cite>"
            "<p>Que bonito dia en el parque</p></li></ol>{more}"
            "<form><label>Publicar un comentario</label><textarea></textarea></form></div>{outside}"
            "</div></body></html>")
    served = parse_html(page.format(more="", outside=""))
    banner = parse_html(page.format(more="", outside="<div class='cookies'>" + "Este sitio utiliza cookies " * 10 + "</div>"))
    drawn = parse_html(page.format(more="<ol><li><cite>Luis</cite><p>" + "otra respuesta larga " * 8 + "</p></li></ol>", outside=""))
    assert comment_area_words(served) == comment_area_words(banner) == 9
    assert comment_area_words(drawn) - comment_area_words(served) == 25


@pytest.mark.parametrize("line,n", [("6 komentarzy", 6), ("3 yorum", 3), ("5 комментариев", 5), ("12 σχόλια", 12),
                                    ("2 条评论", 2), ("4 Kommentare", 4), ("Leave a reply", 0),
                                    ("Kommentare (5)", 5), ("Comments [3]", 3), ("Trackbacks (2)", 0),
                                    ("Comments: 1200", 0)])
def test_a_comment_count_is_read_in_many_languages(line, n):
    """The count a post prints orders the posts a blog without comment counts in its feed
    learns its comment blocks on (held-out Polish blog: its newest posts, the pseudo feed's,
    had few comments, and none was chosen for the count it printed)."""
    assert shown_count(parse_html(f"<html><body><h2 class='widgettitle'><span>{line}</span></h2></body></html>")) == n
