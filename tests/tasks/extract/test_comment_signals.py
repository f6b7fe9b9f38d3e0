"""tasks.extract.comment_signals: the hints a page as served gives of comments a script adds,
on farm pages (an unknown widget, comments in the markup, a page with unrelated scripts)."""
from __future__ import annotations

from tasks.extract.comment_signals import more_controls, script_signals, shown_count
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
    assert any("comments shown" in s for s in signals) and any("scripts" in s for s in signals)
    assert shown_count(parse_html(html)) == len(p.comments)


def test_markup_comments_give_no_hint():
    html, _ = _page("threaded", lang="fr")
    assert script_signals(html) == []


def test_unrelated_scripts_are_a_hint_but_not_a_count():
    html, _ = _page("threaded", lang="es", decoys=True)
    signals = script_signals(html)
    assert signals and not any("comments shown" in s for s in signals)


def test_load_more_controls_by_what_they_say():
    html = ('<main><article><p>post</p></article><div class="xz-root"><div class="xz-stream"></div>'
            '<span class="xz-next" role="button">Mehr …</span><button class="xz-reply">Antworten</button>'
            '<a class="pager" href="#">Afficher plus</a></div></main>')
    assert more_controls(html) == ["span.xz-next", "a.pager"]
    assert script_signals(html)


def test_a_parsed_root_with_its_markup_gives_every_hint():
    """A page parsed once (tasks.fetch.page.Page) gives its root and its markup: the scripts,
    which the parse drops, are read from the markup."""
    html, _ = _page("widget", lang="de")
    root = parse_html(html)
    assert script_signals(root, raw=html) == script_signals(html)
    assert not any("scripts" in s for s in script_signals(root))
