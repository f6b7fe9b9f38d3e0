"""tasks/discover/unlisted.py: the records no listing lists, where the listings list the rest."""
from tasks.discover.unlisted import unlisted, url_form

H = "http://blog.example/"
POSTS = [f"{H}2020/01/{i:02d}/post-{i}/" for i in range(1, 31)]


def _pages(*urls):
    """Listing pages of ten posts each, as tasks.discover.candidates.listing_slots gives them."""
    urls = list(urls)
    return [urls[i:i + 10] for i in range(0, len(urls), 10)]


def test_a_page_no_listing_lists_is_told_where_the_listings_list_the_rest():
    records = POSTS + [H + "books/", H + "privacy/app/"]
    slots = _pages(*POSTS) + [[H + "about/", H + "contact/", H + "privacy/"]]  # a slot of pages lists no post
    assert unlisted(records, slots) == [H + "books/", H + "privacy/app/"]


def test_nothing_is_concluded_where_the_listings_list_too_few():
    # older posts reached only through previous/next links: the listings list the newest ten
    assert unlisted(POSTS, _pages(*POSTS[:10])) == []


def test_a_few_records_prove_nothing():
    assert unlisted(POSTS[:5] + [H + "about/"], _pages(*POSTS[:5])) == []


def test_the_same_url_written_otherwise_is_listed():
    listed = [u.replace("http://", "https://www.").rstrip("/") for u in POSTS[:-1]] + [POSTS[-1] + "index.html"]
    assert unlisted(POSTS, _pages(*listed)) == []
    assert url_form("https://www.blog.example/a/index.html#x") == url_form("http://blog.example/a")


def test_a_query_names_another_page():
    assert url_form(H + "?p=1") != url_form(H + "?p=2")


def test_a_slot_is_judged_by_the_posts_the_crawl_found_in_the_end():
    """A section's listing read before any of its posts was known still lists them: its slot
    is judged when the crawl ends, against every record."""
    section = [f"{H}travel/trip-{i}/" for i in range(6)]
    records = POSTS + section + [H + "books/"]
    assert unlisted(records, _pages(*POSTS) + [section]) == [H + "books/"]


def test_a_months_archive_of_one_or_two_posts_lists_them():
    """A date archive lists a month's posts, one or two of them too (held-out michu-im-krieg's
    first month: its two posts were taken for pages)."""
    first_month = [H + "2010/08/hallo-welt/", H + "2010/08/vorbereitungen/"]
    records = POSTS + first_month
    assert unlisted(records, _pages(*POSTS) + [first_month]) == []
    assert unlisted(records, _pages(*POSTS) + [[first_month[0], H + "about/"]]) == first_month  # a pair with a page lists neither


def test_a_record_showing_a_posts_text_under_another_url_is_a_copy():
    """Held-out kirkandersen: a category archive of one entry, titled "Recently in Kyoto photos
    Category", shows that entry's text; the post pattern takes the post's URL, not the archive's."""
    from tasks.discover.unlisted import copies
    text = "Ooh, artsy-fartsy! Not much of an expert in photographic effects, but trying."
    post, archive = H + "2010/05/cherry-blossoms.html", H + "kyoto-photos/"
    is_post = lambda u: "/2010/" in u  # noqa: E731 (the blog's post pattern)
    texts = {post: text, archive: "  " + text.replace(" ", "\n "), H + "2010/06/other.html": "another post, " * 5}
    assert copies(texts, is_post) == {archive: post}
    # both the pattern's (two posts of one text) or neither: nothing concluded; short texts prove nothing
    assert copies({post: text, H + "2010/05/copy.html": text}, is_post) == {}
    assert copies({H + "a/": text, H + "b/": text}, is_post) == {}
    assert copies({post: "Photos.", archive: "Photos."}, is_post) == {}


def test_a_listing_naming_a_posts_other_url_lists_the_post():
    """A mirror's listing names a post by its /permalink/ copy, whose body the record's URL took
    (an alias): the post is listed."""
    posts = [f"{H}p{i}.html" for i in range(40)]
    copies = {f"{H}permalink/p{i}.html": posts[i] for i in range(37, 40)}
    slots = _pages(*posts[:37], *copies)
    assert unlisted(posts + [H + "books.html"], slots) == sorted([*posts[37:], H + "books.html"])
    assert unlisted(posts + [H + "books.html"], slots, copies) == [H + "books.html"]


def test_aliases_never_make_the_cover():
    """Held-out hfors-visor (a wget mirror): every listing names the posts' `?p=N` copies, so
    the listings' own names list none of the records and nothing is concluded; the copies noted
    as aliases of the records they were taken over by must not turn that into a cover, which
    would make pages of the posts whose copies were never read."""
    posts = [f"{H}2020/01/{i:02d}/post-{i}/" for i in range(1, 31)]
    copies = {f"{H}index.html?p={i}": posts[i] for i in range(28)}
    slots = _pages(*copies, f"{H}index.html?p=28", f"{H}index.html?p=29")
    assert unlisted(posts, slots, copies) == []



def test_a_record_under_a_stray_scheme_goes_back_to_the_blogs_own_url():
    """Held-out blogaddict-de: /permalink/slug.html (a mirror's copy) was read before
    /a/170-slug.html; once the crawl knows most posts are /a/, the record moves there. Schemes
    of about the same size, a few posts, a URL the blog does not give, a feed's own URL: kept."""
    from tasks.discover.unlisted import rehomed
    own = [f"{H}a/{i}-post.html" for i in range(8)]
    copy, post = H + "permalink/slug.html", H + "a/170-slug.html"
    mine = lambda u: "/a/" in u or "/b/" in u  # noqa: E731
    assert rehomed(own + [copy], {post: copy}, mine, lambda u: False) == {copy: post}
    assert rehomed(own + [copy], {post: copy}, mine, lambda u: u == copy) == {}  # the feed's own URL
    assert rehomed(own + [copy], {post: copy}, lambda u: False, lambda u: False) == {}
    assert rehomed(own[:2] + [copy], {post: copy}, mine, lambda u: False) == {}  # too few to tell
    others = [f"{H}permalink/p{i}.html" for i in range(5)]
    assert rehomed(own + others + [copy], {post: copy}, mine, lambda u: False) == {}  # 8 is not twice 6
    assert rehomed(own + [copy, post], {post: copy}, mine, lambda u: False) == {}  # both are records


def test_of_two_names_of_a_post_in_one_scheme_the_one_more_listings_give_keeps_it():
    """Held-out eikke: a post renamed from its number (p66.html) to its title, listings saved at
    different times naming each: the record goes to the name more listing pages give."""
    from tasks.discover.unlisted import rehomed
    own = [f"{H}2005/01/{i:02d}/post-{i}.html" for i in range(1, 12)]
    old, new = H + "2005/01/09/p66.html", H + "2005/01/09/new_subdomain.html"
    pages = [[own[:5] + [new]], [own[5:] + [new]], [own[3:8] + [old]]]
    assert rehomed(own + [old], {new: old}, lambda u: True, lambda u: False, pages) == {old: new}
    assert rehomed(own + [new], {old: new}, lambda u: True, lambda u: False, pages) == {}
    assert rehomed(own + [old], {new: old}, lambda u: True, lambda u: False, pages[1:]) == {}  # a tie keeps it


def test_a_menu_page_is_a_post_only_where_a_listing_lists_it():
    """The home page's menu links a tutorial's first part (a post a category lists) and a project
    page in the post template (no listing lists it): the one stays a post, the other is a page,
    whatever the listings' cover (a new held-out blog's menu post was dropped as a menu page)."""
    from tasks.discover.unlisted import menu_pages

    tutorial, project = H + "posts/tutorial/", H + "posts/project/"
    records = POSTS + [tutorial, project]
    category = [POSTS[3], tutorial.rstrip("/"), POSTS[7]]  # (as a listing writes it)
    assert menu_pages([tutorial, project], records, _pages(*POSTS[:10]) + [category]) == [project]
    assert menu_pages([H + "about/"], records, [category]) == []  # not read as a post: nothing to judge
    # a listing naming the tutorial by its other URL (an alias) lists it too
    copy = H + "?p=12"
    assert menu_pages([tutorial], records, [[POSTS[1], copy, POSTS[2]]], {copy: tutorial}) == []
