"""Candidate posts from a blog's own links: shape groups with title-like anchors first."""
from __future__ import annotations

import pytest

from tasks.discover.candidates import listing_links, page_links, rank_candidates, url_scheme, url_shape
from tasks.fetch.html import parse_html
from tests.farm import make_blog

O = "http://127.0.0.1:9"


def test_url_shape():
    assert url_shape("http://b/2014/03/a-post/") == "/<4d>/<2d>/<slug>/"
    assert url_shape("http://b/?p=105") == "/?p=<n>"
    assert url_shape("http://b/tags/python/") == "/tags/<word>/"


@pytest.mark.parametrize("family", ["wordpress", "blogger", "static"])
@pytest.mark.parametrize("seed", [1, 5])
def test_home_page_posts_rank_first(family, seed):
    blog = make_blog(family, seed, 30)
    root = parse_html(blog.render("/", O).body, O + "/")
    links = page_links(root, O + "/", O + "/")
    ranked = rank_candidates(links)
    posts = {O + p.path for p in blog.posts}
    on_home = [u for u, _, _ in links if u in posts]
    assert on_home and set(ranked[:len(on_home)]) == set(on_home)
    # and the home page leads to more listings
    assert listing_links(links)


def test_extra_urls_join_their_shape_group_and_known_shapes_lead():
    links = [("http://b/about/", "About", False), ("http://b/2014/03/one-post/", "One post here", False)]
    ranked = rank_candidates(links, known=["http://b/2013/01/old-post/"], extra=["http://b/2012/05/from-sitemap/"])
    assert ranked[:2] == ["http://b/2014/03/one-post/", "http://b/2012/05/from-sitemap/"]


def test_feed_section_names_where_the_blog_is():
    from tasks.discover.candidates import feed_section

    home = "http://x/"
    assert feed_section(["http://x/blog/rss.xml"], home) == "http://x/blog/"
    assert feed_section(["http://x/blog/feed/"], home) == "http://x/blog/"
    for whole_site in ("http://x/feed/", "http://x/index.xml", "http://x/feeds/posts/default", "http://x/?feed=rss2"):
        assert feed_section([whole_site], home) is None


def test_navigation_links_are_the_menus_not_a_post_list():
    from tasks.discover.candidates import navigation_links

    posts = "".join(f"<li><a href='/2014/03/post-{i}/'>Post {i}</a></li>" for i in range(80))
    root = parse_html("<html><body><header><nav><a href='/about/'>About</a><a href='/cv'>CV</a></nav></header>"
                      f"<nav class='menu'><ul>{posts}</ul></nav><main><a href='/2014/03/a/'>A</a>"
                      "<article><header class='entry-header'><a href='/2014/03/b/'>B</a></header></article>"
                      "<nav class='paging-navigation'><a href='/page/2/'>Older</a></nav></main>"
                      "</body></html>", "https://b.test/")
    assert navigation_links(root, "https://b.test/") == {"https://b.test/about/", "https://b.test/cv"}


def test_navigation_links_take_a_block_named_nav_not_a_word_holding_nav():
    from tasks.discover.candidates import navigation_links

    root = parse_html("<html><body><div id='header-wrapper'><div id='nav'><ul>"
                      "<li><a href='/'>Home</a></li><li><a href='/uber-mich/'>Über mich</a></li>"
                      "<li><a href='/kontakt/'>Kontakt</a></li></ul></div></div>"
                      "<div class='canvas'><a href='/2010/11/erste-woche/'>Erste Woche</a></div>"
                      "<div class='unavailable'><a href='/2010/11/woche-4/'>Woche 4</a></div></body></html>",
                      "https://b.test/")
    assert navigation_links(root, "https://b.test/") == {"https://b.test/", "https://b.test/uber-mich/",
                                                         "https://b.test/kontakt/"}


def test_a_short_list_of_links_to_the_home_page_and_others_is_a_menu_whatever_its_name():
    """A sidebar widget "Home · The authors · Why" named by nothing is the site's menu; a list of
    posts without a link home, or a long one, is not."""
    from tasks.discover.candidates import navigation_links

    posts = "".join(f"<li><a href='/2011/0{i}/post-{i}.html'>Post {i}</a></li>" for i in range(1, 6))
    root = parse_html("<html><body><div class='widget HTML'><h2>More</h2><ul><li><a href='https://b.test/'>Home"
                      "</a></li><li><a href='p/authors.html'>The authors</a></li><li><a href='p/why.html'>Why</a>"
                      f"</li></ul></div><div class='widget Recent'><ul>{posts}</ul></div></body></html>",
                      "https://b.test/")
    assert navigation_links(root, "https://b.test/") == {"https://b.test/", "https://b.test/p/authors.html",
                                                         "https://b.test/p/why.html"}


def test_declared_permalink_is_the_posts_comment_feed_not_the_blogs():
    """A page declares the blog's comment feed (/comments/feed/, which the home page declares too)
    before its own: the blog's names no post, so every page does not collapse into /comments/."""
    from tasks.discover.candidates import comment_feeds, declared_permalink

    head = ("<link rel='alternate' type='application/rss+xml' title='Blog &raquo; Feed' href='/feed/'>"
            "<link rel='alternate' type='application/rss+xml' title='Blog &raquo; Kommentar-Feed' href='/comments/feed/'>")
    home = parse_html(f"<html><head>{head}</head><body><p>home</p></body></html>", "https://b.test/")
    page = parse_html(f"<html><head>{head}<link rel='alternate' type='application/rss+xml' "
                      "title='Blog &raquo; Erste Woche Kommentar-Feed' href='/2010/11/erste-woche/feed/'>"
                      "</head><body><p>post</p></body></html>", "https://b.test/?p=69")
    site = frozenset(comment_feeds(home, "https://b.test/"))
    assert site == {"https://b.test/comments/feed/"}
    assert declared_permalink(page, "https://b.test/?p=69", "https://b.test/", site) == \
        "https://b.test/2010/11/erste-woche/"
    # without knowing the blog's feeds, the first one a page declares is taken (as before)
    assert declared_permalink(page, "https://b.test/?p=69", "https://b.test/") == "https://b.test/comments/"
    # a page that declares only the blog's comment feed names no permalink
    assert declared_permalink(home, "https://b.test/uber-mich/", "https://b.test/", site) is None


def test_a_landing_pages_link_to_blog_html_leads_to_the_listing():
    """A hand-made landing page that links the blog's home as /blog.html (beside one post): that
    page is read for candidates, as /blog/ would be."""
    links = [("http://b/blog.html", "Blog", False), ("http://b/2010/12/sitemap.html", "Sitemap", False),
             ("http://b/blogging-tips.html", "Tips", False)]
    assert listing_links(links) == ["http://b/blog.html"]


_LISTING_HOME = """<html><body>
<nav class="navbar"><a class="navbar-item" href="/about/">About</a> <a class="navbar-item" href="/my-projects/">Projects</a></nav>
<main>
 <div class="card"><h2 class="item-title"><a class="item-link" href="/first-post/">First post</a></h2>
   <a class="tag" href="/tag/misc/">#misc</a></div>
 <div class="card"><h2 class="item-title"><a class="item-link" href="/my-projects/">My projects</a></h2>
   <a class="tag" href="/tag/misc/">#misc</a></div>
 <div class="card"><h2 class="item-title"><a class="item-link" href="/second-post/">Second post</a></h2></div>
 <div class="card"><h2 class="item-title"><a class="item-link" href="/third-post/">Third post</a></h2></div>
</main></body></html>"""


def test_listed_links_a_menu_page_the_listing_lists_too():
    from tasks.discover.candidates import listed_links, navigation_links
    from tasks.fetch.html import parse_html

    root = parse_html(_LISTING_HOME, "https://blog.test/")
    posts = {"https://blog.test/first-post/", "https://blog.test/second-post/", "https://blog.test/third-post/"}
    listed = listed_links(root, "https://blog.test/", lambda u: u in posts)
    assert "https://blog.test/my-projects/" in listed  # in the listing's slot beside the posts
    assert posts <= listed
    assert "https://blog.test/about/" not in listed  # the menu only
    assert navigation_links(root, "https://blog.test/") - listed == {"https://blog.test/about/"}
    # a slot of links that are not mostly posts is no listing (a menu, a tag cloud)
    assert listed_links(root, "https://blog.test/", lambda u: False) == set()


def test_listed_links_of_a_listing_whose_unclosed_items_nest_each_next_one():
    """Broken markup (an item never closed) nests each post one level deeper than the one before:
    the posts still share one slot."""
    from tasks.discover.candidates import listed_links
    from tasks.fetch.html import parse_html

    items = "".join(f'<div class="date-outer"><h2 class="post-title"><a href="/2010/12/p{i}.html">P{i}</a></h2>'
                    for i in range(4))
    root = parse_html(f'<html><body><div class="blog-posts">{items}</div></body></html>', "https://blog.test/")
    posts = {f"https://blog.test/2010/12/p{i}.html" for i in range(4)}
    assert listed_links(root, "https://blog.test/", lambda u: u in posts) == posts


def test_listed_links_of_items_whose_classes_name_each_one():
    """Each listed post's element carries its own id and categories as classes (held-out
    nokto-fr: its home page's five posts were taken for menu pages and never read as posts)."""
    from tasks.discover.candidates import listed_links
    from tasks.fetch.html import parse_html

    items = "".join(f'<article class="post-{i} type-post category-c{i}"><header><h2 class="entry-title">'
                    f'<a href="/2014/0{i + 1}/0{i + 1}/p{i}/">P{i}</a></h2></header><p>Text {i}</p></article>'
                    for i in range(5))
    root = parse_html(f'<html><body><main id="main">{items}</main></body></html>', "https://blog.test/")
    posts = {f"https://blog.test/2014/0{i + 1}/0{i + 1}/p{i}/" for i in range(5)}
    assert listed_links(root, "https://blog.test/", lambda u: u in posts) == posts


def test_url_scheme_tells_folders_apart_and_names_numbers():
    assert url_scheme("http://b/a/148-a-post.html") == "/a/*.html"
    assert url_scheme("http://b/permalink/A-Post.html") == "/permalink/*.html"
    assert url_scheme("http://b/2014/03/a-post/") == url_scheme("http://b/2019/11/other/") == "/<d>/<d>/*"
    assert url_scheme("http://b/?p=12") == "/*?p"
