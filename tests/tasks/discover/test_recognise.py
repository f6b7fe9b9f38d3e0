"""Posts recognised by template: the learned rules find title, content (alone) and date."""
from __future__ import annotations

from tasks.discover.recognise import template_post
from tasks.extract.post import extract_root
from tasks.fetch.html import parse_html

RULES = {"title": {"rule": "//*[@class='post-title']", "share": 1.0},
         "content": {"rule": "//*[@class='post-content']", "share": 1.0},
         "date": {"rule": "//*[@class='post-date']", "share": 0.9},
         "author": {"rule": "//*[@class='post-author']", "share": 0.9}}
BODY = "<p>" + "Words of a post that say something worth reading. " * 4 + "</p>"


def check(html: str) -> bool:
    root = parse_html(html, "https://b.test/x/")
    return template_post(root, extract_root(root, html, RULES), RULES)


def post(date=True, author=True, n=1) -> str:
    one = ("<h1 class='post-title'>A title</h1>" + ("<span class='post-date'>March 9, 2014</span>" if date else "")
           + ("<span class='post-author'>Jo</span>" if author else "") + f"<div class='post-content'>{BODY}</div>")
    return f"<html><body>{one * n}</body></html>"


def test_a_post_of_the_template():
    assert check(post())


def test_a_page_without_date_or_byline_is_no_post():
    assert not check(post(date=False))
    assert not check(post(author=False))


def test_a_listing_repeating_the_template_is_no_post():
    assert not check(post(n=5))


def test_another_template_is_no_post():
    assert not check(f"<html><body><h1>A title</h1><article>{BODY}</article></body></html>")


def test_no_recognition_without_a_reliable_date_rule():
    """Undated posts look like the site's pages: nothing is recognised by template then."""
    rules = dict(RULES, date={"rule": "//*[@class='post-date']", "share": 0.3})
    html = post()
    root = parse_html(html, "https://b.test/x/")
    assert not template_post(root, extract_root(root, html, rules), rules)



def test_a_day_in_the_url_dates_a_page_where_no_date_rule_holds():
    """Posts whose pages show no reliable date rule but whose URLs name their day (a date-named
    scheme: /2018/09/12/<category>/<slug>/, one level deeper or shallower than the feed's posts)
    are recognised by template; a page of the site at an undated URL (/about/) is not."""
    rules = dict(RULES, date={"rule": "//*[@class='post-date']", "share": 0.3})
    html = post(date=False)
    for url, want in (("https://b.test/2018/09/12/hello-world/", True),
                      ("https://b.test/2018/09/13/back/java/commons/a-post/", True),
                      ("https://b.test/about/", False)):
        root = parse_html(html, url)
        assert template_post(root, extract_root(root, html, rules), rules, url) is want, url
    # a listing at a day's URL still repeats the template: no post
    listing = post(date=False, n=5)
    root = parse_html(listing, "https://b.test/2018/09/12/")
    assert not template_post(root, extract_root(root, listing, rules), rules, "https://b.test/2018/09/12/")


# ---- a blog with no rules at all (issue 31): the page-level extractor's reading decides

from tasks.discover.recognise import generic_post  # noqa: E402
from tasks.extract.fallback import fallback_extract  # noqa: E402

ARTICLE = "".join(f"<p>Paragraph {i} of an article that says something worth keeping in an archive, "
                  f"with enough words to read as prose.</p>" for i in range(6))


def generic(html: str, url: str = "https://b.test/2014/03/a-post/") -> bool:
    root = parse_html(html, url)
    return generic_post(root, fallback_extract(html, url, root=root), url)


def test_a_dated_article_is_a_post_without_rules():
    page = (f"<html><head><title>A post</title></head><body><header><h1><a href='/'>Blog</a></h1></header>"
            f"<article><h2><a href='/2014/03/a-post/'>A post</a></h2><time datetime='2014-03-09'>9 March 2014</time>"
            f"{ARTICLE}</article></body></html>")
    assert generic(page)


def test_an_undated_page_or_a_listing_is_no_post_without_rules():
    undated = f"<html><head><title>About</title></head><body><h1>About</h1>{ARTICLE}</body></html>"
    assert not generic(undated, "https://b.test/about/")
    listing = "<html><body>" + "".join(
        f"<article><h2><a href='/2014/03/post-{i}/'>Post {i}</a></h2><time datetime='2014-03-0{i}'>March {i}</time>"
        f"{ARTICLE[:400]}</article>" for i in range(1, 6)) + "</body></html>"
    assert not generic(listing, "https://b.test/page/2/")


def test_a_listing_under_a_broad_pattern_is_told_by_its_repeated_template():
    from tasks.discover.recognise import listing_like

    assert listing_like(parse_html(post(n=3), "https://b.test/index2.html"), RULES)
    assert not listing_like(parse_html(post(), "https://b.test/a-post.html"), RULES)
    assert not listing_like(parse_html(post(), "https://b.test/a-post.html"), {"title": {"rule": "//*[@class='x'"}})
    # a post whose "related posts" box repeats the title's markup three times, beside its one block (held-out
    # 330k-ja, WordPress Hueman: 46 of its 60 posts were taken for listings)
    related = "<div class='related'>" + "".join(f"<h4 class='post-title'>Other {i}</h4>" for i in range(3)) + "</div>"
    assert not listing_like(parse_html(post().replace("</body>", related + "</body>"), "https://b.test/a-post/"), RULES)
    # a listing whose content rule is a wrapper: one block, the titles inside it
    wrapped = {**RULES, "content": {"rule": "//*[@id='main']"}}
    assert listing_like(parse_html(post(n=3).replace("<body>", "<body><div id='main'>").replace("</body>", "</div></body>"),
                                   "https://b.test/index2.html"), wrapped)
    # a post whose comment section is a block of the content's own markup (a held-out blog: every
    # post beyond its feed was taken for a listing, 7 % of its posts found): one title, not a listing
    comments = "<div class='post-content'>Comments: Ann says, on March 10, 2014: how lovely.</div>"
    assert not listing_like(parse_html(post().replace("</body>", comments + "</body>"), "https://b.test/a-post/"), RULES)
    assert listing_like(parse_html(post(n=2), "https://b.test/page/9/"), RULES)  # two posts, two titles
    # no content block at all (a listing of summaries in other markup): its titles tell
    assert listing_like(parse_html(post(n=3), "https://b.test/index2.html"), {**RULES, "content": {"rule": "//article"}})


def test_a_page_in_its_own_template_shows_no_post_title():
    """A site's page that a one-slug pattern takes in, dated by its metadata (a Jekyll page with
    JSON-LD), shows its heading where the posts' title rule does not look."""
    from tasks.discover.recognise import title_holds
    page = ("<html><head><script type='application/ld+json'>{\"datePublished\": \"2020-08-08\"}</script></head>"
            f"<body><h1 class='page-heading'>Design versions</h1><div class='post-content'>{BODY}</div></body></html>")
    assert title_holds(parse_html(post(), "https://b.test/x/"), RULES)
    assert not title_holds(parse_html(page, "https://b.test/design/"), RULES)
    assert title_holds(parse_html(page, "https://b.test/design/"), dict(RULES, title={"rule": "//h9", "share": 0.4}))


def test_an_untitled_post_of_photos_alone_shows_the_posts_date_and_byline():
    """A Blogger post left untitled, its body photos alone: its date and byline say post."""
    from tasks.discover.recognise import title_holds

    rules = {"title": {"rule": "//h3[@class='post-title']", "share": 0.8}, "author": {"rule": "//*[@class='fn']", "share": 0.9},
             "date": {"rule": "//*[@class='date']", "share": 0.9}, "content": {"rule": "//*[@class='post-body']"}}
    page = parse_html("<html><body><h2 class='date'>17 Aug 2011</h2><div class='post-body'><img src='/a.jpg'></div>"
                      "<span class='fn'>Jorge</span></body></html>", "https://b.test/2011/08/blog-post.html")
    photos = {"published": "2011-08-17", "content_text": None, "content_html": "<div class='post-body'><img></div>"}
    assert title_holds(page, rules, photos)
    assert not title_holds(page, rules, dict(photos, content_html=None))


def test_a_short_post_of_the_template_is_a_post_and_an_empty_shell_is_not():
    """A dated, bylined post of three download links (held-out Hugo blog: its oldest post,
    61 characters, was never a record); the template with nothing in its content is none."""
    links = "<p>(تحميل الجزء الأول | تحميل الجزء الثاني | تحميل الجزء الثالث)</p>"
    assert check(post().replace(BODY, links))
    assert not check(post().replace(BODY, "<p> </p>"))


def test_a_date_that_is_the_site_s_build_time_is_none_of_the_page_s_own():
    """Jekyll prints its build time as the date of a page without one (held-out mehdix-fa: four
    project pages in the post template, dated 2018-02-06T02:43:37+01:00, the feed's <updated>
    2018-02-06T02:43:37Z)."""
    from tasks.discover.recognise import build_times, built_at

    assert build_times(["2018-02-06T02:43:37+00:00"], shared=1) == ["2018-02-06T02:43:37"]
    lastmods = ["2018-02-06T02:43:37+01:00"] * 3 + ["2018-02-05T00:00:00+01:00"] * 5 + ["2017-01-02T10:11:12+00:00", None]
    assert build_times(lastmods) == ["2018-02-06T02:43:37"]  # midnight: a day's date, shared by posts of one day
    built = build_times(lastmods)
    assert built_at("2018-02-06T02:43:37+01:00", built)
    assert not built_at("2018-02-06T02:43:38+01:00", built) and not built_at("2018-02-06", built)
    assert not built_at("2018-02-06T02:43:37+01:00", [])


def test_a_listing_of_one_post_is_no_post():
    """A tag's page listing one post shows the template once (title, date, one content block),
    but the item's own heading links to the post (a new blog: 375 tag pages became posts once
    its dates read); a post's heading links nowhere or to itself."""
    teaser = ("<html><body><h1 class='post-title'>Tag: disco</h1><div class='node'><h2><a href='/k-tanci/'>K tanci</a>"
              "</h2><span class='post-date'>March 9, 2014</span><span class='post-author'>Jo</span>"
              f"<div class='post-content'>{BODY}</div></div></body></html>")
    root = parse_html(teaser, "https://b.test/stitky/disco")
    assert not template_post(root, extract_root(root, teaser, RULES), RULES, "https://b.test/stitky/disco")
    own = teaser.replace("href='/k-tanci/'", "href='/stitky/disco'")  # a heading linking the page itself
    root = parse_html(own, "https://b.test/stitky/disco")
    assert template_post(root, extract_root(root, own, RULES), RULES, "https://b.test/stitky/disco")


def _beside(heading: str, title: str) -> str:
    """A post page whose container holds `heading` beside the post's node."""
    return ("<html><body><div id='container'>" + heading + "<div class='node'><h2 class='post-title'>" + title
            + "</h2><span class='post-date'>March 9, 2014</span><span class='post-author'>Jo</span>"
            f"<div class='post-content'>{BODY}</div></div></div></body></html>")


def _template_post(page: str, url: str) -> bool:
    root = parse_html(page, url)
    return template_post(root, extract_root(root, page, RULES), RULES, url)


def test_a_banner_heading_that_links_the_blog_s_home_makes_no_teaser():
    """Movable Type's banner `<h1><a href="/">Blog</a></h1>` sits beside the content in the same
    container: it links the blog's home (or the folder the post lies in), no listed post (a new
    blog lost 42 posts named off its feed's pattern)."""
    for home in ("/", "/index.html", "/ltnm/"):
        page = _beside(f"<h1 class='banner'><a href='{home}'>Sachi's blog</a></h1>", "Ninagawa, part 4")
        assert _template_post(page, "https://b.test/ltnm/2005/08/ninagawa_3.html"), home


def test_a_sidebar_heading_that_links_the_feed_makes_no_teaser():
    """A theme's sidebar beside the post heads its subscribe box `<h6><a href="/index.xml">RSS</a>`:
    a feed is no listed post (a new blog's 235 posts of its older URL scheme were each read as a
    listing of one post, found 15 %)."""
    url = "https://b.test/2015/12/llvm-weekly-104.html"
    for feed in ("/index.xml", "/feed/", "/atom.xml", "/rss"):
        assert _template_post(_beside(f"<aside><h6><a href='{feed}'>RSS</a></h6></aside>", "LLVM Weekly 104"), url), feed
    other = _beside("<aside><h6><a href='/2015/12/llvm-weekly-103.html'>RSS</a></h6></aside>", "LLVM Weekly 104")
    assert not _template_post(other, url)  # another post's title: a teaser


def test_a_post_heading_its_sections_in_the_title_s_markup_is_no_listing():
    """Hugo writes a post's own `# Sections` as `<h1>`s in the article beside its title's `<h1>`:
    the title rule `article/h1` then finds five titles. A listing dates each item where the posts
    show their day; the post shows one day (a new blog lost 13 posts, as listings of themselves)."""
    from tasks.discover.recognise import listing_like

    rules = {"title": {"rule": "//article/h1", "share": 1.0}, "content": {"rule": "//article", "share": 1.0},
             "date": {"rule": "//*[@class='post-date']/@datetime", "share": 0.9}}
    sections = "".join(f"<h1>Section {i}</h1>{BODY}" for i in range(4))
    page = (f"<html><body><article><h1>Trojan Source</h1><aside><time class='post-date' datetime='2022-01-12'>"
            f"Jan 12, 2022</time></aside>{sections}</article></body></html>")
    url = "https://b.test/posts/2022-01-12-trojan-source/"
    root = parse_html(page, url)
    assert not listing_like(root, rules)
    assert template_post(root, extract_root(root, page, rules), rules, url)
    items = "".join(f"<h1>Post {i}</h1><aside><time class='post-date' datetime='2022-01-1{i}'>Jan 1{i}</time></aside>{BODY}"
                    for i in range(4))
    listing = f"<html><body><article>{items}</article></body></html>"  # each item dated: a listing
    root = parse_html(listing, "https://b.test/tags/x/")
    assert listing_like(root, rules)
    assert not template_post(root, extract_root(root, listing, rules), rules, "https://b.test/tags/x/")
