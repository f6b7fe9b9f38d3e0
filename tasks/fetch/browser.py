"""Render pages that need JavaScript: headless Chromium through Selenium.

Some blogs draw their posts with JavaScript, and most comment services (Disqus,
LiveFyre, Facebook) load comments by script, a page at a time behind a "load
more" button (paper, section 4.1). A `BrowserPool` renders a URL the way a
reader sees it: it waits until the page is quiet (no DOM change and no request
in flight for a moment, bounded), clicks the known "load more" buttons until
none is left, inlines the comment-widget iframes, and returns the final DOM.

Sessions are expensive to start and leak memory as they age, so a pool keeps a
few and recycles each after `max_pages` pages, after a crash and after a
timeout (a page whose script hangs leaves its renderer unusable). A session is a
few hundred MB: one that no render has used for `idle_timeout` seconds is quit
(`release_idle`), and a later render starts a fresh one.

Every request of the browser goes through a guarding proxy (proxy.py): on the worker's
loopback for local Chromium, on the address `BLOGHARVEST_PROXY_ADVERTISE` gives for a remote
Selenium Grid (grid.py); a Grid without it renders nothing (`GridUnguarded`) unless
`BLOGHARVEST_UNGUARDED_GRID=1`.

The pure decisions behind `--js auto` (`needs_js`, `has_script_comments`) are in js_need.py.
"""
from __future__ import annotations

import contextlib
import os
import queue
import re
import secrets
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass, field

from tasks.fetch.browser_procs import _MemoryWatch, _first_existing, _is_timeout, _kill, _process_tree
from tasks.fetch.grid import ENV_ADVERTISE, ENV_UNGUARDED, UNGUARDED, Listen, grid_listen
from tasks.fetch.guard import AllowPrivate
from tasks.fetch.page_scripts import (_CLEAN, _CLICK, _FRAMES, _INSTRUMENT, _SETTLE, _SIGNATURE, _SPENT,
                                      _STATUS, _WAIT_SELECTOR, DOM_SIZE, guard_script)
from tasks.fetch.proxy import GuardingProxy

__all__ = ["BrowserPool", "headless_shell", "RenderError", "RenderTimeout", "GridUnguarded", "DEFAULT_LOAD_MORE", "COMMENT_FRAMES",
           "CHROMIUM_FLAGS"]

# "Show more / load more" buttons of comment services and themes, tried in this order.
DEFAULT_LOAD_MORE: tuple[str, ...] = (
    # Disqus (inside its iframe), 2013 and current markup
    "a[data-action='more-posts']", "div.load-more a.btn", "a.load-more__button",
    "button.load-more-refresh__button", "button.load-more__button",
    # LiveFyre
    "div.fyre-stream-more-container", "div.fyre-stream-more", "a.fyre-stream-more",
    # Facebook comments plugin
    "div._5o4h button", "button._1gl3", "a.UFIPagerLink",
    # WordPress: wpDiscuz, Jetpack, themes
    ".wpdiscuz-loadmore-link", "button.wpd-load-more-submit", ".wc-load-more-submit",
    "a.load-more-comments", "button.load-more-comments", "#load-more-comments",
    # Blogger threaded comments ("Load more...")
    "div.loadmore a", "a.comment-thread-loadmore",
    # IntenseDebate, Commento, Hyvor, generic
    "a#IDShowMoreComments", "button.commento-more-button", "button.show-more-comments",
    "a.show-more-comments", "button.more-comments", "a.more-comments",
    "button.load-more", "a.load-more", "[data-action='load-more']", "[data-action='load-more-comments']",
    "button.js-load-more", "button.show-more", "a.show-more",
)

# iframes whose content is the comment thread (src substrings); inlined into the result.
COMMENT_FRAMES: tuple[str, ...] = (
    "disqus.com/embed/comments", "livefyre.com", "/plugins/comments", "intensedebate.com",
    "commento", "hyvor.com", "utteranc.es", "giscus.app", "remark42", "cusdis.com",
    "graphcomment.com", "hypercomments.com",
)

# Without the background-networking flags Chromium's own connections (updates,
# field trials) are refused by a closed network and slow every start.
CHROMIUM_FLAGS: tuple[str, ...] = (
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
    "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--mute-audio",
    "--window-size=1280,2000",
    # renderer memory: one renderer, a bounded V8 heap (the DOM's own size is watched in the page
    # while it loads, page_scripts._GUARD, and the processes' memory, BrowserPool.max_renderer_bytes)
    "--renderer-process-limit=1", "--js-flags=--max-old-space-size=512",
    # a page left for about:blank is kept alive in the back-forward cache, its renderer too:
    # one more renderer (20-25 MB) per page rendered until the session is recycled
    "--disable-back-forward-cache",
)

# Chromium's headless shell first (Debian's chromium-headless-shell): the same engine without the
# browser's user interface, which a crawl never shows: no WebUI renderer beside the page's, about
# half the memory of a session (issue 33)
_BINARIES = ("/usr/lib/chromium/chromium-headless-shell", "/usr/bin/chromium", "/usr/bin/chromium-browser",
             "/usr/bin/google-chrome")
_DRIVERS = ("/usr/bin/chromedriver",)


def headless_shell(binary: str | None) -> bool:
    """Is `binary` Chromium's headless shell (chrome-headless-shell, Debian's chromium-headless-shell)?"""
    return "headless" in os.path.basename(binary or "")


class RenderError(RuntimeError):
    """A page could not be rendered; `kind` is "timeout", "crash", "network", "too_large" or
    "unavailable" (no browser on this machine, or none that may be used: rendering is off,
    not a page's fault; `warning` names it in the crawl's report)."""
    warning = "no-browser"

    def __init__(self, kind: str, url: str, message: str):
        super().__init__(f"render {kind}: {url}: {message}")
        self.kind, self.url, self.message = kind, url, message


class GridUnguarded(RenderError):
    """SELENIUM_REMOTE_URL without BLOGHARVEST_PROXY_ADVERTISE: the Grid's browser could not
    reach the guarding proxy, so it is not used (fail closed)."""
    warning = "unguarded-grid"

    def __init__(self, url: str = "-"):
        super().__init__("unavailable", url, UNGUARDED)


class RenderTimeout(RenderError):
    def __init__(self, url: str, message: str):
        super().__init__("timeout", url, message)


# --------------------------------------------------------------------------- sessions

@dataclass(eq=False)
class _Session:
    driver: object
    profile: str | None
    pids: list = field(default_factory=list)
    pages: int = 0
    cdp: bool = False
    proxy: GuardingProxy | None = None
    over_memory: bool = False  # the memory watch killed it

    @property
    def id(self) -> str:
        return self.driver.session_id


class BrowserPool:
    """A few headless Chromium sessions, each recycled after `max_pages` pages.

    Thread-safe: `render` takes an idle session (starting one lazily), so at most
    `size` pages render at once. With `SELENIUM_REMOTE_URL` set the sessions are
    opened on that Selenium Grid instead of a local Chromium.
    """

    def __init__(self, size: int = 1, max_pages: int = 50, page_load_timeout: float = 20,
                 script_timeout: float = 10, *, binary: str | None = None, driver: str | None = None,
                 remote_url: str | None = None, quiet_ms: int = 250, stale_ms: int = 2500,
                 extra_args: tuple[str, ...] = (), allow_private: AllowPrivate = None,
                 max_dom_bytes: int = 15_000_000, max_renderer_bytes: int = 2_000_000_000,
                 max_dom_nodes: int = 500_000, max_renderer_growth: int = 512_000_000,
                 request_timeout: float = 20.0, record_bytes: int = 100_000_000,
                 proxy_advertise: str | None = None, unguarded_grid: bool | None = None,
                 idle_timeout: float = 0.0):
        if size < 1 or max_pages < 1:
            raise ValueError("size and max_pages must be at least 1")
        self.size, self.max_pages = size, max_pages
        self.page_load_timeout, self.script_timeout = page_load_timeout, script_timeout
        self.quiet_ms, self.stale_ms = quiet_ms, stale_ms
        self.remote_url = remote_url if remote_url is not None else os.environ.get("SELENIUM_REMOTE_URL") or None
        self.binary = binary or _first_existing(_BINARIES) or shutil.which("chromium")
        self.driver_path = driver or _first_existing(_DRIVERS) or shutil.which("chromedriver")
        self.extra_args = tuple(extra_args)
        # a Grid's browser reaches the guarding proxy at this host[:port] (grid.py); without it a
        # Grid renders nothing unless told it may render unguarded
        self.proxy_advertise = (proxy_advertise if proxy_advertise is not None
                                else os.environ.get(ENV_ADVERTISE, "").strip() or None)
        self.unguarded_grid = (unguarded_grid if unguarded_grid is not None
                               else os.environ.get(ENV_UNGUARDED) == "1")
        # every request of the browser goes through a guarding proxy (tasks/fetch/proxy.py)
        self.allow_private = allow_private
        self.max_dom_bytes, self.max_renderer_bytes = max_dom_bytes, max_renderer_bytes
        # while a page loads: its DOM's size in the page (characters, nodes: the guard script),
        # and any of the browser's processes growing by more than `max_renderer_growth` bytes
        # resident (a DOM built in one script task, before the guard can run)
        self.max_dom_nodes, self.max_renderer_growth = max_dom_nodes, max_renderer_growth
        self._guard_key = "__bh" + secrets.token_hex(8)
        self._guard = guard_script(self._guard_key, max_dom_bytes, max_dom_nodes)
        self.request_timeout, self.record_bytes = request_timeout, record_bytes
        self._idle: queue.LifoQueue = queue.LifoQueue()
        for _ in range(size):
            self._idle.put(None)  # a slot without a session yet
        self._live: set = set()
        self._lock = threading.Lock()
        self._closed = False
        self.started = 0  # sessions started over the pool's life
        self.idle_timeout = idle_timeout  # seconds without a render before the sessions are quit; 0: never
        self._busy = 0  # renders in progress
        self._timer: threading.Timer | None = None

    # -- lifecycle

    def __enter__(self) -> "BrowserPool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Quit every session; a closed pool renders nothing more."""
        self._closed = True
        with self._lock:
            live = list(self._live)
            timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()
        for s in live:
            self._quit(s)

    @contextlib.contextmanager
    def held(self):
        """No idle session is quit while the block runs: a step rendering a few pages of one
        blog (the --js sample) renders them in one session, its scripts, styles and images
        fetched once (the browser's cache) rather than once a page."""
        with self._lock:
            self._busy += 1
        try:
            yield self
        finally:
            with self._lock:
                self._busy -= 1
            self._arm_idle()

    def release_idle(self) -> int:
        """Quit the sessions no render is using now; their slots stay, so a later render starts
        a fresh session. Returns how many were quit."""
        taken = []
        while True:
            try:
                taken.append(self._idle.get_nowait())
            except queue.Empty:
                break
        quit_ = 0
        for s in taken:
            if s is not None:
                self._quit(s)
                quit_ += 1
            self._idle.put(None)
        return quit_

    def _arm_idle(self) -> None:
        """(Re)start the countdown after which unused sessions are quit."""
        if not self.idle_timeout or self._closed:
            return
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = threading.Timer(self.idle_timeout, self._on_idle)
            self._timer.daemon = True
            self._timer.start()

    def _on_idle(self) -> None:
        with self._lock:
            busy = self._busy
        if not busy:  # a render in progress re-arms the countdown when it ends
            self.release_idle()

    def session_ids(self) -> list[str]:
        with self._lock:
            return [s.id for s in self._live]

    def browser_pids(self) -> list[int]:
        """Process ids of the drivers and browsers of the live sessions (for memory figures)."""
        with self._lock:
            live = list(self._live)
        out = []
        for s in live:
            if s.pids:
                out.extend(_process_tree(s.pids[0]))
        return out

    def _options(self, proxy: GuardingProxy | None = None):
        from selenium import webdriver

        o = webdriver.ChromeOptions()
        for a in CHROMIUM_FLAGS + (proxy.flags if proxy else ()) + self.extra_args:
            o.add_argument(a)
        o.page_load_strategy = "normal"
        return o

    def _proxy(self) -> GuardingProxy | None:
        """The new session's guarding proxy: on loopback for local Chromium, where the Grid
        reaches it for a remote one; None only for a Grid allowed to render unguarded.
        Raises GridUnguarded for a Grid with neither setting."""
        if self.remote_url and not self.proxy_advertise:
            if self.unguarded_grid:
                return None
            raise GridUnguarded()
        listen = grid_listen(self.remote_url, self.proxy_advertise) if self.remote_url else Listen()
        return GuardingProxy(self.allow_private, timeout=self.request_timeout, max_bytes=self.max_dom_bytes,
                             record_bytes=self.record_bytes, listen=listen).start()

    def _start(self) -> _Session:
        if not self.remote_url and not (self.binary and os.path.exists(self.binary) and self.driver_path
                                        and os.path.exists(self.driver_path)):
            raise RenderError("unavailable", "-", "no Chromium or chromedriver found (install chromium and "
                                            "chromium-driver, or set SELENIUM_REMOTE_URL)")
        proxy = self._proxy()
        try:
            s = self._open(self._options(proxy), proxy)
        except Exception:
            if proxy is not None:
                proxy.close()
            raise
        try:
            drv = s.driver
            if not self.remote_url:
                try:
                    drv.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                                        {"source": self._guard + _INSTRUMENT})
                    s.cdp = True
                except Exception:
                    s.cdp = False
            # every HTTP call to the driver is bounded, so a wedged browser cannot hang a worker
            try:
                drv.command_executor._client_config.timeout = max(self.page_load_timeout, self.script_timeout) + 15
            except AttributeError:  # pragma: no cover - older selenium
                pass
            drv.set_page_load_timeout(self.page_load_timeout)
            drv.set_script_timeout(self.script_timeout)
        except Exception:
            self._quit(s)
            raise
        with self._lock:
            self._live.add(s)
            self.started += 1
        return s

    def _open(self, o, proxy: GuardingProxy | None) -> _Session:
        """A WebDriver session: on the Grid at `remote_url`, else a local Chromium with its own profile."""
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        if self.remote_url:
            return _Session(webdriver.Remote(command_executor=self.remote_url, options=o), None, proxy=proxy)
        o.binary_location = self.binary
        # the headless shell opens no page in a profile chromedriver did not make (the session is
        # never created): chromedriver's own temporary profile, removed when the session quits
        profile = None if headless_shell(self.binary) else tempfile.mkdtemp(prefix="bh-chromium-")
        if profile:
            o.add_argument(f"--user-data-dir={profile}")
        try:
            drv = webdriver.Chrome(options=o, service=Service(self.driver_path))
        except Exception:
            if profile:
                shutil.rmtree(profile, ignore_errors=True)
            raise
        s = _Session(drv, profile, proxy=proxy)
        s.pids = _process_tree(drv.service.process.pid)
        return s

    def _quit(self, s: _Session) -> None:
        with self._lock:
            self._live.discard(s)
        pids = s.pids[:1] and _process_tree(s.pids[0]) or list(s.pids)
        try:
            s.driver.quit()
        except Exception:
            pass
        _kill([p for p in pids if p])  # whatever quit left behind (a crashed driver's browser)
        if s.profile:
            shutil.rmtree(s.profile, ignore_errors=True)
        if s.proxy is not None:
            s.proxy.close()

    # -- rendering

    def render(self, url: str, load_more_selectors=DEFAULT_LOAD_MORE, max_clicks: int = 20,
               wait_selector: str | None = None, comment_frames=COMMENT_FRAMES, document: str | None = None,
               pictures: bool = True) -> dict:
        """The page at `url` as rendered: {"url" (final), "html" (DOM outerHTML, comment
        iframes inlined), "clicks", "elapsed" (s), "status" (HTTP status or None), "session",
        "resources", "refused", "resources_dropped"}.

        Every request of the browser went through the session's guarding proxy: "resources"
        lists what it fetched, each a `tasks.fetch.http.Response.to_dict()` (url, status,
        headers, content base64, fetched_at ...; `Response.from_dict` gives it back for the
        WARC), "refused" what the guard refused (`FetchError.to_dict()`), "resources_dropped"
        how many were served but not kept (over the pool's `record_bytes`). HTTPS resources
        pass through CONNECT tunnels and are not recorded. `document`: the page's HTML as the
        crawler read it (through the guard), served to the browser for `url` in place of a
        second request to the blog (not recorded again). `pictures=False`: images, fonts,
        media and stylesheets are not fetched (a render that only reads what scripts write).

        Raises RenderTimeout when the page or its scripts exceed the pool's timeouts and
        RenderError otherwise; the pool stays usable either way. A crash (the browser or
        its driver died) is retried once on a fresh session.
        """
        from selenium.common.exceptions import WebDriverException
        from urllib3.exceptions import HTTPError as Urllib3Error

        if self._closed:
            raise RenderError("crash", url, "the browser pool is closed")
        with self._lock:
            self._busy += 1
        s = self._idle.get()
        try:
            for attempt in (1, 2):
                if s is None:
                    s = self._new_session(url)
                try:
                    out = self._render(s, url, tuple(load_more_selectors or ()), max_clicks,
                                       wait_selector, tuple(comment_frames or ()), document, pictures)
                except RenderError:
                    s.pages += 1
                    raise
                except (WebDriverException, Urllib3Error, ConnectionError, OSError) as e:
                    over = s.over_memory
                    self._quit(s)
                    s = None
                    failure = self._session_failure(e, url, over, last_attempt=attempt == 2)
                    if failure is not None:
                        raise failure from e
                    continue
                s.pages += 1
                return out
        finally:
            self._idle.put(self._reusable(s))
            with self._lock:
                self._busy -= 1
            self._arm_idle()

    def _new_session(self, url: str) -> _Session:
        """A fresh browser session; a failure to start one is a RenderError "crash"."""
        try:
            return self._start()
        except RenderError:
            raise
        except Exception as e:
            raise RenderError("crash", url, f"could not start a browser session: "
                                            f"{type(e).__name__}: {str(e).strip()[:300]}") from e

    def _session_failure(self, e: Exception, url: str, over_memory: bool,
                         last_attempt: bool) -> RenderError | None:
        """What a dead session's error means: the memory cap stopped it, a timeout (a hung
        script), or a crash; None when a crash may be retried on a fresh session."""
        if over_memory:
            return RenderError("too_large", url, f"a browser process grew past "
                               f"{self.max_renderer_bytes // 1_000_000} MB, or by more than "
                               f"{self.max_renderer_growth // 1_000_000} MB while the page loaded, and was stopped")
        if _is_timeout(e):
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            return RenderTimeout(url, f"the page or its scripts did not finish within the "
                                      f"{self.page_load_timeout:g}s load / {self.script_timeout:g}s "
                                      f"script timeouts (a hung script?): {first}")
        if last_attempt:
            return RenderError("crash", url, f"the browser failed twice: {type(e).__name__}: "
                                             f"{str(e).strip()[:300]}")
        return None

    def _reusable(self, s: _Session | None) -> _Session | None:
        """The session back to the idle queue, or None when the pool is closing or the session
        has rendered its `max_pages` (it is quit)."""
        if s is not None and (self._closed or s.pages >= self.max_pages):
            self._quit(s)
            return None
        return s

    def _settle(self, drv, need_change: bool = False, base: int = 0) -> dict:
        limit = max(0.5, self.script_timeout - 1) * 1000
        return drv.execute_async_script(_SETTLE, self.quiet_ms, self.stale_ms, limit, need_change, base) or {}

    def _click_all(self, drv, selectors, budget: int, deadline: float) -> int:
        """Click load-more buttons until none is usable, `budget` clicks or the deadline;
        after each click wait for the DOM to change and settle. Returns the clicks made."""
        clicks = 0
        start_url = drv.current_url
        while clicks < budget and selectors and time.monotonic() < deadline:
            hit = drv.execute_script(_CLICK, list(selectors))
            if not hit:
                break
            clicks += 1
            self._settle(drv, need_change=True, base=hit.get("base", 0))
            if drv.current_url != start_url:
                break  # it navigated after all: stop on the new page
            if drv.execute_script(_SIGNATURE) == hit.get("sig"):
                drv.execute_script(_SPENT)  # a button that loads nothing: don't click it again
        return clicks

    def _render(self, s: _Session, url, selectors, max_clicks, wait_selector, frames, document=None,
                pictures=True) -> dict:
        if s.proxy is not None:
            s.proxy.pictures = pictures
        try:
            with _MemoryWatch(s, self.max_renderer_bytes, self.max_renderer_growth):
                return self._render_watched(s, url, selectors, max_clicks, wait_selector, frames, document)
        finally:
            if s.proxy is not None:
                s.proxy.pictures = True

    def _render_watched(self, s: _Session, url, selectors, max_clicks, wait_selector, frames, document=None) -> dict:
        t0 = time.monotonic()
        deadline = t0 + self.page_load_timeout + 4 * self.script_timeout
        drv = s.driver
        if document is not None and s.proxy is not None:
            s.proxy.serve_document(url, document)
        try:  # (the page's own scripts and frames may ask for it again: the same document, while it renders)
            self._load(s, url)
            self._too_large(s, url)
            self._settle_page(s, wait_selector)
            self._too_large(s, url)
            clicks = self._click_all(drv, selectors, max_clicks, deadline) if max_clicks > 0 else 0
            frame_html, clicks = self._comment_frames(s, frames, selectors, max_clicks, clicks, deadline)
            html, status, final = self._capture(s, url, frame_html)
        finally:
            if document is not None and s.proxy is not None:
                s.proxy.serve_document(url, None)
        fetched = s.proxy.take() if s.proxy is not None else {"resources": [], "refused": [], "dropped": 0}
        return {"url": final, "html": html, "clicks": clicks, "elapsed": round(time.monotonic() - t0, 3),
                "status": status, "session": s.id, "resources": fetched["resources"],
                "refused": fetched["refused"], "resources_dropped": fetched["dropped"]}

    def _load(self, s: _Session, url: str) -> None:
        """Navigate to `url`; a network failure or the guard refusing the page is a RenderError
        "network"."""
        from selenium.common.exceptions import WebDriverException

        drv = s.driver
        if s.proxy is not None:
            s.proxy.take()  # whatever an earlier page fetched after its capture
        try:
            drv.get(url)
        except WebDriverException as e:
            net = re.search(r"net::ERR_[A-Z_]+", str(e))
            if not net:
                raise
            raise RenderError("network", url, f"the browser could not load the page ({net.group(0)})") from e
        if drv.current_url.startswith("chrome-error://"):
            raise RenderError("network", url, "the browser could not load the page (connection failed)")
        refused = s.proxy.refused_top(url) if s.proxy is not None else None
        if refused:
            raise RenderError("network", url, f"the guard refused the page: {refused}")

    def _settle_page(self, s: _Session, wait_selector: str | None) -> None:
        """Instrument the page (unless CDP did on load) and wait for it to settle, and for
        `wait_selector` when given."""
        drv = s.driver
        if not s.cdp:
            drv.execute_script(self._guard + _INSTRUMENT)
        self._settle(drv)
        if wait_selector:
            drv.execute_async_script(_WAIT_SELECTOR, wait_selector, max(0.5, self.script_timeout - 1) * 1000)
            self._settle(drv)

    def _comment_frames(self, s: _Session, frames, selectors, max_clicks: int, clicks: int,
                        deadline: float) -> tuple[list, int]:
        """([(index, src, body html)] of the comment iframes matching `frames`, each settled and
        its load-more buttons clicked within what is left of `max_clicks`; the clicks so far).
        A frame the guard refused is left out: nothing of it goes into the page."""
        if not frames:
            return [], clicks
        drv = s.driver
        frame_html = []
        for i, (el, src) in enumerate(drv.execute_script(_FRAMES, list(frames), 5) or []):
            if s.proxy is not None and s.proxy.refused_top(src):
                continue
            drv.switch_to.frame(el)
            try:
                drv.execute_script(self._guard + _INSTRUMENT)
                self._settle(drv)
                if self._over(drv):
                    continue  # a frame grown too large was emptied: nothing of it goes into the page
                if max_clicks > clicks:
                    clicks += self._click_all(drv, selectors, max_clicks - clicks, deadline)
                drv.execute_script(_CLEAN)
                body = drv.execute_script("return document.body ? document.body.innerHTML : ''")
                frame_html.append((i, src, body))
            finally:
                drv.switch_to.default_content()
        return frame_html, clicks

    def _over(self, drv) -> dict | None:
        """What the guard script found when it stopped the page ({chars, nodes}), else None."""
        got = drv.execute_script(f"return window[{self._guard_key!r}] || null")
        return got if isinstance(got, dict) else None

    def _too_large(self, s: _Session, url: str) -> None:
        """RenderError "too_large" when the guard stopped the page (its DOM grew past the
        bounds while it loaded); the browser is left on about:blank."""
        over = self._over(s.driver)
        if over:
            s.driver.get("about:blank")
            raise RenderError("too_large", url, f"the page's DOM grew past {self.max_dom_bytes} characters or "
                                                f"{self.max_dom_nodes} nodes while it loaded (at least {over.get('chars')} "
                                                f"characters, {over.get('nodes')} nodes) and was stopped")

    def _capture(self, s: _Session, url: str, frame_html: list) -> tuple[str, int | None, str]:
        """(html with the frames inlined, HTTP status, final URL) of the rendered page, refused
        over `max_dom_bytes`; the browser is left on about:blank (the page's timers and
        connections stopped between renders)."""
        drv = s.driver
        self._too_large(s, url)
        drv.execute_script(_CLEAN)
        size = int(drv.execute_script(DOM_SIZE) or 0) + sum(len(b or "") for _, _, b in frame_html)
        if size > self.max_dom_bytes:
            drv.get("about:blank")
            raise RenderError("too_large", url, f"rendered DOM of {size} characters exceeds {self.max_dom_bytes}")
        html = drv.execute_script(
            "return (document.doctype ? '<!DOCTYPE html>\\n' : '') + document.documentElement.outerHTML")
        status = drv.execute_script(_STATUS)
        final = drv.current_url
        if frame_html:
            html = _inline_frames(html, frame_html)
        drv.get("about:blank")
        return html, status, final


def _inline_frames(html: str, frames: list) -> str:
    """Put each comment iframe's body after its <iframe> element (as <div data-bh-frame-src>),
    done on the serialised page so none of the frame's markup runs in the page."""
    from lxml import html as lhtml

    root = lhtml.document_fromstring(html)
    for index, src, body in frames:
        found = root.xpath(f"//iframe[@data-bh-frame='{index}']")
        if not found:
            continue
        holder = lhtml.Element("div")
        holder.set("data-bh-frame-src", src)
        try:
            for part in lhtml.fragments_fromstring(body or ""):
                if isinstance(part, str):
                    holder.text = (holder.text or "") + part
                else:
                    holder.append(part)
        except Exception:
            continue
        found[0].addnext(holder)
    for el in root.xpath("//iframe[@data-bh-frame]"):
        del el.attrib["data-bh-frame"]
    return "<!DOCTYPE html>\n" + lhtml.tostring(root, encoding="unicode")
