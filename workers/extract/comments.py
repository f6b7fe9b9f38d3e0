"""Comments of a post: its comment feed merged with the comments its pages show.

The pipeline calls `comments_for` for every post page; see tasks/extract/comments.py for the
pure parts (comment feeds, rule learning by maximum weighted bipartite matching).

A post's comments must not depend on which worker reached it first nor on whether it is
still in the feed window (only then is its comment count known). So:

- the blog's comment rule (its Redis hash, `comment_rules`) is settled once per crawl,
  before any post uses it, on a sample fixed by the feed (the entries with the most
  comments): a stored rule that still reads the sample is kept, otherwise one is learned
  there. One worker does it under a Redis lock; a page of another waits a moment,
  then is deferred (RuleUnsettled: its thread goes to other pages).
- every post is then read the same way: its pages (and comment pages) by the rule,
  merged with its comment feed, whatever the feed's size or the entry's count. A feed
  that lists every comment gives the same list as one truncated to the newest few.
- a post the blog's rule does not read (under half its feed comments found) learns a
  rule on its own pages, used for it alone; it becomes the blog's rule only when the
  blog has none (the sample had no comments to learn from).
- a blog with no comment feed to learn from settles on the repeated comment blocks its
  first posts agree on (tasks.learn.comment_blocks), the posts' content located by the
  blog's content rule; a post read by no rule tries the blocks of its own page, and where
  they are ADOPT_BLOCKS comments or more, every one its page counts, and the blog has no rule,
  they become the blog's
  (its feed's newest posts may have no comment at all to settle on).
- rules learned on the sample's feeds that leave a field unread, or read the sample worse than
  READS_WELL (a block of no name beside each comment, on a page whose broken markup nests every
  comment in the one before), are weighed against the rule of the blocks by how well each
  reads the sample (`_best_reading`).
- a blog whose sample post's page shows every comment of its feed, each with the name, date
  and text the feed gives (the feed adds nothing), reads no more comment feeds
  (`comment_feeds` false): one request less per post (issue 33); a post whose page says it
  has more comments than it shows still reads its feed. Times the page prints in a local clock
  (no zone, or labelled UTC) that the feed shows one offset from are read in that clock
  (the rule's `clock`, tasks.extract.comment_clock) before they are compared; a post whose
  comments fall in a season the clock was not learned in (summer time) still reads its feed.
"""
from __future__ import annotations

import hashlib
import json
import logging
import time

from tasks.extract import comment_clock
from tasks.extract import comments as C
from tasks.extract.comment_pages import own_comment_page
from tasks.extract.comment_signals import shown_count
from tasks.discover.feeds import FeedError, parse_comment_feed
from tasks.fetch.http import FetchError
from tasks.fetch.page import Page
from tasks.learn.comment_blocks import learn_comment_blocks, theme_texts
from tasks.learn.rules import first_of
from workers import heal
from workers.fetch import patience
from workers.fetch.pages import page_at
from workers.fetch.patience import HostBusy
from workers.fetch.rendering import cached_rendering

log = logging.getLogger("blogharvest")

MAX_COMMENT_PAGES = 20  # other pages of one post's comments fetched at most
MIN_FEED_TO_LEARN = 2  # feed comments needed to learn a rule
MIN_FEED_TO_SKIP = 3  # feed comments a sample post's page must show all of before feeds are left unread
READS_WELL = 1.5  # reading_score (2 at most) a rule learned on a sample post must reach to be taken at once
ADOPT_BLOCKS = 3  # comment blocks a post's own page must show (all it counts) before its rule becomes the blog's
MIN_SHARE = 0.5  # a rule that finds under this share of a post's feed comments does not read it
SAMPLE_TRIES = 3  # comment feeds of the sample read at most when settling the blog's rule
BLOCK_SAMPLE = 8  # posts whose repeated blocks settle the rule of a blog without comment feeds
BLOCK_LOOK = 30  # ... chosen among this many entries by the comment count their pages print
LEARN_SECONDS = 120  # the settling worker's lock; past it another worker takes over
WAIT_HERE = 2.0  # a page waits this long in its thread for another worker to settle the rule ...
DEFER_SECONDS = 2.0  # ... then it is deferred this long (its thread goes to other pages)


class RuleUnsettled(HostBusy):
    """Another worker is settling the blog's comment rule: the page is deferred to the due set
    like a page whose host is busy (workers/crawl.py), so that no thread waits on the settling
    and a worker killed meanwhile holds no page that waits (issue 36: under repeated kills,
    pages that waited were counted as failed deliveries and dropped)."""

    def __init__(self, crawl_id: str, wait: float):
        BaseException.__init__(self, f"crawl {crawl_id}: its comment rule is being settled elsewhere")
        self.host, self.wait = "", float(wait)


FEED_CACHE = "comment-feed:"  # prefix of the sample posts' comment feeds, as read, in the crawl's page cache


def _feed(rt, crawl_id: str, url: str, feed_url: str, kept: bool = False) -> list[dict] | None:
    """The comments of the post's feed at `feed_url`, or None. `kept`: a sample post of the
    settling: its feed's reading is kept in the crawl's page cache and read from there by the
    post's own reading (one request, as its comment pages)."""
    if kept and (held := rt.state.cached_page(crawl_id, FEED_CACHE + feed_url)) is not None:
        return held.get("comments")
    comments = None
    try:
        resp = rt.downloader.get(feed_url)
        comments = C.feed_comments(parse_comment_feed(resp.content, resp.url, resp.content_type), url)
    except FetchError as e:
        if e.status != 404:
            rt.state.add_error(crawl_id, feed_url, "comments", f"comment feed of {url}: {e}")
            return None  # (not kept: it may answer later)
    except FeedError as e:
        rt.state.add_error(crawl_id, feed_url, "comments", f"comment feed of {url} unreadable: {e}")
    if kept:
        rt.state.cache_page(crawl_id, FEED_CACHE + feed_url, {"url": feed_url, "comments": comments})
    return comments


def _comment_pages(rt, crawl_id: str, url: str, page: Page, root, kept: bool = False) -> list[tuple[str, object]]:
    """[(url, root)] of the post page and its other comment pages, following their links.
    `kept`: a sample post of the comment settling: its comment pages are kept in the crawl's
    page cache when fetched, and read from there by its own reading (one request each)."""
    pages = [(page.final_url, root)]
    seen = {url, page.final_url, own_comment_page(root, page.final_url)}  # (the post page under its number)
    queue = C.comment_page_links(root, page.final_url)
    while queue and len(pages) <= MAX_COMMENT_PAGES:
        u = queue.pop(0)
        if u in seen:
            continue
        seen.add(u)
        try:
            other = page_at(rt, crawl_id, u) if kept else Page.from_response(rt.downloader.get(u), u)
        except FetchError as e:
            rt.state.add_error(crawl_id, u, "comments", f"comment page of {url}: {e}")
            continue
        if other is None:  # (not an HTML page)
            continue
        pages.append((other.final_url, other.root))
        queue += [v for v in C.comment_page_links(other.root, other.final_url) if v not in seen]
    return pages


def _extract(pages, rule: dict, post_url: str) -> list[dict]:
    """The rule's comments on every page, once each (comment-page-1/ repeats the post page)."""
    out, seen = [], set()
    for u, r in pages:
        for c in C.extract_comments(r, rule, u, post_url):
            if c["id"] not in seen:
                seen.add(c["id"])
                out.append(c)
    return out


def _share(found: list[dict], feed: list[dict]) -> float:
    """The share of the feed's comments that `found` holds."""
    if not feed:
        return 1.0
    _, pairs = C.match_comments([c["content_text"] for c in found], [c["content_text"] for c in feed])
    return sum(1 for _, _, w in pairs if w >= C.MIN_SIMILARITY) / len(feed)


# ------------------------------------------------------------------ the blog's rule

def _sample(rt, crawl_id: str) -> list[dict]:
    """Feed entries to settle the rule on: most comments first (feed order among equals),
    then those whose count the feed does not say; never one known to have too few."""
    st = rt.state
    urls = st.blog(crawl_id).get("entry_urls") or []
    raw = st.r.hmget(rt.keys(crawl_id).entries, urls) if urls else []
    entries = [json.loads(e) for e in raw if e]
    counted = sorted((e for e in entries if (e.get("comment_count") or 0) >= MIN_FEED_TO_LEARN),
                     key=lambda e: -e["comment_count"])
    unknown = [e for e in entries if e.get("comment_count") is None]
    return (counted + unknown)[:SAMPLE_TRIES]


def _sample_page(rt, crawl_id: str, url: str) -> Page | None:
    """A sample post's page: its cached rendering, else the page as served (cached: the traversal
    will not fetch it again); None when it is binary or not HTML (the traversal reports it)."""
    try:
        return cached_rendering(rt, crawl_id, url) or page_at(rt, crawl_id, url)
    except FetchError:
        return None


def content_node(root, rules: dict | None):
    """The post's content element by the blog's content rule (None when it finds none)."""
    rule = ((rules or {}).get("content") or {}).get("rule")
    try:
        found = first_of(root, rule) if rule else []
    except Exception:  # a rule this page can not evaluate: no content known
        return None
    return found[0] if found and not isinstance(found[0], str) else None


FOOTER_AFTER = 100  # characters of the post between its title and a byline that closes it


def post_end(root, rules: dict | None):
    """Where the post ends on its page, for the comment blocks after it: its content element,
    or, where that element holds the comments too (Movable Type's `div.content`: the title, the
    text, a "Posted by X at DATE" line, then the comments), the byline closing the post's
    text (the author or date rule's node, inside the content, after the title and some text)."""
    content = content_node(root, rules)
    if content is None:
        return None
    order = None
    for field in ("author", "date"):
        rule = ((rules or {}).get(field) or {}).get("rule")
        title_rule = ((rules or {}).get("title") or {}).get("rule")
        try:
            node = next((n for n in first_of(root, rule) if not isinstance(n, str)), None) if rule else None
            title = next((n for n in first_of(root, title_rule) if not isinstance(n, str)), None) if title_rule else None
        except Exception:
            continue
        if node is None or title is None or node is content or not any(a is content for a in node.iterancestors()):
            continue
        order = order or {el: i for i, el in enumerate(root.iter())}
        start, end = max(order.get(d, 0) for d in title.iter()), order.get(node, 0)
        between = sum(len((el.text or "").strip()) + len((el.tail or "").strip())
                      for el in content.iter() if start < order.get(el, -1) < end)
        if between >= FOOTER_AFTER:
            return node
    return content


def _commented_first(rt, crawl_id: str, urls: list[str]) -> tuple[list[str], bool]:
    """The entries whose feed counts comments first (most first), then those it does not
    count, then those it says have none: the posts that show blocks to agree on; and whether
    the feed counted any."""
    raw = rt.state.r.hmget(rt.keys(crawl_id).entries, urls) if urls else []
    counts = [(json.loads(e) if e else {}).get("comment_count") for e in raw]
    order = sorted(range(len(urls)), key=lambda i: (0, -counts[i]) if counts[i] else (1 if counts[i] is None else 2, 0))
    return [urls[i] for i in order], any(c is not None for c in counts)


def _blocks(rt, crawl_id: str) -> tuple[dict | None, str | None]:
    """The rule the repeated comment blocks of the blog's first posts agree on; when they show
    none, the texts their theme prints on every post are kept (`comment_theme`) for the posts
    read alone."""
    blog = rt.state.blog(crawl_id)
    urls, counted = _commented_first(rt, crawl_id, blog.get("entry_urls") or [])
    read = {}
    if not counted:  # entries with no count (pseudo entries, a feed that counts none): the pages'
        # own "6 comments" lines order them (pages cached for learning, or cached now for the traversal)
        read = {u: p for u in urls[:BLOCK_LOOK] if (p := _sample_page(rt, crawl_id, u)) is not None}
        urls = sorted(urls, key=lambda u: -(shown_count(read[u].root) if u in read and not read[u].garbled else 0))
    pages = []
    for u in urls[:BLOCK_SAMPLE]:
        page = read.get(u) or _sample_page(rt, crawl_id, u)
        if page is not None:
            pages.append((page.root, post_end(page.root, blog.get("rules"))))
    rule = learn_comment_blocks(pages) if pages else None
    if rule:
        log.info("comment rule from the repeated blocks of %d posts: %s", len(pages), rule)
        return rule, urls[0]
    rt.state.save_blog(crawl_id, comment_theme=theme_texts(pages) if len(pages) >= 2 else [])
    return None, None


def _settle(rt, crawl_id: str, stored: dict | None, read: list[str]) -> tuple[dict | None, str | None, bool]:
    """(rule, sample post, whether comment feeds add to the pages) for this crawl: the stored
    rule while it reads the sample, else one learned on it; (stored, None, True) when the
    sample has no comment feed to judge by, or the rule of the sample's repeated blocks when
    there is none stored. `read` gets the sample posts whose comment pages were read (kept)."""
    trials, learned = [], []  # (url, pages, feed) of the sample posts read; (rule, url) learned there
    for e in _sample(rt, crawl_id):
        page = _sample_page(rt, crawl_id, e["url"])
        if page is None:
            continue
        feed = _post_feed(rt, crawl_id, e["url"], e, page, page.root, kept=True)
        read.append(e["url"])  # (its feed and comment pages kept for its own reading)
        if not feed or len(feed) < MIN_FEED_TO_LEARN:
            continue
        pages = _comment_pages(rt, crawl_id, e["url"], page, page.root, kept=True)
        trials.append((e["url"], pages, feed))
        stored_key = hashlib.sha1(json.dumps(stored, sort_keys=True).encode()).hexdigest()[:16]
        trial = _worked_out(rt, f"sample {e['url']} {stored_key}",
                            lambda: _try_sample(pages, feed, stored, e["url"], _known(e, page.root)))
        if trial["verdict"] == "stored":
            return trial["rule"] or stored, e["url"], trial["adds"]
        if trial["verdict"] == "learned":
            log.info("comment rule learned on %s: %s", e["url"], trial["rule"])
            return trial["rule"], e["url"], trial["adds"]
        if trial["rule"]:
            learned.append((trial["rule"], e["url"]))
    if learned:
        return _best_reading(rt, crawl_id, learned, trials)
    return (stored, None, True) if stored else _blocks(rt, crawl_id) + (True,)


def _known(entry: dict, root) -> int | None:
    """How many comments a post is known to have: its feed entry's count, else its page's."""
    n = entry.get("comment_count")
    return n if isinstance(n, int) else (shown_count(root) or None)


def _try_sample(pages, feed: list[dict], stored: dict | None, url: str, known: int | None = None) -> dict:
    """What one sample post says of the blog's rule: `verdict` "stored" (the stored rule reads
    it), "learned" (a rule learned on it reads it well: `rule`), else "weak" with the rule
    learned there, if any, to weigh later; `adds`: whether its feed adds to its pages. `known`:
    the comments the post is known to have (a feed holding only the newest of them)."""
    read = _extract(pages, stored, url) if stored else []
    if stored and _share(read, feed) >= MIN_SHARE:
        rule, read = _clocked(stored, pages, feed, url)
        return {"verdict": "stored", "rule": rule, "adds": feed_adds(read, feed)}
    rule = C.learn_comment_rule([r for _, r in pages], feed)
    read = _extract(pages, rule, url) if rule else []
    if rule and _complete(rule, feed) and C.reading_score(read, feed, known) >= READS_WELL:
        rule, read = _clocked(rule, pages, feed, url)
        return {"verdict": "learned", "rule": rule, "adds": feed_adds(read, feed)}
    return {"verdict": "weak", "rule": rule, "adds": True}


def _worked_out(rt, name: str, compute):
    """`compute()`, kept by the step's remembering downloader where it has one (settling runs
    again after each politeness wait: what an earlier run learned is read back, issue 33)."""
    keep = getattr(rt.downloader, "worked_out", None)
    return keep(name, compute) if keep else compute()


def _complete(rule: dict, feed: list[dict]) -> bool:
    """Does a learned rule read every field the feed gives (a name, a date)?"""
    return (rule.get("author") is not None or not any(f.get("author") for f in feed)) and \
        (rule.get("date") is not None or not any(f.get("published") for f in feed))


def _best_reading(rt, crawl_id: str, learned: list[tuple[dict, str]], trials: list) -> tuple[dict, str, bool]:
    """Rules learned on the sample's feeds that leave a field unread (a sample post of two
    comments whose best text node was each comment's whole block) are weighed against the
    rule of the repeated blocks of the blog's posts: the one whose reading of the sample agrees
    best with its feeds (tasks.extract.comments.reading_score) is the blog's; learned first
    among equals."""
    blocks, _ = _blocks(rt, crawl_id)
    candidates = learned + ([(blocks, trials[0][0])] if blocks else [])

    def agreement(rule):
        return sum(C.reading_score(_extract(pages, rule, u), feed) for u, pages, feed in trials)

    rule, url = max(candidates, key=lambda c: agreement(c[0]))
    log.info("comment rule %s for the sample %s: %s", "of the blocks" if rule is blocks else "learned", url, rule)
    u, pages, feed = next(t for t in trials if t[0] == url)
    rule, read = _clocked(rule, pages, feed, u)
    return rule, url, feed_adds(read, feed)


def _clocked(rule: dict, pages, feed: list[dict], url: str) -> tuple[dict, list[dict]]:
    """The rule with the clock its sample post's page prints comment times in, where the post's
    feed shows one (tasks.extract.comment_clock: a local time with no zone, or labelled UTC),
    and its reading of the post: the pages then say what the feeds would (`feed_adds`)."""
    bare = {k: v for k, v in rule.items() if k != "clock"}
    read = _extract(pages, bare, url)
    clock = comment_clock.learn(C.paired_times(read, feed))
    if clock is None:
        return bare, read
    clocked = dict(bare, clock=clock)
    return clocked, _extract(pages, clocked, url)


def feed_adds(found: list[dict], feed: list[dict]) -> bool:
    """Whether a post's comment feed adds to what its pages show: a comment the pages miss, or
    a name, date or text the feed would complete (tasks.extract.comments.merge_comments); dates
    agree when they name the same instant within a minute (the page's time read in the clock the
    rule learned). A feed too short to judge by adds, as far as anyone knows."""
    if len(feed) < MIN_FEED_TO_SKIP:
        return True
    merged = C.merge_comments(found, feed)
    if len(merged) != len(found):
        return True
    fields = ("author", "content_text")
    return any(tuple(m.get(f) for f in fields) != tuple(c.get(f) for f in fields)
               or not comment_clock.same_time(m.get("published"), c.get("published")) for m, c in zip(merged, found))


def settled_rule(rt, crawl_id: str, blog: dict | None = None) -> dict | None:
    """The blog's comment rule where this crawl settled it already (never settles it: None
    until then). `blog`: the blog's hash as the caller read it (no round trip when it says)."""
    if blog is not None and blog.get("comment_rule_crawl") == crawl_id:
        return blog.get("comment_rules")
    rule, by = rt.state.r.hmget(rt.keys(crawl_id).blog, ["comment_rules", "comment_rule_crawl"])
    return json.loads(rule) if rule and by is not None and json.loads(by) == crawl_id else None


def blog_rule(rt, crawl_id: str, blog: dict | None = None) -> dict | None:
    """The blog's comment rule, settled once per crawl (by one worker; the others wait WAIT_HERE
    s, then raise RuleUnsettled: their page is deferred);
    `blog`: the blog's hash as the caller read it (a settled rule there costs no round trip)."""
    if blog is not None and blog.get("comment_rule_crawl") == crawl_id:
        return blog.get("comment_rules")
    st = rt.state
    key = rt.keys(crawl_id).blog

    def settled():
        rule, by = st.r.hmget(key, ["comment_rules", "comment_rule_crawl"])
        return (by is not None and json.loads(by) == crawl_id), (json.loads(rule) if rule else None)

    done, rule = settled()
    deadline = time.monotonic() + WAIT_HERE
    while not done:
        token = heal.take_lock(st.r, f"comment-rule:{crawl_id}", LEARN_SECONDS)
        if token:
            try:
                done, rule = settled()
                if not done:
                    # (issue 33) settling reads several pages of one host: a run that meets the host's
                    # politeness gap (HostBusy: the page is deferred) leaves what it read for the next
                    # run, whichever page's task that is, so each run gets a request further
                    patient, memo = patience.remembering(rt, crawl_id, scope=f"comment-rule:{crawl_id}", eager=True)
                    sampled: list[str] = []
                    rule, sample, feeds = _settle(patient, crawl_id, rule, sampled)
                    memo.forget()
                    if rule:
                        st.save_blog(crawl_id, comment_rules=rule, comment_rule_sample=sample)
                    else:
                        st.r.hdel(key, "comment_rules")
                    st.save_blog(crawl_id, comment_feeds=feeds, comment_sampled=sampled, comment_rule_crawl=crawl_id)
                    return rule
            finally:
                heal.release_lock(st.r, f"comment-rule:{crawl_id}", token)
            if done:
                return rule
        if time.monotonic() > deadline:
            raise RuleUnsettled(crawl_id, DEFER_SECONDS)
        time.sleep(0.2)
        done, rule = settled()
    return rule


def _adopt(rt, crawl_id: str, rule: dict, url: str) -> None:
    """A rule learned on a post becomes the blog's when the blog has none (first one wins)."""
    if rt.state.r.hsetnx(rt.keys(crawl_id).blog, "comment_rules", json.dumps(rule)):
        rt.state.save_blog(crawl_id, comment_rule_sample=url)
        log.info("comment rule learned on %s: %s", url, rule)


# ------------------------------------------------------------------ one post

def comments_for(rt, crawl_id: str, url: str, entry: dict | None, page, root=None,
                 blog: dict | None = None) -> list[dict]:
    """[{"id", "url", "author", "published", "content_text", "parent"}] of one post: the
    same list (ids, order) whichever worker reads it when, in the feed window or not.
    `page` is the post's Page, `root` its tree when the caller holds it, `blog` the blog's
    hash when the caller read it (State.page_context)."""
    root = page.root if root is None else root
    rule = blog_rule(rt, crawl_id, blog)
    blog_has = rule is not None
    blog = _settled(rt, crawl_id, blog)
    kept = url in (blog.get("comment_sampled") or ())  # its comment pages read by the settling (cached)
    pages, followed = [(page.final_url, root)], False
    if rule is not None and blog.get("comment_feeds", True) is False:
        pages, followed = _comment_pages(rt, crawl_id, url, page, root, kept), True
        found = _extract(pages, rule, url)
        # (a comment time of a season the blog's clock was not learned in: its feed says it)
        if len(found) >= shown_count(root) and all(comment_clock.holds(c["published"], rule.get("clock"))
                                                   for c in found):
            return found
    feed = _post_feed(rt, crawl_id, url, entry, page, root, kept)
    if rule is None and len(feed or ()) < MIN_FEED_TO_LEARN:  # the page's own blocks; a feed of one confirms them
        rule = _rule_of_page(rt, crawl_id, url, pages, root, blog)
        if rule is None and not feed:
            return []
        if rule is not None and not blog_has and ADOPT_BLOCKS <= (rule.get("matched") or 0) >= shown_count(root):
            # (only a rule that reads every comment its page counts, never a part; a theme that
            # prints no count, Movable Type's "Comments" heading over its blocks, cannot say less)
            _adopt(rt, crawl_id, rule, url)
    if (rule is not None or len(feed) >= MIN_FEED_TO_LEARN) and not followed:
        pages = _comment_pages(rt, crawl_id, url, page, root, kept)
    found = _extract(pages, rule, url) if rule else []
    if feed and len(feed) >= MIN_FEED_TO_LEARN and _share(found, feed) < MIN_SHARE:
        found = _read_by_own_rule(rt, crawl_id, url, pages, feed, found, adopt=not blog_has)
    elif feed and rule is not None and rule.get("clock") and blog_has:
        _narrow_clock(rt, crawl_id, found, feed)
    return C.merge_comments(found, feed or [])


def _narrow_clock(rt, crawl_id: str, found: list[dict], feed: list[dict]) -> None:
    """A post that read its feed (a comment time its blog's clock could not read) tells the
    clock's zones apart by its own pairs (tasks.extract.comment_clock.narrow): the blog's rule
    keeps the zones that explain them too, so the posts after it need not read theirs. Zones
    are only ever taken out of the rule as stored now (two workers narrowing at once each keep
    zones that explain what they saw)."""
    key = rt.keys(crawl_id).blog
    raw = rt.state.r.hget(key, "comment_rules")
    stored = json.loads(raw) if raw else None
    if not isinstance(stored, dict) or not stored.get("clock"):
        return
    narrowed = comment_clock.narrow(stored["clock"], C.paired_times(found, feed))
    if narrowed is not None:
        rt.state.save_blog(crawl_id, comment_rules=dict(stored, clock=narrowed))
        log.info("comment clock of %s narrowed to %d zones", crawl_id, len(narrowed["zones"]))


def _settled(rt, crawl_id: str, blog: dict | None) -> dict:
    """The blog's hash with this crawl's settled comment facts (blog_rule): `comment_feeds`, do
    the posts' comment feeds add to their pages; `comment_sampled`, the sample posts read."""
    if blog is None or blog.get("comment_rule_crawl") != crawl_id:
        blog = rt.state.blog(crawl_id)
    return blog


def _post_feed(rt, crawl_id: str, url: str, entry: dict | None, page: Page, root,
               kept: bool = False) -> list[dict] | None:
    """The post's comment feed (its entry's, else the one its page links to) read, or None
    (`kept`: a sample post's, kept for its own reading: _feed)."""
    feed_url = (entry or {}).get("comments_feed") or next(iter(C.comment_feed_links(root, page.final_url)), None)
    return _feed(rt, crawl_id, url, feed_url, kept) if feed_url else None


def _rule_of_page(rt, crawl_id: str, url: str, pages, root, blog: dict | None) -> dict | None:
    """A post read by no rule and without a comment feed: the comment blocks after its content
    (none printed by the theme on the sample posts)."""
    blog = blog if blog is not None and blog.get("comment_rule_crawl") == crawl_id else rt.state.blog(crawl_id)
    return learn_comment_blocks([(root, post_end(root, blog.get("rules")))], theme=blog.get("comment_theme"))


def _read_by_own_rule(rt, crawl_id: str, url: str, pages, feed: list[dict], found: list[dict],
                      adopt: bool) -> list[dict]:
    """The blog's rule does not read this post: a rule learned on its own pages, when that one
    reads more of its feed (and becomes the blog's, `adopt`, when the blog has none)."""
    learned = C.learn_comment_rule([r for _, r in pages], feed)
    if not learned:
        return found
    mine = _extract(pages, learned, url)
    if _share(mine, feed) <= _share(found, feed):
        return found
    if adopt:
        _adopt(rt, crawl_id, learned, url)
    return mine
