"""RobotsPolicy: protego's matching plus RFC 9309's rules for missing and failing robots.txt."""
from __future__ import annotations

import json

import pytest

from tasks.fetch.http import DEFAULT_UA, FetchError, fetch
from tasks.fetch.robots import MAX_ROBOTS_BYTES, RobotsPolicy, product_token, robots_url
from tests.httpd import LoopbackServer, Reply

ROBOTS = """\
# a typical blog
User-agent: *
Disallow: /wp-admin/
Allow: /wp-admin/admin-ajax.php
Disallow: /*?replytocom=
Crawl-delay: 2

User-agent: blogharvest
Disallow: /private/
Disallow: /*.pdf$
Request-rate: 1/5s

User-agent: web
Disallow: /

Sitemap: https://blog.example/sitemap.xml
Sitemap: https://blog.example/news-sitemap.xml
"""


def test_product_token():
    assert product_token(DEFAULT_UA) == "blogharvest"
    assert product_token("MyBot/2.1 (+https://x.example)") == "mybot"


def test_own_group_applies_not_star_nor_substring_groups():
    p = RobotsPolicy.parse(ROBOTS, DEFAULT_UA)
    assert not p.allowed("https://blog.example/private/diary.html")
    assert not p.allowed("https://blog.example/files/cv.pdf")
    assert p.allowed("https://blog.example/files/cv.pdf?download=1")  # $ anchors the end
    assert p.allowed("https://blog.example/wp-admin/")  # only the * group disallows it
    assert p.allowed("https://blog.example/2014/03/09/a-post/")  # the "web" group is not ours
    assert p.crawl_delay == 5.0  # Request-rate 1/5s of our group
    assert p.sitemaps == ["https://blog.example/sitemap.xml", "https://blog.example/news-sitemap.xml"]


def test_groups_named_after_other_words_of_our_user_agent_do_not_apply():
    text = "User-agent: web\nDisallow: /\n\nUser-agent: Mozilla\nDisallow: /\n\nUser-agent: *\nDisallow: /tmp/\n"
    p = RobotsPolicy.parse(text, DEFAULT_UA)
    assert p.allowed("https://blog.example/post") and not p.allowed("https://blog.example/tmp/x")


def test_star_group_for_other_agents():
    p = RobotsPolicy.parse(ROBOTS, "OtherBot/1.0")
    assert not p.allowed("https://blog.example/wp-admin/options.php")
    assert p.allowed("https://blog.example/wp-admin/admin-ajax.php")  # longest match wins
    assert not p.allowed("https://blog.example/post/?replytocom=12")
    assert p.allowed("https://blog.example/private/diary.html")
    assert p.crawl_delay == 2.0


def test_empty_and_garbage_files_allow_everything():
    for text in ("", "<html><body>Not found</body></html>", "\x00\x01 garbage"):
        p = RobotsPolicy.parse(text)
        assert p.allowed("https://blog.example/anything") and p.crawl_delay is None and p.sitemaps == []


def test_disallow_all_keeps_robots_txt_itself_fetchable():
    p = RobotsPolicy.parse("User-agent: *\nDisallow: /\n")
    assert not p.allowed("https://blog.example/") and p.allowed("https://blog.example/robots.txt")
    assert not RobotsPolicy.disallow_all().allowed("https://blog.example/a")
    assert RobotsPolicy.disallow_all().allowed("https://blog.example/robots.txt")


def test_only_first_500_kib_parsed():
    filler = "# " + "x" * 1000 + "\n"
    text = "User-agent: *\n" + filler * (MAX_ROBOTS_BYTES // len(filler) + 10) + "Disallow: /late/\n"
    assert RobotsPolicy.parse(text).allowed("https://blog.example/late/page")
    short = "User-agent: *\nDisallow: /late/\n"
    assert not RobotsPolicy.parse(short).allowed("https://blog.example/late/page")


def test_robots_url():
    assert robots_url("https://blog.example:8443/2014/03/post.html?x=1#c") == "https://blog.example:8443/robots.txt"


def _policy_for(routes: dict, **kw) -> RobotsPolicy:
    with LoopbackServer(routes) as s:
        try:
            outcome = fetch(robots_url(s.url + "post"), allow_private=True, **kw)
        except FetchError as e:
            outcome = e
    # through JSON, as a Celery task would hand it over
    return RobotsPolicy.from_fetch(json.loads(json.dumps(outcome.to_dict())))


def test_fetched_robots_txt_is_parsed():
    p = _policy_for({"/robots.txt": Reply(200, ROBOTS, content_type="text/plain")})
    assert p.mode == "rules" and not p.allowed("https://blog.example/private/x")


def test_redirected_robots_txt_is_followed():
    p = _policy_for({"/robots.txt": Reply(301, "", headers={"Location": "/real-robots.txt"}),
                     "/real-robots.txt": Reply(200, ROBOTS, content_type="text/plain")})
    assert p.mode == "rules" and not p.allowed("https://blog.example/private/x")


@pytest.mark.parametrize("status", [401, 403, 404, 410])
def test_unavailable_robots_allows_all(status):
    p = _policy_for({"/robots.txt": Reply(status, "no")})
    assert p.mode == "allow_all" and p.allowed("https://blog.example/private/x")
    assert str(status) in p.reason


@pytest.mark.parametrize("status", [500, 502, 503, 429])
def test_unreachable_robots_disallows_all_for_a_while(status):
    p = _policy_for({"/robots.txt": Reply(status, "down")})
    assert p.mode == "disallow_all" and not p.allowed("https://blog.example/")
    assert p.ttl == 600.0 and not p.expired() and p.expired(p.created + 601)


def test_unreachable_robots_uses_retry_after():
    p = _policy_for({"/robots.txt": Reply(503, "down", headers={"Retry-After": "7200"})})
    assert p.mode == "disallow_all" and p.ttl == 7200


def test_robots_timeout_disallows():
    p = _policy_for({"/robots.txt": Reply(200, b"User-agent: *\n", delay=20)}, timeout=0.5)
    assert p.mode == "disallow_all" and "timeout" in p.reason


def test_too_many_redirects_means_unavailable():
    loop = {f"/r{i}": Reply(302, "", headers={"Location": f"/r{i + 1}"}) for i in range(10)}
    loop["/robots.txt"] = Reply(302, "", headers={"Location": "/r0"})
    p = _policy_for(loop, max_redirects=5)
    assert p.mode == "allow_all"


def test_round_trip_and_expiry():
    p = RobotsPolicy.parse(ROBOTS, DEFAULT_UA)
    q = RobotsPolicy.from_dict(json.loads(json.dumps(p.to_dict())))
    assert q.mode == "rules" and q.crawl_delay == 5.0 and not q.allowed("https://blog.example/private/a")
    assert q.created == p.created and not q.expired(p.created + 3600) and q.expired(p.created + 86400)
