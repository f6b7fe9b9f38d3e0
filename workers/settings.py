"""Run-time settings from the environment, read in one place so every worker agrees."""
from __future__ import annotations

import os
from dataclasses import dataclass, field


def _float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default


def _int(name: str, default: int) -> int:
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


DEFAULT_QUEUE = "celery"  # every task
RENDER_QUEUE = "render"  # pages a browser draws (workers with browsers may take only these)
WORKER_QUEUES = f"{DEFAULT_QUEUE},{RENDER_QUEUE}"  # what a worker consumes unless told otherwise


@dataclass(frozen=True)
class Settings:
    redis_url: str | None = field(default_factory=lambda: os.environ.get("REDIS_URL") or None)
    allow_private: bool = field(default_factory=lambda: os.environ.get("BLOGHARVEST_ALLOW_PRIVATE") == "1")
    user_agent: str = field(default_factory=lambda: os.environ.get(
        "BLOGHARVEST_USER_AGENT", "blogharvest/0.1 (+https://example.org/blogharvest; web archiving)"))
    # limits on what one request may cost
    request_timeout: float = field(default_factory=lambda: _float("BLOGHARVEST_REQUEST_TIMEOUT", 30.0))
    max_page_bytes: int = field(default_factory=lambda: _int("BLOGHARVEST_MAX_PAGE_BYTES", 15_000_000))
    max_redirects: int = field(default_factory=lambda: _int("BLOGHARVEST_MAX_REDIRECTS", 10))
    max_pages: int = field(default_factory=lambda: _int("BLOGHARVEST_MAX_PAGES", 20_000))
    # politeness: seconds between two requests to one host (robots.txt Crawl-delay wins if larger);
    # loopback and private hosts (tests, the eval harness) get `local_delay`
    delay: float = field(default_factory=lambda: _float("BLOGHARVEST_DELAY", 1.0))
    local_delay: float = field(default_factory=lambda: _float("BLOGHARVEST_LOCAL_DELAY", 0.0))
    # (issue 34) a robots.txt Crawl-delay above this is capped (Heritrix respects up to 300 s by
    # default): one blog asking for 10 minutes between requests would take days, and the cap
    # is said in the crawl's report
    max_crawl_delay: float = field(default_factory=lambda: _float("BLOGHARVEST_MAX_CRAWL_DELAY", 300.0))
    # how many pages of one crawl may be in flight at once, across all workers
    crawl_parallelism: int = field(default_factory=lambda: _int("BLOGHARVEST_CRAWL_PARALLELISM", 8))
    # task time limits (seconds); the broker's visibility timeout is kept above twice the hard limit
    soft_time_limit: int = field(default_factory=lambda: _int("BLOGHARVEST_SOFT_TIME_LIMIT", 240))
    hard_time_limit: int = field(default_factory=lambda: _int("BLOGHARVEST_HARD_TIME_LIMIT", 300))
    # an in-flight page older than this is handed out again (a worker died holding it)
    stale_after: float = field(default_factory=lambda: _float("BLOGHARVEST_STALE_AFTER", 0.0))
    media_dir: str | None = field(default_factory=lambda: os.environ.get("BLOGHARVEST_MEDIA_DIR") or None)
    warc_dir: str | None = field(default_factory=lambda: os.environ.get("BLOGHARVEST_WARC_DIR") or None)
    # an ended crawl's working keys (frontier, seen, done, page cache...) expire after this
    finished_ttl: int = field(default_factory=lambda: _int("BLOGHARVEST_FINISHED_TTL", 86400))
    stream_maxlen: int = field(default_factory=lambda: _int("BLOGHARVEST_STREAM_MAXLEN", 1_000_000))
    selenium_remote_url: str | None = field(default_factory=lambda: os.environ.get("SELENIUM_REMOTE_URL") or None)
    # rendering: browser sessions per worker, pages before a session is recycled, bounds
    browsers: int = field(default_factory=lambda: _int("BLOGHARVEST_BROWSERS", 1))
    # where Chromium and chromedriver are (default: Debian's paths, then PATH)
    chromium: str = field(default_factory=lambda: os.environ.get("BLOGHARVEST_CHROMIUM", ""))
    chromedriver: str = field(default_factory=lambda: os.environ.get("BLOGHARVEST_CHROMEDRIVER", ""))
    browser_pages: int = field(default_factory=lambda: _int("BLOGHARVEST_BROWSER_PAGES", 50))
    # seconds a browser session may sit unused before it is quit (0: kept until recycled)
    browser_idle: float = field(default_factory=lambda: _float("BLOGHARVEST_BROWSER_IDLE", 30.0))
    page_load_timeout: float = field(default_factory=lambda: _float("BLOGHARVEST_PAGE_LOAD_TIMEOUT", 30.0))
    script_timeout: float = field(default_factory=lambda: _float("BLOGHARVEST_SCRIPT_TIMEOUT", 15.0))
    max_clicks: int = field(default_factory=lambda: _int("BLOGHARVEST_MAX_CLICKS", 30))
    # a browser (driver, Chromium and its renderers) using more resident memory is stopped
    max_renderer_bytes: int = field(default_factory=lambda: _int("BLOGHARVEST_MAX_RENDERER_BYTES", 2_000_000_000))

    @property
    def visibility_timeout(self) -> int:
        return 2 * self.hard_time_limit + 60

    @property
    def stale_seconds(self) -> float:
        return self.stale_after or float(self.visibility_timeout)


def settings() -> Settings:
    return Settings()


def wacz_dir() -> str | None:
    """Where crawls' WACZ packages go when no --wacz names one (BLOGHARVEST_WACZ_DIR); read
    here, where the crawl command finds it before it has imported anything heavier."""
    return os.environ.get("BLOGHARVEST_WACZ_DIR") or None
