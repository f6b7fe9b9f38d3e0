"""Pseudo feed entries from what pages say of themselves, agreed across one template."""
from __future__ import annotations

import pytest

from tasks.learn.fields import learn_page, reduce_rules
from tasks.extract.post import extract_post
from tasks.learn.pseudo_feed import (enrich_excerpt, group_by_template, page_facts, pseudo_entries,
                                     self_description, summary_in, training_need)
from tests.conftest import score
from tests.farm import make_blog

O = "http://127.0.0.1:9"


def _facts(blog, paths):
    return [page_facts(blog.render(p, O).body, O + p) for p in paths]


@pytest.mark.parametrize("family", ["wordpress", "blogger", "static"])
@pytest.mark.parametrize("seed", [1, 2])
def test_pseudo_entries_agree_with_truth_and_leave_out_other_pages(family, seed):
    blog = make_blog(family, seed, 14)
    posts = [p.path for p in blog.posts]
    others = ["/about/"] if family != "blogger" else []  # (candidates never include the home page)
    entries = pseudo_entries(_facts(blog, others + posts))
    by_url = {e["url"]: e for e in entries}
    assert set(by_url) == {O + p for p in posts}  # the home and about pages are not posts
    for p in blog.posts:
        e = by_url[O + p.path]
        assert e["title"] == p.title
        assert e["published"] and e["published"][:10] == p.published.date().isoformat() or not blog.machine_dates


def test_rules_learned_from_pseudo_entries_extract_unseen_posts():
    blog = make_blog("wordpress", 4, 24)
    train, unseen = blog.posts[:12], blog.posts[12:]
    entries = pseudo_entries(_facts(blog, [p.path for p in train]))
    assert len(entries) == 12
    rules = reduce_rules([learn_page(blog.render(e["url"][len(O):], O).body, e["url"], {
        "title": e["title"], "content": e["content_html"], "authors": e["authors"],
        "published": e["published"]}) for e in entries])
    got = [dict(extract_post(blog.render(p.path, O).body, O + p.path, rules), url=O + p.path) for p in unseen]
    s = score([t for t in blog.truth if O + "/" + t["path"].replace("index.html", "") in
               {g["url"] for g in got}], got)
    assert s["found"] == 100 and s["title_exact"] == 100 and s["content_f1"] == 100 and s["date"] == 100, s


def test_title_site_name_is_stripped_by_agreement_across_pages():
    pages = []
    for i, t in enumerate(["Walking the coast", "A winter garden", "Notes on rain"]):
        pages.append(f"<html><head><title>Site Name | {t}</title></head><body><div class='c'>"
                     f"<h2 class='t'>{t}</h2><p>{'Some words of a post. ' * 30}</p></div></body></html>")
    facts = [page_facts(h, f"{O}/p/{i}") for i, h in enumerate(pages)]
    entries = pseudo_entries(facts)
    assert [e["title"] for e in entries] == ["Walking the coast", "A winter garden", "Notes on rain"]


def test_json_ld_wins_over_a_sidebar_time():
    html = ("<html><head><script type='application/ld+json'>{\"@type\": \"BlogPosting\", \"headline\": \"Real\","
            " \"datePublished\": \"2015-04-02T10:00:00+02:00\", \"author\": {\"name\": \"Ann Lee\"}}</script>"
            "<title>Real - Blog</title></head><body><aside><time datetime='2020-01-01'>x</time></aside>"
            "<h1>Real</h1><p>" + "Text. " * 60 + "</p></body></html>")
    d = self_description(page_facts(html, O + "/real/"))
    assert d == {"title": "Real", "published": "2015-04-02T10:00:00+02:00", "authors": ["Ann Lee"]}


def test_template_groups_separate_listings_from_posts():
    blog = make_blog("static", 2, 20)
    paths = ["/", "/page/2/", "/tags/"] + [p.path for p in blog.posts[:8]]
    groups = group_by_template(_facts(blog, paths))
    assert sorted(groups[0]) == list(range(3, 11))


def test_training_need():
    full = {"content_html": "<p>x</p>", "content_is_summary": False}
    summ = {"content_html": None, "summary_html": "<p>x</p>", "content_is_summary": True}
    assert training_need([]) == "none"
    assert training_need([full] * 3) == "short"
    assert training_need([summ] * 12) == "excerpt"
    assert training_need([full] * 12) is None


def test_excerpt_entry_gets_its_page_content_only_when_the_page_holds_the_summary():
    blog = make_blog("static", 1, 4)
    p, other = blog.posts[0], blog.posts[1]
    facts = page_facts(blog.render(p.path, O).body, O + p.path)
    entry = {"url": O + p.path, "title": p.title, "content_html": None, "summary_html": p.summary_html,
             "content_is_summary": True}
    got = enrich_excerpt(entry, facts)
    assert got["content_from"] == "page" and not got["content_is_summary"]
    assert summary_in(p.summary_html, facts["content"]["content_text"]) >= 0.9
    wrong = dict(entry, summary_html=other.summary_html)
    assert enrich_excerpt(wrong, facts) is wrong


def test_known_posts_that_read_as_no_post_keep_other_templates_out():
    """A short feed's posts drawn by script read as empty shells: the tag and listing pages
    (post-like text, dated cards) are not the posts' template and give no entries."""
    blog = make_blog("spa", 31, 6)
    posts = [p.path for p in blog.posts]
    others = ["/"] + [f"/tag/{t}/" for t in blog.by_tag]
    facts = _facts(blog, posts + others)
    assert pseudo_entries(facts, prefer=[O + p for p in posts]) == []
    assert pseudo_entries(facts)  # without known posts, the post-like pages still group (the test's premise)


def test_one_page_alone_the_title_is_not_the_masthead_that_links_home():
    """'Woche 4 « Michu im Krieg' with the blog's name in an h1 linking to the home page and the
    post's in an h2: the post's title is the h2's even though it is the shorter side."""
    from tasks.extract.page_facts import self_description

    html = ("<html><head><title>Woche 4 &laquo; Michu im Krieg</title></head><body>"
            "<h1><a href='/'>Michu im Krieg</a></h1><div class='post'><h2><a href='/2010/11/woche-4/'>Woche 4</a>"
            "</h2><p>by Michu on November 27, 2010</p><p>" + "Ein Satz der Woche. " * 30 + "</p></div></body></html>")
    facts = page_facts(html, f"{O}/2010/11/woche-4/")
    assert facts["site_headings"] == ["Michu im Krieg"]
    assert self_description(facts)["title"] == "Woche 4"
    # a heading linking to an archive above the page is the site's too; the page's own link is not
    html2 = html.replace("<h1><a href='/'>", "<h1><a href='/2010/11/'>")
    assert page_facts(html2, f"{O}/2010/11/woche-4/")["site_headings"] == ["Michu im Krieg"]
    # with no heading linking above the page, the longer side is still taken (as before)
    html3 = html.replace("<h1><a href='/'>Michu im Krieg</a></h1>", "<h1>Michu im Krieg</h1>")
    assert self_description(page_facts(html3, f"{O}/2010/11/woche-4/"))["title"] == "Michu im Krieg"


def test_title_left_after_the_site_wide_affix_is_cut_to_the_heading_it_repeats():
    """<title>Post | Site Post | Welcome!</title> (a theme printing the name twice): the common
    suffix cut leaves "Post | Site Post", whose part the post's h1 repeats is the title."""
    pages = []
    for i, t in enumerate(["Höstens helafton", "Skratt och levande visor", "Nya styrelsen 2014"]):
        pages.append(f"<html><head><title>{t} |  Visans Vänner   {t} | Välkommen! </title></head><body>"
                     f"<h4><a href='/'>Visans Vänner</a></h4><div class='p'><h1 class='t'>{t}</h1>"
                     f"<p>{f'Ord {i} i ett inlägg om visor nummer {i}. ' * 30}</p></div><h2>No Comments</h2></body></html>")
    facts = [page_facts(h, f"{O}/2014/03/1{i}/p-{i}/") for i, h in enumerate(pages)]
    assert [e["title"] for e in pseudo_entries(facts)] == ["Höstens helafton", "Skratt och levande visor",
                                                         "Nya styrelsen 2014"]
    # a title that is a heading as it stands ("Python: tips" beside a "Python" heading) stays whole
    pages = [p.replace("<h2>No Comments</h2>", "<h2>Höstens</h2>") for p in pages]
    facts = [page_facts(h.replace("Höstens helafton", "Höstens: helafton"), f"{O}/2014/03/1{i}/p-{i}/")
             for i, h in enumerate(pages)]
    assert pseudo_entries(facts)[0]["title"] == "Höstens: helafton"


def test_each_section_s_own_site_suffix_is_cut_from_og_titles():
    """A site with two sections names each after the title ("Post · Blog", "Note · Notes"): no
    suffix is common to all og:titles, yet both are the site's, not the posts' (held-out blog:
    the learned title rule was <title> and every title kept " · Blog"). A prefix only a few
    share ("Review: X") is a series and stays."""
    def page(title, og, i):
        return (f"<html><head><title>{og}</title><meta property='og:title' content='{og}'></head><body>"
                f"<main><header><h1 class='t'>{title}</h1><time datetime='2022-08-1{i}'>x</time></header>"
                f"<article><p>{f'Words of post {i} about things number {i}. ' * 30}</p></article></main></body></html>")
    titles = [("2024년 회고", "Blog"), ("Review: LDAP", "Blog"), ("Review: Rust", "Blog"), ("Typing", "Blog"),
              ("2022년 8월 24일", "Notes"), ("2022년 8월 22일", "Notes"), ("Quick fix", "Notes")]
    facts = [page_facts(page(t, f"{t} · Vallista {s}", i), f"{O}/articles/p-{i}/") for i, (t, s) in enumerate(titles)]
    assert sorted(e["title"] for e in pseudo_entries(facts)) == sorted(t for t, _ in titles)


def test_a_one_post_archive_in_the_post_template_is_no_pseudo_entry():
    """Movable Type's monthly archive of one post is the post's page again under "June 2017
    Archives" (held-out blog: the home page links 7 posts and 23 such archives, and the title
    rule learned on them was a span of <title>). Its <title> says what no heading says; the
    posts' <title>s say what their headings say."""
    def page(head, title, i):
        return (f"<html><head><title>Bill's Blog: {head}</title></head><body><div id='container'>"
                f"<div class='blog'><h2 class='date'>June 1{i}, 2017</h2><div class='blogbody'>"
                f"<h3 class='title'>{title}</h3><p>{f'Travel notes {i} of a day on the road. ' * 30}</p>"
                f"<span class='posted'>Posted by bill at June 1{i}, 2017 10:00 AM</span></div></div></div></body></html>")
    posts = [(f"Post {w} - A travel journal", f"Post {w}") for w in ("Verona", "Venice", "Zagreb", "Trieste")]
    archives = [(f"{m} 2017 Archives", f"Trip to {m}") for m in ("June", "April", "March", "May", "July", "August")]
    facts = [page_facts(page(h, t, i), f"{O}/archives/00026{i}.html") for i, (h, t) in enumerate(posts)]
    facts += [page_facts(page(h, t, i), f"{O}/archives/2017_0{i}.html") for i, (h, t) in enumerate(archives)]
    assert sorted(e["title"] for e in pseudo_entries(facts)) == sorted(t for _, t in posts)


def test_a_series_prefix_most_titles_share_stays_in_them():
    """"The Embedded Working Group Newsletter - 9" on most posts, "The Path Towards Stable" on
    one: the shared start is the series' name, part of each title, not the site's."""
    from tasks.learn.pseudo_feed import _common_affixes

    titles = [f"The Embedded Working Group Newsletter - {i}" for i in range(1, 8)] + ["The Path Towards Stable"]
    assert _common_affixes(titles) == ("", "")


def _titled(*titles) -> list[dict]:
    """Pseudo entries of these titles."""
    return [{"title": t, "url": f"http://b.test/{i}"} for i, t in enumerate(titles)]


def test_a_label_every_pseudo_title_starts_with_is_the_templates_not_the_posts():
    """b2evolution prints "Post details: <title>" above each post (and in <title> after the site's
    name): a prefix every pseudo entry's title carries, ended by a separator, is cut; a prefix some
    lack is a series, part of each title."""
    from tasks.learn.pseudo_feed import _without_common_label

    got = _without_common_label(_titled("Post details: Blog moved", "Post details: GNOME inside",
                                        "Post details: Up again"))
    assert [e["title"] for e in got] == ["Blog moved", "GNOME inside", "Up again"]
    series = _titled("Review: A", "Review: B", "Something else")
    assert _without_common_label(series) == series
    assert _without_common_label(_titled("Post: A", "Post: B")) == _titled("Post: A", "Post: B")  # too few


def test_a_site_name_in_brackets_after_every_pseudo_title_is_cut():
    """Movable Type's `<title>`: "Post (Blog name)" (a new held-out blog read without its feed had
    every title with its blog's name); a bracket each title ends with in its own words is the title's."""
    from tasks.learn.pseudo_feed import _without_common_label

    got = _without_common_label(_titled("これまでのあらすじ (鈍行・中目黒の自転車メモ)", "7900 Dura 到着 (鈍行・中目黒の自転車メモ)",
                                        "Quarq CinQo (鈍行・中目黒の自転車メモ)"))
    assert [e["title"] for e in got] == ["これまでのあらすじ", "7900 Dura 到着", "Quarq CinQo"]
    parts = _titled("Trip (1)", "Trip (2)", "Trip (3)")
    assert _without_common_label(parts) == parts


def test_a_pseudo_entry_names_the_author_the_page_shows_not_a_metadata_spelling_it_does_not():
    """The metadata says "Sergey Pirogov", the byline shows "Сергій Пірогов": a feedless crawl
    trained on the metadata's name learned `meta[@name=author]` and gave every post a name its
    page never shows (a held-out blog's author 0)."""
    from tasks.extract.page_facts import page_facts

    html = ('<html><head><meta name="author" content="Sergey Pirogov"><title>Не баг, а фіча #5</title></head><body>'
            '<h1>Не баг, а фіча #5</h1><p><span class="post-author"><a href="/author/">Сергій Пірогов</a></span>'
            ' | 27/12/2022</p><section class="post-content"><p>Новий україномовний подкаст про тестування.</p>'
            '</section></body></html>')
    assert page_facts(html, "http://blog.test/2023/not-a-bug-5/", content=False)["meta_authors"] == ["Сергій Пірогов"]
    shown = html.replace("Сергій Пірогов", "Sergey Pirogov")
    assert page_facts(shown, "http://blog.test/2023/not-a-bug-5/", content=False)["meta_authors"] == ["Sergey Pirogov"]


def test_a_day_most_pages_show_is_no_posts_day():
    """A theme printing the day on its listings only: the page-level reader finds the footer's
    copyright year on every post ("© 2015": January 1st, 2015), and every pseudo entry carried
    it (a new blog's posts all dated the day its copy was made). A day most pages give is no
    post's own: left out, the listing's day can date them (workers/extract/listed_days.py)."""
    blog = make_blog("static", 3, 14, undated_posts=True)
    entries = pseudo_entries(_facts(blog, [p.path for p in blog.posts]))
    assert len(entries) == len(blog.posts)
    assert not any(e["published"] for e in entries), [e["published"] for e in entries]
    dated = pseudo_entries(_facts(make_blog("static", 3, 14), [p.path for p in blog.posts]))
    assert all(e["published"] for e in dated)  # pages that print their days keep them
