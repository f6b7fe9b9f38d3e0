"""What proves, in an update crawl, that every new post is known (issue 35).

Covers (`covered` in the crawl's hash) say the new posts are reachable without the other
listings (tags, categories, authors). Three of them also prove that every new post is known,
so that a page nothing names as new (no feed entry, no sitemap lastmod after since, not on
the home's listing) is left: the home page's listing read down past since, the posts'
chain of previous/next links read down past since (workers/discover/chain.py), and a sitemap
that dates every post and lists every post of the feed (made after the newest: a post after
since is in the feed, or in the sitemap with a lastmod after since; workers/discover/sources.py). A proof
replaces a cover that is no proof (the feed reaching past since, a sitemap's lastmods, which
come first), never another proof.
"""
from __future__ import annotations

HOME_COVER = "the home page's listing, read down past since"
CHAIN_COVER = "the posts' previous/next links, read from the newest post down past since"
SITEMAP_COVER = "a sitemap dating every post, made after the feed's newest post"
PROVEN = (HOME_COVER, CHAIN_COVER, SITEMAP_COVER)

_PROVE = """
local v = redis.call('HGET', KEYS[1], 'covered')
for i = 2, #ARGV do if v == ARGV[i] then return 0 end end
redis.call('HSET', KEYS[1], 'covered', ARGV[1])
return 1
"""


def cover(r, crawl_key: str, why: str) -> None:
    """Note `why` the new posts are reachable otherwise: a proof (PROVEN) replaces a cover that is
    no proof; any other cover is kept only where there is none yet."""
    if why in PROVEN:
        r.eval(_PROVE, 1, crawl_key, why, *PROVEN)
    else:
        r.hsetnx(crawl_key, "covered", why)
