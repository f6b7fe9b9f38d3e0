"""The schema at the task boundary: every argument a crawl task receives is checked before it
touches Redis, and refused with an error that says what was wrong.

Tasks are sent by name from other services (workers/start.py), so their arguments are input
like any other: a `crawl_id` of another blog would rewrite that blog's keys (its blog id is the
key prefix), `since="garbage"` would end as a "done" crawl of nothing, an unknown option is a
typo that silently does nothing.
"""
from __future__ import annotations

import re
from datetime import datetime

from tasks.fetch.errors import FetchError
from tasks.fetch.guard import MAX_URL_LENGTH, parse_url

CRAWL_ID = re.compile(r"^[0-9a-f]{12}-[0-9a-f]{10}$")
MAX_PAGES_LIMIT = 10_000_000

# option -> (check, what it must be); None is accepted for each (the default applies)
_CHOICES = {"js": ("auto", "always", "never"), "order": ("knn", "bfs")}
_BOOLS = ("update", "scheduled", "trace")
KNOWN_OPTIONS = ("max_pages",) + tuple(_CHOICES) + _BOOLS


class InvalidTask(ValueError):
    """A task argument that fails the schema; the message names the argument and the rule."""


def check_url(url) -> str:
    """The blog's URL as given (http/https, a host the guard's parser accepts)."""
    if not isinstance(url, str) or not url.strip():
        raise InvalidTask(f"url: expected an http(s) URL string, got {type(url).__name__} {url!r:.80}")
    if len(url) > MAX_URL_LENGTH:
        raise InvalidTask(f"url: longer than {MAX_URL_LENGTH} characters")
    try:
        parse_url(url)
    except FetchError as e:
        raise InvalidTask(f"url: {e.message}") from None
    return url


def check_since(since) -> str | None:
    """None/"" (no lower bound) or an ISO 8601 date or date-time."""
    if since is None or since == "":
        return since or None
    if not isinstance(since, str) or len(since) > 64:
        raise InvalidTask(f"since: expected an ISO 8601 date such as 2014-03-09, got {since!r:.80}")
    try:
        datetime.fromisoformat(since.strip().replace("Z", "+00:00"))
    except ValueError:
        raise InvalidTask(f"since: {since!r:.80} is not an ISO 8601 date (e.g. 2014-03-09 or "
                          f"2014-03-09T10:00:00+00:00)") from None
    return since.strip()


def check_options(options) -> dict:
    """Known options only, each of its type; returns a copy (js lower-cased)."""
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise InvalidTask(f"options: expected an object, got {type(options).__name__}")
    unknown = sorted(set(options) - set(KNOWN_OPTIONS), key=str)
    if unknown:
        raise InvalidTask(f"options: unknown option(s) {', '.join(map(repr, unknown))}; "
                          f"known: {', '.join(KNOWN_OPTIONS)}")
    out = dict(options)
    mp = out.get("max_pages")
    if mp is not None and (isinstance(mp, bool) or not isinstance(mp, int) or not 1 <= mp <= MAX_PAGES_LIMIT):
        raise InvalidTask(f"options.max_pages: expected an integer from 1 to {MAX_PAGES_LIMIT}, got {mp!r:.40}")
    for name, choices in _CHOICES.items():
        v = out.get(name)
        if v is None:
            continue
        if not isinstance(v, str) or v.lower() not in choices:
            raise InvalidTask(f"options.{name}: expected one of {', '.join(choices)}, got {v!r:.40}")
        out[name] = v.lower()
    for name in _BOOLS:
        v = out.get(name)
        if v is not None and not isinstance(v, bool):
            raise InvalidTask(f"options.{name}: expected true or false, got {v!r:.40}")
    return out


def check_crawl_id(crawl_id, url: str | None = None) -> str:
    """A crawl id of the form the state makes (blog id - random); with `url`, of that blog."""
    from workers.state import blog_id

    if not isinstance(crawl_id, str) or not CRAWL_ID.match(crawl_id):
        raise InvalidTask(f"crawl_id: expected <12 hex>-<10 hex>, got {crawl_id!r:.80}")
    if url is not None and crawl_id.split("-", 1)[0] != blog_id(url):
        raise InvalidTask(f"crawl_id: {crawl_id} belongs to another blog than {url!r:.200}")
    return crawl_id


def crawl_args(url, since, crawl_id, options) -> tuple[str, str | None, str | None, dict]:
    """new_crawl/update_crawl's arguments, checked: (url, since, crawl_id, options)."""
    url = check_url(url)
    since = check_since(since)
    options = check_options(options)
    if crawl_id is not None:
        check_crawl_id(crawl_id, url)
    return url, since, crawl_id, options


def page_args(crawl_id, url) -> tuple[str, str]:
    """process_url/learn_page's arguments, checked (the crawl's existence is the caller's)."""
    check_crawl_id(crawl_id)
    if not isinstance(url, str) or not url or len(url) > MAX_URL_LENGTH:
        raise InvalidTask(f"url: expected a URL string of at most {MAX_URL_LENGTH} characters, got {url!r:.80}")
    return crawl_id, url
