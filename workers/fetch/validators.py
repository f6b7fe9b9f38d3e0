"""Conditional requests: the ETag / Last-Modified a blog's pages were served with, kept per blog.

Every page a crawl fetches with a validator has it kept in `bh:{B}:validators` (URL ->
"ETag\\nLast-Modified", both capped; at most MAX_PER_BLOG URLs a blog, the first ones kept:
a bounded, compact hash that lasts as long as the blog's records). A later update crawl of
the same blog on the same Redis sends them back (If-None-Match, If-Modified-Since); a page
that answers 304 has not changed since, so it is neither read nor extracted again, and its
earlier record is not emitted again (docs/update.md).

The embedded default keeps its Redis in a data directory (workers/embedded.py), so the
validators outlive one `blogharvest crawl`; a cluster keeps them in REDIS_URL's Redis.
"""
from __future__ import annotations

import logging

from workers.state import blog_of

log = logging.getLogger("blogharvest")

MAX_PER_BLOG = 20_000  # URLs whose validators a blog keeps (about 100 bytes each)
MAX_ETAG = 200  # characters of an ETag kept (longer ones: not kept, the page is fetched whole)
MAX_DATE = 64

# the hash grows to its cap and no further; a URL already in it is updated
_KEEP = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 or redis.call('HLEN', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  return 1
end
return 0
"""
_script = {}


def key(crawl_id: str) -> str:
    return f"bh:{{{blog_of(crawl_id)}}}:validators"


def _value(resp) -> str | None:
    etag = (resp.header("etag") or "").strip()
    modified = (resp.header("last-modified") or "").strip()
    if len(etag) > MAX_ETAG or "\n" in etag:
        etag = ""
    if len(modified) > MAX_DATE or "\n" in modified:
        modified = ""
    return f"{etag}\n{modified}" if etag or modified else None


def keep(r, crawl_id: str, url: str, resp) -> None:
    """Keep the validators `resp` (a 200 for `url`) carries; nothing when it has none."""
    value = _value(resp)
    if value is None:
        return
    script = _script.get(id(r))
    if script is None:
        script = _script[id(r)] = r.register_script(_KEEP)
    try:
        script(keys=[key(crawl_id)], args=[url, value, MAX_PER_BLOG])
    except Exception as e:  # a validator lost costs a whole fetch next time, nothing else
        if type(e).__module__.startswith("redis"):
            raise
        log.debug("validators of %s not kept: %s", url, e)


def forget(r, crawl_id: str, url: str) -> None:
    """Drop `url`'s validators: its page failed after it was fetched (extraction, a time limit),
    so a later update crawl must read it whole, not take a 304 for "read already"."""
    r.hdel(key(crawl_id), url)


def request_headers(r, crawl_id: str, url: str) -> dict | None:
    """If-None-Match / If-Modified-Since for `url` from the blog's kept validators, or None."""
    raw = r.hget(key(crawl_id), url)
    if not raw:
        return None
    etag, _, modified = raw.partition("\n")
    headers = {}
    if etag:
        headers["If-None-Match"] = etag
    if modified:
        headers["If-Modified-Since"] = modified
    return headers or None
