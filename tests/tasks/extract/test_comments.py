"""tasks.extract.comments: comment feeds, the comment rule learned by maximum weighted bipartite
matching, extraction with replies, on small hand-made pages and farm pages."""
from __future__ import annotations

import datetime as dt

import pytest

from tasks.extract.comments import (comment_feed_links, comment_id, comment_page_links, extract_comments, feed_comments,
                            learn_comment_rule, match_comments, merge_comments, similarity)
from tasks.discover.feeds import parse_comment_feed
from tasks.fetch.html import parse_html
from tasks.text.similarity import normalize_text

WORDS = ("harbour lantern orchard ferry teapot compass violin meadow ribbon thunder marble pencil "
         "station village journey kitchen garden library winter shadow").split()


def sentence(i: int, n: int = 14) -> str:
    return " ".join(WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(n)).capitalize() + f" number {i}."


COMMENTS = [{"id": 100 + i, "author": f"Reader {chr(65 + i)}. Person", "text": sentence(i),
             "published": dt.datetime(2014, 3, 1 + i, 10, 5 * i, tzinfo=dt.timezone.utc),
             "parent": (100 + i - 1) if i in (3, 7) else None}  # two replies
            for i in range(10)]


def wp_comment(c, children="") -> str:
    iso = c["published"].isoformat()
    shown = c["published"].strftime("%B %-d, %Y at %-I:%M %p")
    return (f'<li id="comment-{c["id"]}" class="comment {"even" if c["id"] % 2 else "odd"} depth-1">'
            f'<article id="div-comment-{c["id"]}" class="comment-body"><footer class="comment-meta">'
            f'<div class="comment-author vcard"><b class="fn">{c["author"]}</b> <span class="says">says:</span></div>'
            f'<div class="comment-metadata"><a href="#comment-{c["id"]}"><time datetime="{iso}">{shown}</time></a>'
            f'</div></footer><div class="comment-content"><p>{c["text"]}</p></div>'
            f'<div class="reply"><a class="comment-reply-link" href="?replytocom={c["id"]}">Reply</a></div>'
            f'</article>{children}</li>')


def wp_page(comments) -> str:
    by_parent = {}
    for c in comments:
        by_parent.setdefault(c["parent"], []).append(c)

    def tree(parent):
        out = []
        for c in by_parent.get(parent, []):
            kids = tree(c["id"])
            out.append(wp_comment(c, f'<ol class="children">{kids}</ol>' if kids else ""))
        return "".join(out)

    return (f'<html><head><title>Post</title></head><body><div id="page"><article class="post">'
            f'<h1 class="entry-title">A post</h1><div class="entry-content"><p>{sentence(50, 40)}</p>'
            f'<p>{sentence(51, 30)}</p></div></article><div id="comments" class="comments-area">'
            f'<h2>{len(comments)} comments</h2><ol class="comment-list">{tree(None)}</ol></div>'
            f'<aside><ul><li>Recent: {sentence(60, 6)}</li><li>{sentence(61, 6)}</li></ul></aside></div></body></html>')


def feed_of(comments):
    return [{"id": f"http://b.test/p/#comment-{c['id']}", "url": f"http://b.test/p/#comment-{c['id']}",
             "author": c["author"], "published": c["published"].isoformat(), "content_text": c["text"],
             "parent": None} for c in comments]


def test_similarity_is_padded_dice():
    assert similarity("Scheme Scala", "Scheme Scala") == 1.0
    assert similarity("abc", "") == 0.0
    assert 0 < similarity("Rachid", "Richard") < 0.5


def test_matching_is_maximum_weight_not_greedy():
    # greedy would pair "aaaa bbbb" with its best target first and leave the other badly matched
    texts = ["lantern harbour ferry", "lantern harbour"]
    targets = ["lantern harbour", "lantern harbour ferry"]
    score, pairs = match_comments(texts, targets)
    assert sorted((i, j) for i, j, _ in pairs) == [(0, 1), (1, 0)]
    assert score == pytest.approx(1.0)


def test_overflow_rule_learned_from_a_few_feed_comments_extracts_all():
    html = wp_page(COMMENTS)
    root = parse_html(html, "http://b.test/p/")
    feed = feed_of(COMMENTS[-4:])  # the feed lists only the newest four
    rule = learn_comment_rule([root], feed)
    assert rule and rule["matched"] == 4 and rule["score"] > 0.95
    got = extract_comments(root, rule, "http://b.test/p/")
    assert [c["content_text"] for c in got] == [c["text"] for c in COMMENTS]
    assert [c["author"] for c in got] == [c["author"] for c in COMMENTS]
    assert [c["published"] for c in got] == [c["published"].isoformat() for c in COMMENTS]
    # ids are the permalinks (the date's link), as the comment feed names the same comments
    assert [c["id"] for c in got] == [f"http://b.test/p/#comment-{c['id']}" for c in COMMENTS]
    assert [c["parent"] for c in got] == [f"http://b.test/p/#comment-{c['parent']}" if c["parent"] else None
                                          for c in COMMENTS]


def test_rule_is_reused_on_another_post_of_the_blog():
    rule = learn_comment_rule([parse_html(wp_page(COMMENTS[:6]))], feed_of(COMMENTS[:6]))
    other = [dict(c, id=c["id"] + 50, text=sentence(c["id"] + 20), parent=None) for c in COMMENTS[:3]]
    got = extract_comments(parse_html(wp_page(other)), rule, "http://b.test/q/")
    assert [(c["author"], c["content_text"]) for c in got] == [(c["author"], c["text"]) for c in other]


def test_rules_returning_fewer_nodes_than_the_feed_are_dropped():
    # the page shows two comments, the feed five: no rule can match them all
    root = parse_html(wp_page([dict(c, parent=None) for c in COMMENTS[:2]]))
    assert learn_comment_rule([root], feed_of(COMMENTS[:5])) is None


def test_rule_learned_across_comment_pages():
    flat = [dict(c, parent=None) for c in COMMENTS]
    pages = [parse_html(wp_page(flat[k:k + 3]), f"http://b.test/p/comment-page-{k // 3 + 1}/") for k in (0, 3, 6, 9)]
    feed = feed_of(flat[-5:])  # more than any one page shows
    assert learn_comment_rule(pages[:1], feed) is None
    rule = learn_comment_rule(pages, feed)
    got = [c for p in pages for c in extract_comments(p, rule)]
    assert [c["content_text"] for c in got] == [c["text"] for c in flat]


BLOGGER = """<html><body><div class="post"><h3>Post</h3><div class="post-body">{body}</div></div>
<div id="comments"><h4>{n} comments:</h4><dl id="comments-block">{items}</dl></div></body></html>"""


def blogger_page(comments) -> str:
    items = "".join(
        f'<dt class="comment-author" id="c{c["id"]}"><a name="c{c["id"]}"></a>{c["author"]} said...</dt>'
        f'<dd class="comment-body" id="cmt-{c["id"]}"><p>{c["text"]}</p></dd>'
        f'<dd class="comment-footer"><span class="comment-timestamp"><a href="#c{c["id"]}">'
        f'{c["published"].strftime("%B %-d, %Y %-I:%M %p")}</a></span></dd>' for c in comments)
    return BLOGGER.format(body=sentence(70, 40), n=len(comments), items=items)


def test_sibling_run_comments_and_printed_words_around_names():
    root = parse_html(blogger_page(COMMENTS))
    rule = learn_comment_rule([root], feed_of(COMMENTS[:5]))
    got = extract_comments(root, rule, "http://b.test/q.html")
    assert [(c["author"], c["content_text"]) for c in got] == [(c["author"], c["text"]) for c in COMMENTS]
    assert [c["published"][:16] for c in got] == [c["published"].isoformat()[:16] for c in COMMENTS]
    # the permalink sits in the next sibling (the footer) and names the <dt> before the text
    assert [c["id"] for c in got] == [f"http://b.test/q.html#c{c['id']}" for c in COMMENTS]


def test_one_id_per_comment_from_page_and_feed():
    post = "http://b.test/2014/03/p/"
    assert comment_id("http://b.test/2014/03/p/comment-page-3/#comment-7", post) == post + "#comment-7"
    assert comment_id("http://b.test/2014/03/p/?showComment=1394#c7", post) == post + "#c7"
    assert comment_id("#comment-7", post) == post + "#comment-7"
    assert comment_id("http://b.test/2014/03/other/#comment-7", post) == "http://b.test/2014/03/other/#comment-7"
    assert comment_id("tag:blogger.com,1999:blog-1.post-7", None) == "tag:blogger.com,1999:blog-1.post-7"


def test_permalink_to_the_whole_comment_list_is_no_id():
    # every date links to #comments: no comment may take that id, nor share one
    items = "".join(f'<li class="comment"><b class="fn">{c["author"]}</b><a href="#comments"><time datetime="'
                    f'{c["published"].isoformat()}">x</time></a><div class="comment-content">{c["text"]}</div></li>'
                    for c in COMMENTS[:4])
    root = parse_html(f'<html><body><div id="comments"><ol>{items}</ol></div></body></html>', "http://b.test/p/")
    rule = {"container": "//li", "author": ".//b", "date": ".//time", "text": ".//div"}
    got = extract_comments(root, rule, "http://b.test/p/")
    assert len({c["id"] for c in got}) == 4 and not any(c["id"].endswith("#comments") for c in got)
    # ids made from the content, not the position: the same comment alone on another page keeps its id
    alone = parse_html(f'<html><body><div id="comments"><ol>{items.split("</li>")[2]}</li></ol></div></body></html>',
                       "http://b.test/p/comment-page-2/")
    assert extract_comments(alone, rule, "http://b.test/p/comment-page-2/")[0]["id"] == got[2]["id"]


def test_merge_keeps_what_the_page_shows_completes_it_and_keeps_unseen_feed_comments():
    """The page's name wins (Blogger's feed says "Anonymous" where a French page shows "Anonyme");
    the feed gives the exact date, a name the page lacks and a text the page cuts short."""
    page = [{"id": "p#1", "author": "Ann", "published": "2014-03-01", "content_text": sentence(1), "parent": None},
            {"id": "p#2", "author": "Anonyme", "published": "2014-03-02", "content_text": sentence(2), "parent": "p#1"},
            {"id": "p#3", "author": None, "published": None, "content_text": sentence(3)[:len(sentence(3)) * 3 // 4],
             "parent": None}]
    feed = [{"id": "f2", "author": "Anonymous", "published": "2014-03-02T10:00:00+00:00",
             "content_text": sentence(2), "parent": None},
            {"id": "f3", "author": "Cy", "published": "2014-03-03T10:00:00+00:00", "content_text": sentence(3),
             "parent": None},
            {"id": "f9", "author": "Zed", "published": "2014-03-09T10:00:00+00:00", "content_text": sentence(9),
             "parent": None}]
    out = merge_comments(page, feed)
    assert [c["author"] for c in out] == ["Ann", "Anonyme", "Cy", "Zed"]
    assert out[1]["published"] == "2014-03-02T10:00:00+00:00" and out[1]["parent"] == "p#1"
    assert out[2]["content_text"] == sentence(3) and out[2]["published"] == "2014-03-03T10:00:00+00:00"


def test_merge_is_the_same_whatever_share_of_the_comments_the_feed_lists():
    page = [{"id": f"p#comment-{i}", "url": f"p#comment-{i}", "author": f"Reader {i}", "published": None,
             "content_text": f"{sentence(i)} Reply", "parent": None} for i in range(6)]
    feed = [{"id": f"p#comment-{i}", "url": f"p#comment-{i}", "author": f"Reader {i}",
             "published": f"2014-03-0{i + 1}T10:00:00+00:00", "content_text": sentence(i), "parent": None}
            for i in range(6)]
    full = merge_comments(page, feed)
    for k in range(1, 6):  # a feed truncated to the newest k, and one whose texts differ more
        part = merge_comments([c for c in full], feed[-k:])
        assert [(c["id"], c["author"], c["published"], c["content_text"]) for c in part] == \
            [(c["id"], c["author"], c["published"], c["content_text"]) for c in full]
    # a feed comment the page shows under another text (the rule took the wrong element) is one
    # comment by its id, not two
    odd = [dict(page[0], content_text="Reader 0 says: March 1")] + page[1:]
    assert len(merge_comments(odd, feed)) == 6


RSS = """<?xml version="1.0"?><rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"
 xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel><title>Comments on: P</title>
<link>http://b.test/p/</link>{items}</channel></rss>"""


def test_feed_comments_from_a_wordpress_comment_feed():
    items = "".join(f"<item><title>By: {c['author']}</title><link>http://b.test/p/#comment-{c['id']}</link>"
                    f"<dc:creator><![CDATA[{c['author']}]]></dc:creator>"
                    f"<pubDate>{c['published'].strftime('%a, %d %b %Y %H:%M:%S +0000')}</pubDate>"
                    f"<guid>http://b.test/p/#comment-{c['id']}</guid><description>{c['text']}</description></item>"
                    for c in reversed(COMMENTS[:4]))
    out = feed_comments(parse_comment_feed(RSS.format(items=items).encode(), "http://b.test/p/feed/"))
    assert [c["author"] for c in out] == [c["author"] for c in COMMENTS[:4]]  # oldest first
    assert out[0]["published"] == COMMENTS[0]["published"].isoformat()
    assert out[0]["content_text"] == normalize_text(COMMENTS[0]["text"])


def test_comment_page_and_feed_links():
    html = """<html><head><link rel="alternate" type="application/rss+xml" title="Blog &raquo; P Comments Feed"
    href="http://b.test/2014/03/p/feed/"><link rel="alternate" type="application/rss+xml" title="Blog"
    href="http://b.test/feed/"></head><body>
    <a href="http://b.test/2014/03/p/comment-page-2/#comments">Newer comments</a>
    <a href="http://b.test/2014/03/p/?replytocom=5#respond">Reply</a>
    <a href="http://b.test/2014/03/other/comment-page-2/">other post</a></body></html>"""
    root = parse_html(html, "http://b.test/2014/03/p/")
    assert comment_page_links(root, "http://b.test/2014/03/p/") == ["http://b.test/2014/03/p/comment-page-2/"]
    assert comment_feed_links(root, "http://b.test/2014/03/p/") == ["http://b.test/2014/03/p/feed/"]


def test_farm_wordpress_overflow_across_comment_pages():
    wordpress = pytest.importorskip("tests.farm.wordpress")
    blog = wordpress.WordPress(seed=3, n_posts=12)
    o = "http://127.0.0.1:9"
    post = max(blog.posts, key=lambda p: len(p.comments))
    pages, queue, seen = [], [o + post.path], set()
    while queue:
        u = queue.pop(0)
        if u in seen:
            continue
        seen.add(u)
        root = parse_html(blog.render(u[len(o):], o).encoded(), u)
        pages.append((u, root))
        queue += comment_page_links(root, u)
    feed_url = comment_feed_links(pages[0][1], o + post.path)[0]
    feed = feed_comments(parse_comment_feed(blog.render(feed_url[len(o):], o).encoded(), feed_url))
    assert len(feed) < len(post.comments)  # an overflowing feed
    rule = learn_comment_rule([r for _, r in pages], feed)
    got = {(c["author"], c["content_text"], c["published"]) for u, r in pages for c in extract_comments(r, rule, u)}
    truth = {(c.author, normalize_text(c.text), c.published.isoformat()) for c in post.comments}
    assert got == truth


_TWO = """<html><body><div id="main"><article><div class="entry">
<p>The post says something.</p><ul><li>a list item of the post itself</li><li>and another one</li></ul></div>
<ol class="commentlist">
<li class="comment" id="li-comment-1"><div class="comment-body"><div class="comment-meta"><cite class="fn">Harald</cite><br>
<a href="#comment-1">oktober 31, 2012, kl. 6:17 pm</a></div>
<p>If one looks past a single budget period, some groups are a fine investment.</p>
<p>In 2011 the country's economists wrote a report everyone should read.</p></div></li>
<li class="comment" id="li-comment-2"><div class="comment-body"><div class="comment-meta"><cite class="fn">Lars</cite><br>
<a href="#comment-2">oktober 31, 2012, kl. 7:23 pm</a></div>
<p>Yes, I agree in principle, but the only figures the council gives say otherwise.</p></div></li>
</ol></article></div></body></html>"""
_TWO_FEED = [
    {"author": "Harald", "published": "2012-10-31T17:17:08+00:00",
     "content_text": "If one looks past a single budget period, some groups are a fine investment. "
                     "In 2011 the country's economists wrote a report everyone should read."},
    {"author": "Lars", "published": "2012-10-31T18:23:49+00:00",
     "content_text": "In reply to Harald. Yes, I agree in principle, but the only figures the council gives say otherwise."}]


def test_a_reading_of_whole_blocks_without_names_scores_below_one_of_the_parts():
    """Held-out kamfjord-nb: on a sample post of two comments (the first of two paragraphs, the
    second prefixed by the feed's "In reply to"), a rule may read each comment's whole block, name
    and date in its text, and no name; the blog's repeated blocks read name, date and text. The
    reading that agrees best with the feed is the one to keep (workers.extract.comments._best_reading)."""
    from tasks.extract.comments import reading_score
    root = parse_html(_TWO)
    url = "http://blog.example/2012/10/31/post/"
    parts = {"container": "//div[@class='comment-body']", "author": ".//cite", "date": ".//div[@class='comment-meta']/a",
             "text": "./p", "text_all": True, "source": "blocks"}
    by_parts = extract_comments(root, parts, url, url)
    whole = {"container": "//*[@id='main']//li", "author": None, "date": None, "text": "."}
    by_whole = extract_comments(root, whole, url, url)
    assert [c["author"] for c in by_parts] == ["Harald", "Lars"]
    assert reading_score(by_parts, _TWO_FEED) > reading_score(by_whole, _TWO_FEED)
    # extra comments the feed does not hold (the post's own list items) cost a point each
    assert reading_score(by_whole, _TWO_FEED) < 0.5 * reading_score(by_parts, _TWO_FEED)
    assert reading_score([], _TWO_FEED) == 0 and reading_score(by_parts, []) == 0


def test_page_comments_older_than_the_feed_are_not_held_against_a_reading():
    """A comment feed holds the newest comments (WordPress: the last ten); the page shows them
    all. The older ones the page shows are no misreading: the reading that finds every comment
    of a truncated feed reads it as well as a complete one (issue 33). An extra comment newer
    than the feed's oldest, or undated, still costs its point."""
    from tasks.extract.comments import reading_score

    def comment(i, day):
        return {"author": f"Reader {i}", "published": f"2014-11-{day:02d}T10:00:00+02:00",
                "content_text": f"Comment number {i} says something of its own about the harbour, {i} times over."}

    page = [comment(i, 10 + i) for i in range(1, 11)]  # ten comments, oldest first
    feed = [dict(c, published=c["published"].replace("+02:00", "+00:00")) for c in page[6:]]  # the newest four
    assert reading_score(page, feed, known=10) == reading_score(page[6:], feed) == 2.0
    # only where the post is known to have as many as were read (its entry's count, its page's)
    assert reading_score(page, feed) == reading_score(page, feed, known=11) == 2.0 - 6 / len(feed)
    stray = dict(comment(99, 19), content_text="A block of the theme that is no comment at all, read as one.")
    assert reading_score(page + [stray], feed, known=11) == 2.0 - 1 / len(feed)  # newer than the feed's oldest
    assert reading_score(page + [dict(stray, published=None)], feed, known=11) == 2.0 - 1 / len(feed)  # undated


def test_a_comment_of_several_paragraphs_is_read_whole_by_a_feed_learned_rule():
    """whizzy: each comment's text is several <p>; the rule learned on the feed read the first
    ("Hi there,"), which then did not pair with the feed's whole text: the comment came out twice."""
    said = [("Pascal", ["Hi there,", "I encounter exactly the same issue. Is this resolved?", "Cheers. Pascal"]),
            ("Will", ["Hello Pascal,", "It was the DNS lookup of the client; turning HostnameLookups off fixed it."]),
            ("Ann", ["Thanks,", "this helped me with the same twenty second lag on my own server too."])]
    items = "".join(f"<li class='comment' id='comment-{i}'><article class='comment-body'><footer><b class='fn'>{n}</b>"
                    f"<time datetime='2019-04-1{i}T19:15:23+00:00'>April 1{i}, 2019</time></footer>"
                    f"{''.join(f'<p>{p}</p>' for p in ps)}</article></li>"
                    for i, (n, ps) in enumerate(said))
    url = "http://blog.example/2016/10/13/apache-lag/"
    root = parse_html(f"<html><body><article><p>{'The post. ' * 30}</p></article><ol>{items}</ol></body></html>", url)
    feed = [{"author": n, "published": f"2019-04-1{i}T19:15:23+00:00", "content_text": " ".join(ps)}
            for i, (n, ps) in enumerate(said)]
    rule = learn_comment_rule([root], feed)
    assert rule and rule.get("text_all")  # the paragraphs are the article's own: no element holds them all
    got = extract_comments(root, rule, url, url)
    assert [c["content_text"] for c in got] == [" ".join(ps) for _, ps in said]
    assert len(merge_comments(got, feed)) == 3
