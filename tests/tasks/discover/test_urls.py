"""URLs: canonical spelling, links of a page, the post pattern learned from a feed's links."""
from __future__ import annotations

import pytest

from tasks.discover.urls import (FEATURE_NAMES, canonical, extract_links, is_post, learn_post_pattern, same_site,
                        url_features)


@pytest.mark.parametrize("url, expected", [
    ("HTTP://Blog.TEST:80/a/./b/../c?utm_source=x&id=3#frag", "http://blog.test/a/c?id=3"),
    ("https://blog.test:443", "https://blog.test/"),
    ("http://blog.test/%7euser/caf%c3%a9", "http://blog.test/~user/caf%C3%A9"),
    ("http://blog.test/p?replytocom=12&fbclid=z", "http://blog.test/p"),
    ("http://blog.test/p;jsessionid=ABC?x=1", "http://blog.test/p?x=1"),
    ("http://blog.test/?m=1", "http://blog.test/"),  # Blogger's mobile switch
    ("http://blog.test/?m=201403", "http://blog.test/?m=201403"),  # a WordPress archive
    ("mailto:a@b.test", "mailto:a@b.test"),
    # a static mirror's copies of a page under a dropped query are the page; other saved queries are pages
    ("http://blog.test/2012/01/post.html%3FshowComment=1327087293586.html#c60", "http://blog.test/2012/01/post.html"),
    ("http://blog.test/post/index.html%3freplytocom=5.html", "http://blog.test/post/"),
    ("http://blog.test/index.html%3Fp=12.html", "http://blog.test/index.html%3Fp=12.html"),
    ("http://blog.test/search%3Fupdated-max=2012-01-01.html", "http://blog.test/search%3Fupdated-max=2012-01-01.html"),
    ("http://blog.test/a%3Freplytocom=5%26p=3.html", "http://blog.test/a%3Freplytocom=5%26p=3.html"),
])
def test_canonical(url, expected):
    assert canonical(url) == expected
    assert canonical(canonical(url)) == canonical(url)


def test_same_site_folds_www_and_scheme():
    assert same_site("https://www.blog.test/x", "http://blog.test/")
    assert not same_site("http://blog.test:8080/", "http://blog.test/")
    assert not same_site("", "http://blog.test/")


def test_extract_links():
    html = """<html><head><base href="http://blog.test/sub/"></head><body>
    <a href="p1">1</a><a href="/p2#c">2</a><a href="p1">dup</a><a href="javascript:void(0)">j</a>
    <a href="mailto:x@y">m</a><a href="#top">t</a><a href="http://other.test/?utm_medium=x">o</a></body></html>"""
    assert extract_links(html, "http://blog.test/") == ["http://blog.test/sub/p1", "http://blog.test/p2",
                                                        "http://other.test/"]
    assert extract_links("", "http://blog.test/") == []
    # a frameset's frames are its links (its content); an iframe's page is not (an embed, a widget)
    frames = ('<html><head><title>t</title></head><frameset><frame src="/nav.html"><frame src="main.html">'
              '<noframes><iframe src="/embed/"></iframe></noframes></frameset></html>')
    assert extract_links(frames, "http://blog.test/a/") == ["http://blog.test/nav.html", "http://blog.test/a/main.html"]


@pytest.mark.parametrize("posts, yes, no", [
    pytest.param(["http://b.test/2013/08/relaunching-bebo.html", "http://b.test/2013/07/acura-on-snapchat.html",
                  "http://b.test/2013/09/volvos-hook.html"],
                 ["http://b.test/2011/01/old-one.html"],
                 ["http://b.test/2013/08/", "http://b.test/search/label/x", "http://b.test/feeds/posts/default"],
                 id="blogger-one-year"),  # a feed window inside one year still means every year
    (["http://b.test/2013/08/relaunching-bebo.html", "http://b.test/2012/07/acura-on-snapchat.html",
      "http://b.test/2013/09/volvos-hook.html"],
     ["http://b.test/2011/01/old-one.html"],
     ["http://b.test/2013/08/", "http://b.test/search/label/x", "http://b.test/feeds/posts/default"]),
    (["http://b.test/?p=12", "http://b.test/?p=7", "http://b.test/?p=345"],
     ["http://b.test/?p=99999"], ["http://b.test/?page_id=2", "http://b.test/?cat=3", "http://b.test/"]),
    (["http://b.test/post/59190266995/akka-2-2", "http://b.test/post/59673923533/x-y",
      "http://b.test/post/58000000001/z"],
     ["http://b.test/post/12345678901/another-one"], ["http://b.test/page/2", "http://b.test/tagged/akka"]),
    (["http://b.test/posts/2021-05-31-contrastive/", "http://b.test/posts/2019-03-14-overfit/",
      "http://b.test/posts/2017-06-21-overview/", "http://b.test/faq/"],
     ["http://b.test/posts/2010-01-01-x/index.html"], ["http://b.test/posts/", "http://b.test/faq/x/",
                                                       "http://b.test/posts/page/2/"]),
])
def test_post_pattern_generalises_and_rejects_other_pages(posts, yes, no):
    others = ["http://b.test/", "http://b.test/feed/"]
    pat = learn_post_pattern(posts, others)
    for u in [p for p in posts if "faq" not in p] + yes:
        assert is_post(u, pat), (u, pat)
    for u in no + others:
        assert not is_post(u, pat), (u, pat)


def test_post_pattern_of_nothing_matches_nothing():
    pat = learn_post_pattern([])
    assert not is_post("http://b.test/", pat) and not is_post("http://b.test/x", pat)
    assert not is_post("http://b.test/x", "(")  # a broken pattern is no match, not an error


@pytest.mark.parametrize("blog", ["balinterdi", "lilianweng", "trottomatic"])
def test_pattern_from_the_feed_window_covers_the_whole_blog(shared_dir, blog):
    """Learned from the 20 newest feed links only: it matches every post of the blog (both
    spellings, dir/ and dir/index.html) and none of its other pages (pagination, archives,
    categories, tags, attachments, the FAQ page in lilianweng's feed)."""
    from tests.tasks.learn.test_fields import ORIGIN, feed_window
    b = shared_dir / "eval" / "blogs" / blog
    feed = feed_window(b)
    pat = learn_post_pattern([e["url"] for e in feed["entries"]], [ORIGIN + "/", feed["url"]])
    posts = [p.strip() for p in (b / "posts.txt").read_text().split() if p.strip()]
    for p in posts:
        assert is_post(f"{ORIGIN}/{p}", pat), (p, pat)
        assert is_post(f"{ORIGIN}/{p.removesuffix('index.html')}", pat), (p, pat)
    others = []
    for f in (b / "site").rglob("*.html"):
        rel = str(f.relative_to(b / "site"))
        if rel not in posts:
            others.append(f"{ORIGIN}/{rel.removesuffix('index.html')}")
    assert len(others) > 20
    wrong = [o for o in others if is_post(o, pat)]
    assert not wrong, (wrong[:5], pat)


def test_url_features():
    f = dict(zip(FEATURE_NAMES, url_features("http://b.test/2014/03/page/2/?utm_source=x")))
    assert len(url_features("")) == len(FEATURE_NAMES)
    assert f["year"] == 1.0 and f["pagination"] == 1.0 and f["kw_page"] == 1.0 and f["page_number"] > 0
    assert f["query_params"] == 0.0  # tracking parameters are not the page's
    home = dict(zip(FEATURE_NAMES, url_features("http://b.test/")))
    assert home["home"] == 1.0 and home["depth"] == 0.0


def test_a_malformed_port_is_out_of_scope_not_a_crash():
    from tasks.discover.traversal import feed_links, in_scope
    from tasks.fetch.html import parse_html

    assert not in_scope("http://b.test:80monologues/x/", "http://b.test/")
    root = parse_html("<html><head><link rel='alternate' type='application/rss+xml' href='http://b.test:8o/feed'>"
                      "</head></html>", "http://b.test/")
    assert feed_links(root, "http://b.test/", "http://b.test/") == []


def test_post_pattern_of_slugs_in_another_script_takes_a_slug_of_ascii_too():
    """Japanese slugs percent-escaped all start with "%E" and a digit (UTF-8's lead bytes): no
    typed edge of the slug, or a post whose slug starts with "sns" or "amazon-echo" is missed."""
    from urllib.parse import quote
    words = ["資本主義経済は良いシステムか", "仮想でない通貨はあるのか", "信用という言葉は適切だろうか",
             "なぜ虚業は稼ぎが良いのか", "生活に引き算の発想を", "断捨離としての本の自炊"]
    posts = [f"https://330k.example/2018/0{i % 9 + 1}/1{i}/{quote(w).lower()}/" for i, w in enumerate(words)]
    pattern = learn_post_pattern(posts, ["https://330k.example/", "https://330k.example/page/2/"])
    assert all(is_post(u, pattern) for u in posts)
    for slug in ("sns" + quote("とそれまでのメディアの違い").lower(), "amazon-echo" + quote("と家電").lower()):
        assert is_post(f"https://330k.example/2018/06/02/{slug}/", pattern), (slug, pattern)
    assert not is_post("https://330k.example/page/2/", pattern)


def test_a_link_carrying_an_address_in_its_query_is_an_action_not_a_page():
    """A log-in link on every page (`?redirect_to=<this page>`), an email form under every
    comment, a share link: each carries an address in a parameter and leads to no page of the
    blog (a new blog: about a third of its requests); dates and ids in a query stay pages."""
    from tasks.discover.traversal import in_scope

    home = "http://b.test/"
    assert not in_scope("http://b.test/htsrv/login.php?redirect_to=http%3A%2F%2Fb.test%2F2007%2F09%2Fp.html", home)
    assert not in_scope("http://b.test/index.php?disp=msgform&post_id=4&redirect_to=https%3a%2f%2fb.test%2fx", home)
    assert not in_scope("http://b.test/share?u=1&url=https://b.test/p/", home)
    assert in_scope("http://b.test/?p=12", home)
    assert in_scope("http://b.test/search?updated-max=2012-03-05T09:14:00-05:00&max-results=7", home)
    assert in_scope("http://b.test/2012/03/post.html?showComment=1331&m=1", home)
