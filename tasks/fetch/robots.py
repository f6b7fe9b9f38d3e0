"""robots.txt as a policy object, with RFC 9309's rules for when there is no file.

Parsing and matching are protego's (the same parser Scrapy uses).  This module adds
what a crawler must decide around it (RFC 9309 section 2.3.1):

* robots.txt unavailable (4xx, or too many redirects): everything is allowed;
* robots.txt unreachable (5xx, 429, timeouts, connection errors): nothing is
  allowed, for a while (`ttl`, or the server's Retry-After) -- then fetch it again;
* a fetched file is good for 24 hours at most; only its first 500 KiB is parsed.

Policies serialise with `to_dict()` so they can be cached in Redis per blog.
"""
from __future__ import annotations

import re
import time
import urllib.parse

from protego import Protego

from tasks.fetch.charset import decode
from tasks.fetch.http import DEFAULT_UA, FetchError, Response

MAX_ROBOTS_BYTES = 500 * 1024  # RFC 9309 2.5: parse at least 500 KiB, may ignore the rest
TTL = 24 * 3600.0  # RFC 9309 2.4: SHOULD NOT use a cached copy for longer
UNREACHABLE_TTL = 600.0  # how long "disallow all" lasts before robots.txt is fetched again


def robots_url(url: str) -> str:
    """The robots.txt that governs `url`: same scheme, host and port."""
    p = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit((p.scheme, p.netloc, "/robots.txt", "", ""))


def product_token(user_agent: str) -> str:
    """The token robots.txt groups name: "blogharvest" from "Mozilla/5.0 (compatible; blogharvest/0.1)".

    Matching on the whole UA string would let a group for "Mozilla" or "web" apply to us.
    """
    m = re.search(r"compatible;\s*([A-Za-z0-9_-]+)", user_agent) or re.match(r"\s*([A-Za-z0-9_-]+)", user_agent)
    return m.group(1).lower() if m else user_agent.strip().lower()


class RobotsPolicy:
    """What one site's robots.txt lets `user_agent` do.

    mode: "rules" (a parsed file), "allow_all" (no usable file), "disallow_all"
    (robots.txt unreachable: wait `ttl` seconds, then fetch it again).
    """

    def __init__(self, user_agent: str = DEFAULT_UA, text: str = "", mode: str = "rules",
                 ttl: float = TTL, reason: str = "", created: float | None = None):
        if mode not in ("rules", "allow_all", "disallow_all"):
            raise ValueError(f"unknown robots mode {mode!r}")
        self.user_agent = user_agent
        self.token = product_token(user_agent)
        self.text = text[:MAX_ROBOTS_BYTES]
        self.mode = mode
        self.ttl = ttl
        self.reason = reason
        self.created = time.time() if created is None else created
        self._parser = Protego.parse(self.text) if mode == "rules" else None

    # -- construction -------------------------------------------------------

    @classmethod
    def parse(cls, text: str, user_agent: str = DEFAULT_UA) -> "RobotsPolicy":
        return cls(user_agent, text, "rules", reason="robots.txt")

    @classmethod
    def allow_all(cls, user_agent: str = DEFAULT_UA, reason: str = "no robots.txt") -> "RobotsPolicy":
        return cls(user_agent, "", "allow_all", reason=reason)

    @classmethod
    def disallow_all(cls, user_agent: str = DEFAULT_UA, ttl: float = UNREACHABLE_TTL,
                     reason: str = "robots.txt unreachable") -> "RobotsPolicy":
        return cls(user_agent, "", "disallow_all", ttl=ttl, reason=reason)

    @classmethod
    def from_fetch(cls, outcome: Response | FetchError | dict, user_agent: str = DEFAULT_UA,
                   unreachable_ttl: float = UNREACHABLE_TTL) -> "RobotsPolicy":
        """The policy for the result of fetching robots.txt (a Response, a FetchError,
        or either's to_dict())."""
        if isinstance(outcome, dict):
            outcome = FetchError.from_dict(outcome) if "kind" in outcome else Response.from_dict(outcome)
        if isinstance(outcome, Response):
            if 200 <= outcome.status < 300:
                data = outcome.content[:MAX_ROBOTS_BYTES]
                return cls.parse(decode(data, outcome.encoding), user_agent)
            return cls.allow_all(user_agent, f"robots.txt answered HTTP {outcome.status}")
        err = outcome
        if err.kind == "http_status" and err.status is not None and 400 <= err.status < 500 and err.status != 429:
            return cls.allow_all(user_agent, f"robots.txt unavailable (HTTP {err.status})")
        if err.kind in ("too_many_redirects", "redirect_loop", "bad_scheme", "private_address", "too_large"):
            return cls.allow_all(user_agent, f"robots.txt unavailable ({err.kind})")
        ttl = err.retry_after if err.retry_after else unreachable_ttl
        return cls.disallow_all(user_agent, ttl, f"robots.txt unreachable ({err})")

    # -- questions ----------------------------------------------------------

    def allowed(self, url: str) -> bool:
        if urllib.parse.urlsplit(url).path == "/robots.txt":
            return True
        if self.mode == "allow_all":
            return True
        if self.mode == "disallow_all":
            return False
        return self._parser.can_fetch(url, self.token)

    @property
    def crawl_delay(self) -> float | None:
        """Seconds between requests: Crawl-delay, else Request-rate (n/period)."""
        if self._parser is None:
            return None
        delay = self._parser.crawl_delay(self.token)
        if delay is not None:
            return float(delay)
        rate = self._parser.request_rate(self.token)
        if rate is not None and rate.requests:
            return rate.seconds / rate.requests
        return None

    @property
    def sitemaps(self) -> list[str]:
        return list(self._parser.sitemaps) if self._parser is not None else []

    def expired(self, now: float | None = None) -> bool:
        """True once the policy should be replaced by fetching robots.txt again."""
        return (time.time() if now is None else now) >= self.created + self.ttl

    # -- serialisation ------------------------------------------------------

    def to_dict(self) -> dict:
        return {"user_agent": self.user_agent, "text": self.text, "mode": self.mode,
                "ttl": self.ttl, "reason": self.reason, "created": self.created}

    @classmethod
    def from_dict(cls, d: dict) -> "RobotsPolicy":
        return cls(d.get("user_agent", DEFAULT_UA), d.get("text", ""), d.get("mode", "rules"),
                   d.get("ttl", TTL), d.get("reason", ""), d.get("created"))

    def __repr__(self) -> str:
        return f"RobotsPolicy({self.mode}, token={self.token!r}, reason={self.reason!r})"
