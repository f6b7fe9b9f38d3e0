"""tasks/learn/template_blocks.py, link_slots.py and shared_blocks.py: what a container around
the post holds on every page beside the post, told on training pages and cut from each post."""
from tasks.fetch.html import block_text, parse_html
from tasks.learn.link_slots import link_slots, without_link_slots
from tasks.learn.rules import apply_rule
from tasks.learn.shared_blocks import without_shared_blocks
from tasks.learn.template_blocks import template_blocks, without_template

WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu".split()


def _post(i: int, tags: bool = True) -> str:
    body = " ".join(WORDS[(i + k) % len(WORDS)] for k in range(40))
    return f"""<html><body><div id="cn">
<div><p>This blog is no longer updated. Read the last post</p></div>
<h2>Post {i}</h2><p>{body}.</p><p>Second paragraph of post {i}, its own words.</p>
{f'<p class="tag">Tags: <a href="/t/{i}">topic{i}</a>, <a href="/t/x{i}">other{i}</a></p>' if tags else ''}
<div id="see"><h3>See also these posts</h3><ul><li><a href="/p/{i + 1}">Post number {i + 1}</a></li>
<li><a href="/p/{i + 2}">Post number {i + 2}</a></li></ul></div>
<p>Comments are closed since 2009.</p></div>
<div id="side"><p>About me: I write this blog about many things.</p></div></body></html>"""


def _nodes(n: int) -> list:
    return [apply_rule(parse_html(_post(i), f"http://b.test/{i}"), "//*[@id='cn']")[0] for i in range(n)]


def test_the_blocks_every_post_holds_are_cut_and_the_posts_words_stay():
    nodes = _nodes(6)
    template = template_blocks(nodes)
    assert "this blog is no longer updated. read the last post" in template
    assert "comments are closed since 2009." in template
    text = block_text(without_template(nodes[0], template))
    assert "no longer updated" not in text and "Comments are closed" not in text
    assert "Second paragraph of post 0" in text and "alpha beta" in text


def test_lines_of_links_in_the_same_place_are_cut_where_they_are_links():
    nodes = _nodes(6)
    slots = link_slots(nodes)
    assert set(slots) == {"p.tag", "div#see"}
    text = block_text(without_link_slots(nodes[1], slots))
    assert "topic1" not in text and "Post number 2" not in text and "Second paragraph of post 1" in text
    # a post whose element of that place is prose this time keeps it
    prose = parse_html(_post(9).replace('<p class="tag">Tags:', '<p class="tag">A long sentence of the post that'
                                                                 ' the author wrote himself, with one link:'),
                       "http://b.test/9")
    node = apply_rule(prose, "//*[@id='cn']")[0]
    assert "A long sentence" in block_text(without_link_slots(node, slots))


def test_too_few_pages_tell_nothing():
    assert template_blocks(_nodes(3)) == [] and link_slots(_nodes(3)) == []


def test_a_block_most_pseudo_targets_share_leaves_every_target():
    targets = [f"<div><p>Post {i} says {' '.join(WORDS[i:i + 6])} and more of its own.</p>"
               f"<p>About me: I write this blog about many things.</p></div>" for i in range(5)]
    out = without_shared_blocks(targets)
    assert all("About me" not in t for t in out)
    assert all(f"Post {i} says" in t for i, t in enumerate(out))
    assert without_shared_blocks(targets[:3]) == targets[:3]  # too few to tell


def test_without_a_feed_only_the_blocks_above_the_posts_title_are_the_templates():
    """A newsletter's every issue ends "send us a pull request!": without a feed to say those are
    the post's words, only what stands above the post's title is told the template's."""
    pages = [parse_html(_post(i), f"http://b.test/{i}") for i in range(6)]
    nodes = [apply_rule(r, "//*[@id='cn']")[0] for r in pages]
    titles = [apply_rule(r, "//*[@id='cn']/h2")[0] for r in pages]
    assert template_blocks(nodes, titles) == ["this blog is no longer updated. read the last post"]
    assert template_blocks(nodes, [None] * 6) == []


def test_the_comment_sections_heading_and_closing_note_go_with_it():
    from tasks.extract.content_comments import content_without_comments

    html = ("<html><body><div id='cn'><h2>Post</h2><p>" + "The post's own words. " * 20 + "</p>"
            "<h3 id='comments'>Comments on this post</h3><ul id='cml'>"
            + "".join(f"<li id='comment-{i}'><cite>Name{i}</cite><p>Comment {i} says this.</p></li>" for i in range(3))
            + "</ul><p>Comments are closed since 2009.</p></div></body></html>")
    node = apply_rule(parse_html(html, "http://b.test/p"), "//*[@id='cn']")[0]
    text, _ = content_without_comments(node, "//ul[@id='cml']/li")
    assert "The post's own words." in text
    assert "Comments on this post" not in text and "Comment 1" not in text and "closed" not in text
