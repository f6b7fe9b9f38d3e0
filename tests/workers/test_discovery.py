"""Every post of a blog, exactly once (issue 15): whole crawls of the discovery farm families
through real Celery worker processes and a real Redis, scored with the eval harness's scorer."""
from __future__ import annotations

import pytest

from tests.conftest import score


def _urls(records):
    return [r["url"] for r in records]


@pytest.mark.parametrize("seed", [1, 2])
def test_feed_covering_one_section_finds_root_and_other_section_posts(crawl, farm_blog, state, seed):
    site = farm_blog("sections", seed=seed, n_posts=36)
    feed_paths = {p.path for p in site.blog.feed_posts()}
    assert all(p.startswith(f"/{site.blog.sections[0]}/") for p in feed_paths)  # the premise
    info, records = crawl(site.url, timeout=240)
    assert info["state"] == "done", info
    s = score(site.truth, records)
    assert s["found"] >= 98 and s["precision"] >= 99, s
    assert len(set(_urls(records))) == len(records)
    assert not any(u.rstrip("/").endswith("/about") for u in _urls(records))  # a page, not a post
    # the posts beyond the feed's section were recognised by template; their shapes are kept with support
    patterns = state.r.hgetall(f"bh:{{{info['crawl_id'].split('-')[0]}}}:patterns")
    assert patterns and max(int(n) for n in patterns.values()) >= 2, patterns
    assert info["sources"]["feed"] >= len(feed_paths) - 1 and sum(info["sources"].values()) == len(records)


def test_a_post_the_menu_links_is_a_post_where_a_listing_lists_it(crawl, farm_blog):
    """The menu links the blog's oldest post (a series' first part, the home page's listing far
    from it; its category lists it): a post, not one of the site's pages (a new held-out blog lost
    such a post); /about/ stays out."""
    site = farm_blog("wordpress", seed=3, n_posts=30, menu_post=True, one_feed_page=True)
    first = min(site.blog.posts, key=lambda p: p.published)
    info, records = crawl(site.url, timeout=240)
    assert info["state"] == "done", info
    assert info["sources"]["feed"] < len(site.blog.posts)  # the premise: the oldest post is no feed entry
    posts = {u.rstrip("/") for u in _urls(records)}
    assert site.url.rstrip("/") + first.path.rstrip("/") in posts, first.path
    s = score(site.truth, records)
    assert s["found"] == 100 and s["precision"] == 100, s


@pytest.mark.parametrize("seed", [1, 2])
def test_three_url_schemes_over_a_blogs_life(crawl, farm_blog, seed):
    site = farm_blog("eras", seed=seed, n_posts=42)
    schemes = {("?p=" in p.path, p.path.endswith(".html")) for p in site.blog.posts}
    assert len(schemes) == 3  # the premise: /?p=N, /YYYY/MM/slug.html, /slug/
    info, records = crawl(site.url, timeout=240)
    assert info["state"] == "done", info
    s = score(site.truth, records)
    assert s["found"] >= 98 and s["precision"] >= 99, s
    assert s["title_exact"] >= 97 and s["date"] >= 95, s


def test_an_image_page_below_a_post_is_classified_not_read(crawl, farm_blog, state):
    """WordPress links each image of a post to its own page below the post (an attachment page:
    the image again, a link back). Those pages are left unread, counted in the report's
    pages left unread; every post is still found."""
    from workers.archive.report import update_facts

    site = farm_blog("wordpress", seed=4, n_posts=30)
    attachments = {site.blog.attachment_path(p, i) for p in site.blog.posts for i in p.images}
    assert len(attachments) >= 10  # the premise: the posts link their images' pages
    info, records = crawl(site.url, timeout=240)
    assert info["state"] == "done", info
    s = score(site.truth, records)
    assert s["found"] >= 99 and s["precision"] >= 99, s
    assert not [t for t in site.hits if t in attachments], sorted(t for t in site.hits if t in attachments)[:5]
    u = update_facts(state, info["crawl_id"], info)
    assert u and u["skipped"] >= len(attachments) - 2, u
    assert any("an image's own page" in why for why in u["skipped_by_reason"]), u


@pytest.mark.parametrize("gzipped", [True, False])
def test_old_posts_reachable_only_through_the_sitemap(crawl, farm_blog, gzipped):
    site = farm_blog("sitemapped", seed=3, n_posts=40, gzipped=gzipped)
    info, records = crawl(site.url, timeout=240)
    assert info["state"] == "done", info
    s = score(site.truth, records)
    assert s["found"] >= 98 and s["precision"] >= 99, s
    # robots.txt named the index; the guessed usual paths were never asked for
    assert site.hits["/sitemap_index.xml"] == 1 and site.hits["/sitemap.xml"] == 0
    ext = ".xml.gz" if gzipped else ".xml"
    assert site.hits[f"/sitemap-posts-1{ext}"] == 1
    feeds = [t for t in site.hits if t.rstrip("/").endswith(("/feed", ".xml", "/rss")) and "sitemap" not in t]
    assert feeds and all(site.hits[t] == 1 for t in feeds), {t: site.hits[t] for t in feeds}  # read once
    assert info["sources"]["sitemap"] >= 15, info["sources"]  # the old posts: only the sitemap had them
    assert not [e for e in info["error_report"] if e["kind"] == "sitemap"]


def test_update_crawl_skips_sitemap_pages_older_than_since(crawl, farm_blog):
    site = farm_blog("sitemapped", seed=4, n_posts=30)
    info, records = crawl(site.url, timeout=240)
    assert info["state"] == "done" and len(records) == 30
    since = site.blog.posts[25].published.isoformat()
    old = site.blog.posts[5].path
    before = site.hits[old]
    info2, _ = crawl(site.url, since=since, timeout=240, update=True)
    assert info2["state"] == "done", info2
    assert site.hits[old] == before  # its lastmod is older than `since`: not fetched again


@pytest.mark.parametrize("seed", [1, 2])
def test_blogger_duplicate_forms_give_one_record_per_post(crawl, farm_blog, seed):
    site = farm_blog("bloggerdup", seed=seed, n_posts=30)
    info, records = crawl(site.url, timeout=240)
    assert info["state"] == "done", info
    s = score(site.truth, records)
    assert s["found"] >= 98 and s["precision"] >= 99, s
    urls = _urls(records)
    assert len(set(urls)) == len(urls) == len(site.truth)
    assert not [u for u in urls if "?" in u or "#" in u]  # showComment, m=1, utm_*, zx folded away
    assert sum(site.hits[t] for t in site.hits if "showComment=" in t or "m=1" in t or "utm_" in t) == 0


def test_a_sitemap_that_is_no_sitemap_is_reported_and_the_crawl_goes_on(crawl, farm_blog):
    site = farm_blog("sitemapped", seed=5, n_posts=20, gzipped=True)
    site.faults["/sitemap-posts-1.xml.gz"] = "404"  # named by the index: its failure is reported
    info, records = crawl(site.url, timeout=240)
    assert info["state"] == "done", info
    assert [e for e in info["error_report"] if e["kind"] == "sitemap"]
    assert len(records) >= 5  # what links and the other sitemaps reach


def test_a_feed_s_own_time_is_a_build_time_only_where_no_entry_has_it():
    """Jekyll's feed <updated> is the build's second; a Hugo feed's lastBuildDate is its newest
    post's date, which is no build time (that post would lose its date)."""
    from workers.discover.feed import _build_time

    jekyll = {"updated": "2018-02-06T02:43:37Z"}
    posts = [{"published": "2018-02-05T00:00:00+01:00"}, {"published": "2017-12-01T00:00:00+01:00"}]
    assert _build_time(jekyll, posts) == ["2018-02-06T02:43:37"]
    hugo = {"updated": "Sun, 09 Mar 2025 00:50:04 -0400"}
    assert _build_time(hugo, [{"published": "2025-03-09T00:50:04-04:00"}]) == []
    assert _build_time({}, posts) == []


def _journal_behind(crawl, seed: int, pages: dict) -> tuple[dict, list, object, str]:
    """(info, records, blog, site URL) of a crawl started at the root of a site whose own `pages`
    (path -> Reply) lead to a farm blog whose home is /journal/."""
    from tests.farm import make_blog
    from tests.httpd import LoopbackServer, Reply

    blog = make_blog("wordpress", seed=seed, n_posts=12)
    holder = {}

    def route(req):
        path = req.split.path
        if path in pages:
            return pages[path]
        return blog.render("/" if path == "/journal/" else req.path, holder["origin"]) or Reply(404, "not found")

    with LoopbackServer(route) as site:
        holder["origin"] = site.url.rstrip("/")
        info, records = crawl(site.url, timeout=240)
    return info, records, blog, site.url


def test_a_frameset_start_page_leads_to_the_blog_a_frame_links(crawl):
    """A personal site of the 2000s: its root is a frameset (no body, no feed) whose navigation
    frame links the blog's home (a page that declares a feed); the crawl starts at the root and
    harvests the blog, not nothing."""
    from tests.httpd import Reply

    frameset = ('<html><head><title>My homepage</title></head><frameset rows="10%,*">'
                '<frame src="/nav.html" name="top"><frame src="/hello.html" name="main"></frameset></html>')
    nav = ('<html><body><a href="/hello.html">Hello</a> <a href="/cv.html">CV</a> '
           '<a href="/journal/">Journal</a></body></html>')
    pages = {"/": Reply(200, frameset), "/nav.html": Reply(200, nav),
             "/hello.html": Reply(200, "<html><body><p>Welcome to my homepage.</p></body></html>"),
             "/cv.html": Reply(200, "<html><body><p>Born, studied, worked.</p></body></html>")}
    info, records, blog, url = _journal_behind(crawl, 3, pages)
    assert info["state"] == "done", info
    s = score(blog.truth, records)
    assert s["found"] >= 99 and s["precision"] >= 99, s
    # the blog's home (it declares the feed) was taken for the crawl's home: its feed trained the rules
    assert {r["blog"] for r in records} == {url + "journal/"}, {r["blog"] for r in records}
    assert info["sources"].get("feed", 0) >= 1, info["sources"]


def test_a_landing_page_leads_to_the_blog_home_it_links(crawl):
    """A firm's front page at the root (no feed, a "Blog" link and a contact page): the blog's
    home it links declares the feed, which trains the rules and dates the posts (a real blog
    whose posts print no date came out dated by its pages' month archives)."""
    from tests.httpd import Reply

    landing = ('<html><head><title>Lawyer online</title></head><body><h1>Lawyer online</h1>'
               '<p>Advice on contracts, property and family law.</p><a href="/journal/">Our blog</a> '
               '<a href="/contact.html">Contact</a></body></html>')
    pages = {"/": Reply(200, landing), "/contact.html": Reply(200, "<html><body><p>Call us.</p></body></html>")}
    info, records, blog, url = _journal_behind(crawl, 4, pages)
    assert info["state"] == "done", info
    s = score(blog.truth, records)
    assert s["found"] >= 99 and s["precision"] >= 99 and s["date"] >= 99, s
    assert {r["blog"] for r in records} == {url + "journal/"}, {r["blog"] for r in records}
    assert info["sources"].get("feed", 0) >= 1, info["sources"]


def _export_whose_feed_links_another_host(crawl, seed: int, declared: bool) -> set:
    """A farm WordPress blog served as a static export whose /feed/ links the exporter's host
    (`declared`: its pages keep their <link rel="alternate">): crawled, the paths it was asked."""
    import re

    from tests.farm import make_blog
    from tests.httpd import LoopbackServer, Reply

    blog = make_blog("wordpress", seed=seed, n_posts=12)
    holder = {}

    def route(req):
        page = blog.render(req.path, holder["origin"])
        if page is None:
            return Reply(404, "not found")
        body = page.body if isinstance(page.body, str) else page.body.decode("utf-8")
        if req.split.path == "/feed/":
            body = body.replace(holder["origin"], "http://offline-export.example")
        elif not declared and "<html" in body:
            body = re.sub(r"<link[^>]*alternate[^>]*>", "", body)
        return Reply(page.status, body, page.headers, page.content_type)

    with LoopbackServer(route) as site:
        holder["origin"] = site.url.rstrip("/")
        info, records = crawl(site.url, timeout=240)
        asked = set(site.hits)
    assert info["state"] == "done", info
    assert score(blog.truth, records)["found"] >= 90  # harvested from the pages all the same
    return asked


USUAL_FEEDS_PAST_THE_FIRST = {"/rss.xml", "/atom.xml", "/index.xml", "/feed.xml", "/rss/", "/feed"}


def test_a_declared_feed_of_the_blogs_own_site_listing_other_urls_is_not_followed_by_guesses(crawl):
    """A static export whose feed, declared by every page, links its posts under the exporter's
    host: the feed was read, so the fifteen usual feed paths are not asked (each a 404)."""
    asked = _export_whose_feed_links_another_host(crawl, seed=5, declared=True)
    assert "/feed/" in asked and not asked & USUAL_FEEDS_PAST_THE_FIRST, sorted(asked)


def test_a_guessed_feed_listing_other_urls_ends_the_guessing_too(crawl):
    """The same export with its <link rel="alternate"> stripped: /feed/, the first usual path,
    answers with that feed; no further path is guessed."""
    asked = _export_whose_feed_links_another_host(crawl, seed=6, declared=False)
    assert "/feed/" in asked and not asked & USUAL_FEEDS_PAST_THE_FIRST, sorted(asked)


def test_a_blog_whose_feed_answers_404_is_asked_each_usual_path_once_at_most(crawl, farm_blog):
    """The usual feed paths a blog answered 404 to are not asked again: not their twin with or
    without the trailing slash (`/feed` after `/feed/`), not by the traversal where a page links
    one (the blog's "Entries RSS" link), and no section's paths where no page leads into it."""
    site = farm_blog("wordpress", seed=4, n_posts=30, faults={"/feed/": "404", "/?feed=rss2": "404"})
    info, records = crawl(site.url, timeout=240)
    assert info["state"] == "done", info
    assert score(site.truth, records)["found"] >= 98
    assert site.hits["/feed/"] == 1 and site.hits["/feed"] == 0, dict(site.hits)
    assert not [t for t in site.hits if t.startswith(("/blog/", "/blog?", "/feeds/"))], sorted(site.hits)
    assert not [t for t in site.hits if site.hits[t] > 1 and "feed" in t], dict(site.hits)


def test_a_sitemap_learning_read_is_not_asked_again_by_the_traversal(crawl, farm_blog):
    """Without a feed, learning takes candidates from the sitemaps; the traversal reads the
    same sitemaps for their pages from what learning kept: the blog is asked once for each."""
    site = farm_blog("sitemapped", seed=5, n_posts=40, faults={"/index.xml": "404"})
    info, records = crawl(site.url, timeout=240)
    assert info["state"] == "done", info
    assert score(site.truth, records)["found"] >= 95
    maps = {t: n for t, n in site.hits.items() if "sitemap" in t}
    assert maps.get("/sitemap_index.xml") == 1 and all(n == 1 for n in maps.values()), maps
