"""FetchError: a failed fetch as plain data, shared by the guard, the client and the browser proxy."""
from __future__ import annotations

KINDS = ("timeout", "connection", "too_large", "redirect_loop", "too_many_redirects",
         "private_address", "http_status", "bad_scheme", "bad_url", "bad_response")


class FetchError(Exception):
    """A failed fetch, with a `kind` a crawl can count and decide on (retry or not).

    "bad_response" is a reply no retry will mend (too many or malformed headers)."""

    def __init__(self, kind: str, url: str, message: str, status: int | None = None,
                 retry_after: float | None = None):
        super().__init__(message)
        self.kind = kind
        self.url = url
        self.message = " ".join(str(message).split())  # one line, for error reports
        self.status = status
        self.retry_after = retry_after

    @property
    def transient(self) -> bool:
        """Worth retrying later: timeouts, connection failures, 408/429 and 5xx."""
        if self.kind in ("timeout", "connection"):
            return True
        return self.kind == "http_status" and self.status is not None and (
            self.status in (408, 429) or self.status >= 500)

    def __str__(self) -> str:
        return f"{self.kind}: {self.message} <{self.url}>"

    def __repr__(self) -> str:
        return f"FetchError({self.kind!r}, {self.url!r}, {self.message!r}, status={self.status!r})"

    def __reduce__(self):
        return (FetchError, (self.kind, self.url, self.message, self.status, self.retry_after))

    def to_dict(self) -> dict:
        return {"kind": self.kind, "url": self.url, "message": self.message,
                "status": self.status, "retry_after": self.retry_after,
                "transient": self.transient}

    @classmethod
    def from_dict(cls, d: dict) -> "FetchError":
        return cls(d["kind"], d["url"], d["message"], d.get("status"), d.get("retry_after"))
