"""The comment blocks found by structure alone (tasks.learn.comment_blocks), on post pages in
the markup of real themes (tests/tasks/learn/comment_themes.py) and on saved pages of real
blogs: every comment with its name only and its whole text, threads kept, and nothing from a
related-posts list, a tag cloud or a sidebar of recent comments."""
from __future__ import annotations

import json

import pytest

from tasks.extract.comments import extract_comments
from tasks.fetch.html import node_text, parse_html
from tasks.learn.comment_blocks import learn_comment_blocks, theme_texts
from tasks.text.similarity import dice, normalize_text
from tests.tasks.learn import comment_themes as themes


def _content(root):
    return root.find(".//div[@class='entry-content']")


def _pages(posts):
    return [(parse_html(p["html"], p["url"]), p) for p in posts]


def _same(got: dict, want: dict) -> bool:
    return got["author"] == want["author"] and \
        dice(normalize_text(got["content_text"]), normalize_text(" ".join(want["paras"]))) > 0.9


def _check_post(root, post, rule) -> None:
    got = extract_comments(root, rule, post["url"])
    want = post["comments"]
    assert len(got) == len(want), (post["url"], [(c["author"], c["content_text"][:30]) for c in got])
    by_id = {c["id"]: c for c in got}
    for w in want:
        match = [c for c in got if _same(c, w)]
        assert match, (post["url"], w)
        if w["parent"] is None:
            assert any(c["parent"] is None for c in match)
        else:
            parents = [by_id.get(c["parent"]) for c in match]
            assert any(p is not None and _same(p, want[w["parent"]]) for p in parents), (post["url"], w)


@pytest.mark.parametrize("theme", sorted(themes.THEMES))
def test_a_rule_from_a_few_posts_reads_every_post(theme):
    posts = themes.blog(theme, posts=12, seed=7)
    pages = _pages(posts)
    rule = learn_comment_blocks([(root, _content(root)) for root, _ in pages[:5]])
    assert rule and rule["author"] and rule["text"], rule
    assert rule["date"] is None if theme in ("wp27-ja", "blogger-classic-en") else rule["date"]  # no date shown
    for root, post in pages:
        _check_post(root, post, rule)


@pytest.mark.parametrize("theme", sorted(themes.THEMES))
def test_one_post_alone_is_enough(theme):
    posts = themes.blog(theme, counts=[4, 3], seed=3)
    for root, post in _pages(posts):
        rule = learn_comment_blocks([(root, _content(root))])
        _check_post(root, post, rule)


@pytest.mark.parametrize("theme", sorted(themes.THEMES))
def test_posts_without_comments_give_none(theme):
    """The related posts (a title and an excerpt), the tag cloud and the recent comments in the
    sidebar (a name and a linked excerpt) are no comments, on one post or on several."""
    pages = _pages(themes.blog(theme, counts=[0, 0, 0, 0], seed=5))
    assert learn_comment_blocks([(root, _content(root)) for root, _ in pages]) is None
    for root, _ in pages:
        assert learn_comment_blocks([(root, _content(root))]) is None
        assert learn_comment_blocks([(root, None)]) is None


def test_names_without_reply_notes_and_threads_from_them(shared_dir):
    """yasoob (Hugo + Staticman): a reply's name node also says "In reply to X" under a <br>;
    the name is the first line, and the note makes the thread."""
    blog = shared_dir / "eval" / "blogs" / "yasoob"
    truth = {json.loads(line)["path"]: json.loads(line) for line in open(blog / "truth.jsonl", encoding="utf-8")}
    paths = [p for p, t in truth.items() if len(t["comments"]) >= 4][:4]
    pages = []
    for p in paths:
        root = parse_html((blog / "site" / p).read_bytes(), "http://yasoob.me/" + p.removesuffix("index.html"))
        pages.append((root, root.find(".//*[@itemprop='articleBody']")))
    rule = learn_comment_blocks(pages)
    assert rule
    replies = 0
    for (root, _), p in zip(pages, paths):
        got = extract_comments(root, rule, "http://yasoob.me/" + p.removesuffix("index.html"))
        assert [c["author"] for c in got] == [c["author"] for c in truth[p]["comments"]]
        assert all(dice(normalize_text(c["content_text"]), normalize_text(t["content_text"])) > 0.9
                   for c, t in zip(got, truth[p]["comments"]))
        by_id = {c["id"]: c for c in got}
        for c in got:
            if c["parent"]:
                replies += 1
                assert by_id[c["parent"]]["author"] != c["author"]
    assert replies >= 3


def test_a_blog_without_comments_gives_none(shared_dir):
    blog = shared_dir / "eval" / "blogs" / "lilianweng"
    paths = [line.strip() for line in open(blog / "posts.txt", encoding="utf-8")][:6]
    pages = [parse_html((blog / "site" / p).read_bytes(), "https://lilianweng.github.io/" + p) for p in paths]
    assert learn_comment_blocks([(r, None) for r in pages]) is None
    for r in pages:
        assert learn_comment_blocks([(r, None)]) is None


REPRINT = """<div class="reprint" id="reprint-statement">
<div class="reprint__author"><span class="reprint-meta"><i>{a}:</i></span><span class="reprint-info"><a href="/about">blinkfox</a></span></div>
<div class="reprint__type"><span class="reprint-meta"><i>{l}:</i></span><span class="reprint-info"><a href="{url}">{url}</a></span></div>
<div class="reprint__notice"><span class="reprint-meta"><i>{c}:</i></span><span class="reprint-info">本博客所有文章除特別声明外，均采用
<a href="https://creativecommons.org/licenses/by/4.0/deed.zh">CC BY 4.0</a> 许可协议。转载请注明来源 <a href="/about">blinkfox</a> !</span></div>
</div>"""


def _reprint_post(i: int) -> tuple:
    url = f"https://blinkfox.github.io/2018/09/{10 + i}/post-{i}/"
    page = (f'<html><body><article><h1>Post {i}</h1><div class="post-body"><p>{"正文内容。" * (20 + i)}</p></div><hr/>'
            + REPRINT.format(a="文章作者", l="文章链接", c="版权声明", url=url)
            + '</article><footer><p>© 2018 blinkfox</p></footer></body></html>')
    root = parse_html(page, url)
    return root, root.find(".//div[@class='post-body']")


def test_a_box_of_labelled_rows_is_no_list_of_comments():
    """A Hexo theme's reprint box after every post (author, link, licence: a label and a value
    each) is one box of rows of three kinds, and the same on every post."""
    pages = [_reprint_post(i) for i in range(4)]
    assert learn_comment_blocks(pages) is None
    assert learn_comment_blocks(pages[:1]) is None
    theme = theme_texts(pages[1:])
    assert theme and learn_comment_blocks(pages[:1], theme=theme) is None
