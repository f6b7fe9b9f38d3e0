"""tasks/discover/unlisted.py: the records no listing lists, where the listings list the rest."""
from tasks.discover.unlisted import unlisted, url_form

H = "http://blog.example/"
POSTS = [f"{H}2020/01/{i:02d}/post-{i}/" for i in range(1, 31)]


def test_a_page_no_listing_lists_is_told_where_the_listings_list_the_rest():
    records = POSTS + [H + "books/", H + "privacy/app/"]
    assert unlisted(records, set(POSTS)) == [H + "books/", H + "privacy/app/"]


def test_nothing_is_concluded_where_the_listings_list_too_few():
    # older posts reached only through previous/next links: the listings list the newest ten
    assert unlisted(POSTS, set(POSTS[:10])) == []


def test_a_few_records_prove_nothing():
    assert unlisted(POSTS[:5] + [H + "about/"], set(POSTS[:5])) == []


def test_the_same_url_written_otherwise_is_listed():
    listed = {u.replace("http://", "https://www.").rstrip("/") for u in POSTS[:-1]} | {POSTS[-1] + "index.html"}
    assert unlisted(POSTS, listed) == []
    assert url_form("https://www.blog.example/a/index.html#x") == url_form("http://blog.example/a")


def test_a_query_names_another_page():
    assert url_form(H + "?p=1") != url_form(H + "?p=2")
