"""A blog inside a large site: /blog/ among thousands of forum topics, wiki pages and member profiles.

The portal's home page links mostly to forum topics and wiki pages; every page of the site
links to more of them, and only to /blog/ through one menu entry. Blog posts
(/blog/YYYY/MM/slug/) are linked only from the blog's own pages (/blog/, /blog/page/N/,
/blog/archive/YYYY/ and other posts), so a breadth-first crawl spends thousands of fetches
on forum and wiki pages before it has the whole blog: traversal order matters.

Forum and wiki pages are rendered on demand from their number (never all held in memory):
topics /forum/t/ID/ (+ /page/K/), boards /forum/b/N/ (+ /page/K/), wiki pages
/wiki/Title_ID (+ ?action=history), members /members/ID/. The blog's feed is RSS 1.0 (RDF)
at /blog/rss.xml; the forum has its own RSS 2.0 feed of topics at /forum/feed.xml.
"""
from __future__ import annotations

import datetime as dt
import functools
import urllib.parse

from tests.httpd import Reply

from . import text as T
from .blog import Blog, ORIGIN, Post, cdata, feed_reply, image_ext, listing_page, page_number, page_reply
from .text import esc

TOPICS_PER_PAGE = 25
REPLIES_PER_PAGE = 10
WIKI_INDEX_SIZE = 100


class Forum(Blog):
    family = "forum"
    names = {"title": ("entry-title", "blog-entry-title"), "content": ("entry-body", "blog-entry-body"),
             "author": ("entry-author", "blog-entry-author"), "date": ("entry-date", "blog-entry-date")}
    robots = "User-agent: *\nDisallow: /forum/search\nDisallow: /wiki/Special:\n"

    def setup(self, r):
        o = self.options
        self.n_topics = int(o.get("n_topics", 3000))
        self.n_wiki = int(o.get("n_wiki", 2000))
        self.n_members = int(o.get("n_members", 400))
        self.n_boards = int(o.get("n_boards", 12))
        self.forum_name = f"{r.choice(T.TITLE_ADJ)} {r.choice(T.TITLE_NOUNS)} Community"
        self.boards = [f"{r.choice(T.TITLE_ADJ)} {r.choice(T.TITLE_NOUNS)}s" for _ in range(self.n_boards)]
        # bounded caches: pages are rendered on demand, never all held
        self.topic = functools.lru_cache(maxsize=4096)(self._topic)
        self.member = functools.lru_cache(maxsize=1024)(self._member)
        self.wiki_title = functools.lru_cache(maxsize=4096)(self._wiki_title)

    # ------------------------------------------------------------ URLs

    def post_path(self, p: Post) -> str:
        return p.published.strftime("/blog/%Y/%m/") + p.slug + "/"

    def image_path(self, p: Post, k: int, kind: str) -> str:
        return f"/blog/files/{p.slug}-{k + 1}.{image_ext(kind)}"

    def feeds(self):
        return ["/blog/rss.xml"]

    def topic_pages(self, t: int) -> int:
        return self.pages(self.topic(t)["replies"] + 1, REPLIES_PER_PAGE)

    def board_topics(self, b: int) -> range:
        """Topic ids of board b, newest first (topic t is on board t % n_boards)."""
        last = self.n_topics - 1
        last -= (last - b) % self.n_boards
        return range(last, -1, -self.n_boards)

    def _wiki_title(self, w: int) -> str:
        r = T.rng(self.family, self.seed, "wiki", w)
        return f"{r.choice(T.TITLE_ADJ)}_{r.choice(T.TITLE_NOUNS)}_{w}".replace(" ", "_")

    def wiki_path(self, w: int) -> str:
        return "/wiki/" + urllib.parse.quote(self.wiki_title(w))

    def paths(self):
        yield from ("/", "/robots.txt", "/blog/", "/blog/rss.xml", "/forum/", "/forum/feed.xml", "/wiki/",
                    "/blog/archive/")
        for k in range(2, self.pages(len(self.posts)) + 1):
            yield f"/blog/page/{k}/"
        for y in self.years():
            yield f"/blog/archive/{y}/"
        for p in self.posts:
            yield p.path
            for img in p.images:
                yield img.path
        for b in range(self.n_boards):
            yield f"/forum/b/{b}/"
            for k in range(2, self.pages(len(self.board_topics(b)), TOPICS_PER_PAGE) + 1):
                yield f"/forum/b/{b}/page/{k}/"
        for t in range(self.n_topics):
            yield f"/forum/t/{t}/"
            for k in range(2, self.topic_pages(t) + 1):
                yield f"/forum/t/{t}/page/{k}/"
        for k in range(self.pages(self.n_wiki, WIKI_INDEX_SIZE)):
            yield f"/wiki/index/{k}/"
        for w in range(self.n_wiki):
            yield self.wiki_path(w)
            yield self.wiki_path(w) + "?action=history"
        for m in range(self.n_members):
            yield f"/members/{m}/"

    def years(self) -> list[int]:
        return sorted({p.published.year for p in self.posts}, reverse=True)

    # ------------------------------------------------------------ lazy forum content

    def _member(self, m: int) -> str:
        r = T.rng(self.family, self.seed, "member", m)
        return r.choice(T.HANDLES) + str(m) if r.random() < 0.6 else T.person(r)

    def _topic(self, t: int) -> dict:
        r = T.rng(self.family, self.seed, "topic", t)
        when = self.start - dt.timedelta(days=400) + dt.timedelta(hours=3 * t + r.randint(0, 2))
        return {"title": T.title(r) + r.choice(["?", "", " — help", " [solved]", ""]),
                "author": r.randrange(self.n_members), "replies": r.choice([0, 1, 2, 3, 5, 8, 12, 25]),
                "when": when, "board": t % self.n_boards}

    # ------------------------------------------------------------ routing

    def route(self, path, q, raw, o):
        segs = [s for s in path.split("/") if s]
        if not segs:
            return self.portal(o)
        if not path.endswith("/") and segs[0] in ("blog", "forum", "members") and "." not in segs[-1]:
            if self.route(path + "/", q, raw, o) is None:
                return None
            return Reply(301, "", headers={"Location": o + path + "/"})
        if segs[0] == "blog":
            return self.blog_route(segs[1:], path, o)
        if segs[0] == "forum":
            return self.forum_route(segs[1:], o)
        if segs[0] == "wiki":
            return self.wiki_route(segs[1:], q, o)
        if segs[0] == "members" and len(segs) == 2 and segs[1].isdigit() and int(segs[1]) < self.n_members:
            return self.member_page(o, int(segs[1]))
        return None

    def blog_route(self, segs, path, o):
        if not segs:
            return self.blog_listing(o, 1)
        if segs == ["rss.xml"]:
            return self.feed(o)
        if segs[0] == "page" and len(segs) == 2:
            k = page_number(segs[1])
            if k == 1:
                return Reply(301, "", headers={"Location": o + "/blog/"})
            return k and self.blog_listing(o, k)
        if segs == ["archive"]:
            return self.archive_index(o)
        if segs[0] == "archive" and len(segs) == 2 and segs[1].isdigit() and int(segs[1]) in self.years():
            return self.archive_year(o, int(segs[1]))
        p = self.by_path.get(path)
        return p and self.single(o, p)

    def forum_route(self, segs, o):
        if not segs:
            return self.forum_index(o)
        if segs == ["feed.xml"]:
            return self.forum_feed(o)
        if len(segs) in (2, 4) and segs[0] in ("b", "t") and segs[1].isdigit():
            n = int(segs[1])
            k = listing_page(segs)
            if k is None:
                return None
            if segs[0] == "b" and n < self.n_boards:
                return self.board_page(o, n, k)
            if segs[0] == "t" and n < self.n_topics:
                return self.topic_page(o, n, k)
        return None

    def wiki_route(self, segs, q, o):
        if not segs:
            return self.wiki_index(o, 0)
        if segs[0] == "index" and len(segs) == 2 and segs[1].isdigit():
            return self.wiki_index(o, int(segs[1]))
        if len(segs) == 1:
            num = segs[0].rsplit("_", 1)[-1]
            if num.isdigit() and int(num) < self.n_wiki and self.wiki_title(int(num)) == segs[0]:
                return self.wiki_page(o, int(num), q.get("action") == "history")
        return None

    # ------------------------------------------------------------ site chrome

    def layout(self, o, title, main, head="", section="", side="") -> Reply:
        nav = "".join(f'<li class="{"active" if section == s else ""}"><a href="{o}{href}">{label}</a></li>'
                      for s, href, label in (("home", "/", self.L["home"]), ("forum", "/forum/", "Forum"),
                                             ("wiki", "/wiki/", "Wiki"), ("blog", "/blog/", "Blog")))
        body = (f'<div class="site"><div class="top"><span class="logo"><a href="{o}/">{esc(self.forum_name)}</a></span>'
                f'<ul class="mainnav">{nav}</ul></div>\n<div class="wrap"><div class="content">\n{main}\n</div>\n'
                f'<div class="sidebar">{side}</div></div>\n<div class="bottom">&copy; {esc(self.forum_name)}'
                f'</div></div>')
        head = (f'<link rel="alternate" type="application/rss+xml" title="Blog" href="{o}/blog/rss.xml">\n'
                f'<link rel="alternate" type="application/rss+xml" title="Forum topics" href="{o}/forum/feed.xml">\n'
                f'{head}')
        return page_reply(self.doc(f"{title} - {self.forum_name}", body, head, section))

    def topic_link(self, o, t: int) -> str:
        return f'<a class="topictitle" href="{o}/forum/t/{t}/">{esc(self.topic(t)["title"])}</a>'

    def wiki_link(self, o, w: int) -> str:
        return f'<a href="{o}{self.wiki_path(w)}">{esc(self.wiki_title(w).replace("_", " "))}</a>'

    def member_link(self, o, m: int) -> str:
        return f'<a class="username" href="{o}/members/{m}/">{esc(self.member(m))}</a>'

    def forum_side(self, o, key) -> str:
        r = T.rng(self.family, self.seed, "side", key)
        tops = "".join(f"<li>{self.topic_link(o, r.randrange(self.n_topics))}</li>" for _ in range(8))
        wik = "".join(f"<li>{self.wiki_link(o, r.randrange(self.n_wiki))}</li>" for _ in range(6))
        return f'<h3>Hot topics</h3><ul>{tops}</ul><h3>Wiki</h3><ul>{wik}</ul>'

    # ------------------------------------------------------------ forum, wiki, members

    def portal(self, o) -> Reply:
        latest = range(self.n_topics - 1, max(-1, self.n_topics - 41), -1)
        tops = "".join(f"<li>{self.topic_link(o, t)} <span class=\"by\">{self.member_link(o, self.topic(t)['author'])}"
                       f"</span></li>" for t in latest)
        r = T.rng(self.family, self.seed, "portal")
        wik = "".join(f"<li>{self.wiki_link(o, w)}</li>" for w in sorted(r.sample(range(self.n_wiki), min(30, self.n_wiki))))
        mem = "".join(f"<li>{self.member_link(o, m)}</li>" for m in sorted(r.sample(range(self.n_members), min(20, self.n_members))))
        boards = "".join(f'<li><a href="{o}/forum/b/{b}/">{esc(name)}</a></li>' for b, name in enumerate(self.boards))
        main = (f'<h1>{esc(self.forum_name)}</h1><p>{esc(self.tagline)}</p>\n<div class="boards"><h2>Boards</h2>'
                f'<ul>{boards}</ul></div>\n<div class="latest"><h2>Latest topics</h2><ul>{tops}</ul></div>\n'
                f'<div class="featured"><h2>Wiki</h2><ul>{wik}</ul></div>\n<div class="members"><h2>Members</h2>'
                f'<ul>{mem}</ul></div>')
        return self.layout(o, self.L["home"], main, section="home", side=self.forum_side(o, "portal"))

    def forum_index(self, o) -> Reply:
        rows = []
        for b, name in enumerate(self.boards):
            ids = self.board_topics(b)
            rows.append(f'<tr><td class="board"><a href="{o}/forum/b/{b}/">{esc(name)}</a></td><td>{len(ids)}</td>'
                        f'<td>{"".join(self.topic_link(o, t) for t in ids[:3])}</td></tr>')
        return self.layout(o, "Forum", f'<h1>Forum</h1><table class="forums">{"".join(rows)}</table>', section="forum",
                           side=self.forum_side(o, "forum"))

    def board_page(self, o, b: int, k: int) -> Reply | None:
        ids = self.board_topics(b)
        n = self.pages(len(ids), TOPICS_PER_PAGE)
        if k > n:
            return None
        rows = "".join(f'<tr><td>{self.topic_link(o, t)}</td><td>{self.member_link(o, self.topic(t)["author"])}</td>'
                       f'<td>{self.topic(t)["replies"]}</td></tr>' for t in ids[(k - 1) * TOPICS_PER_PAGE: k * TOPICS_PER_PAGE])
        pager = " ".join(f'<a href="{o}/forum/b/{b}/{"" if i == 1 else f"page/{i}/"}">{i}</a>'
                         for i in sorted({1, n, *range(max(1, k - 3), min(n, k + 3) + 1)}))
        return self.layout(o, self.boards[b], f'<h1>{esc(self.boards[b])}</h1><table class="topics">{rows}</table>'
                                              f'<div class="pagination">{pager}</div>', section="forum")

    def topic_page(self, o, t: int, k: int) -> Reply | None:
        top = self.topic(t)
        n = self.topic_pages(t)
        if k > n:
            return None
        posts = []
        for j in range((k - 1) * REPLIES_PER_PAGE, min(k * REPLIES_PER_PAGE, top["replies"] + 1)):
            r = T.rng(self.family, self.seed, "reply", t, j)
            who = top["author"] if j == 0 else r.randrange(self.n_members)
            text = " ".join(T.sentence(r, self.lang) for _ in range(r.randint(1, 2)))
            when = top["when"] + dt.timedelta(minutes=37 * j)
            posts.append(f'<div class="forum-post" id="p{t * 1000 + j}"><div class="postprofile">{self.member_link(o, who)}'
                         f'</div><div class="postbody"><p class="author">{esc(self.show_date(when, True))}</p>'
                         f'<div class="post-text">{esc(text)}</div></div></div>')
        r = T.rng(self.family, self.seed, "similar", t)
        similar = "".join(f"<li>{self.topic_link(o, r.randrange(self.n_topics))}</li>" for _ in range(5))
        wiki = "".join(f"<li>{self.wiki_link(o, r.randrange(self.n_wiki))}</li>" for _ in range(3))
        pager = " ".join(f'<a href="{o}/forum/t/{t}/{"" if i == 1 else f"page/{i}/"}">{i}</a>' for i in range(1, n + 1))
        main = (f'<p class="crumbs"><a href="{o}/forum/">Forum</a> » <a href="{o}/forum/b/{top["board"]}/">'
                f'{esc(self.boards[top["board"]])}</a></p><h1 class="topic-title">{esc(top["title"])}</h1>\n'
                + "\n".join(posts) + f'\n<div class="pagination">{pager}</div>\n'
                f'<div class="similar"><h3>Similar topics</h3><ul>{similar}</ul><h3>Wiki</h3><ul>{wiki}</ul></div>')
        return self.layout(o, top["title"], main, section="forum")

    def wiki_index(self, o, k: int) -> Reply | None:
        n = self.pages(self.n_wiki, WIKI_INDEX_SIZE)
        if k >= n:
            return None
        items = "".join(f"<li>{self.wiki_link(o, w)}</li>"
                        for w in range(k * WIKI_INDEX_SIZE, min(self.n_wiki, (k + 1) * WIKI_INDEX_SIZE)))
        pager = " ".join(f'<a href="{o}/wiki/index/{i}/">{i + 1}</a>' for i in range(n))
        return self.layout(o, "Wiki", f'<h1>Wiki: all pages</h1><ul class="allpages">{items}</ul>'
                                      f'<div class="pagination">{pager}</div>', section="wiki")

    def wiki_page(self, o, w: int, history: bool) -> Reply:
        r = T.rng(self.family, self.seed, "wikitext", w)
        title = self.wiki_title(w).replace("_", " ")
        links = [self.wiki_link(o, r.randrange(self.n_wiki)) for _ in range(10)]
        if history:
            rows = "".join(f"<li>{esc(self.show_date(self.start - dt.timedelta(days=r.randint(1, 900)), True))} "
                           f"{self.member_link(o, r.randrange(self.n_members))}</li>" for _ in range(r.randint(2, 8)))
            main = f'<h1 class="firstHeading">{esc(title)}: history</h1><ul id="pagehistory">{rows}</ul>'
        else:
            paras = "".join(f"<p>{esc(T.sentence(r, self.lang))} {links[i]}. {esc(T.sentence(r, self.lang))}</p>"
                            for i in range(len(links)))
            main = (f'<h1 class="firstHeading">{esc(title)}</h1><div id="mw-content-text">{paras}</div>'
                    f'<p class="actions"><a href="{o}{self.wiki_path(w)}?action=history">History</a></p>'
                    f'<p>{self.topic_link(o, r.randrange(self.n_topics))}</p>')
        return self.layout(o, title, main, section="wiki")

    def member_page(self, o, m: int) -> Reply:
        r = T.rng(self.family, self.seed, "memberpage", m)
        tops = "".join(f"<li>{self.topic_link(o, r.randrange(self.n_topics))}</li>" for _ in range(5))
        return self.layout(o, self.member(m), f'<h1>{esc(self.member(m))}</h1><h2>Recent topics</h2><ul>{tops}</ul>',
                           section="forum")

    # ------------------------------------------------------------ the blog

    def blog_side(self, o, post: Post | None = None) -> str:
        L = self.L
        recent = "".join(f'<li><a href="{o}{p.path}">{esc(p.title)}</a></li>' for p in self.recent(o, post))
        years = "".join(f'<li><a href="{o}/blog/archive/{y}/">{y}</a></li>' for y in self.years())
        return (f'<div class="blog-widget"><h3>{L["recent"]}</h3><ul>{recent}</ul></div>'
                f'<div class="blog-widget"><h3>{L["archives"]}</h3><ul>{years}</ul></div>'
                + self.forum_side(o, "blog"))

    def card(self, o, p: Post) -> str:
        return (f'<div class="blog-card"><h2><a href="{o}{p.path}">{esc(p.title)}</a></h2>'
                f'<div class="blog-card-meta">{esc(p.author.name)} – {esc(self.show_date(p.published, False))}</div>'
                f'{p.summary_html.replace(ORIGIN, o)}<p><a href="{o}{p.path}">{self.L["more"]} »</a></p></div>')

    def blog_listing(self, o, k: int) -> Reply | None:
        L = self.L
        n = self.pages(len(self.posts))
        if k > n:
            return None
        cards = "\n".join(self.card(o, p) for p in self.page_slice(self.newest, k))
        pager = '<div class="blog-pager">'
        if k < n:
            pager += f'<a class="older" href="{o}/blog/page/{k + 1}/">« {L["older"]}</a> '
        if k > 1:
            pager += f'<a class="newer" href="{o}/blog/{"" if k == 2 else f"page/{k - 1}/"}">{L["newer"]} »</a>'
        pager += "</div>"
        return self.layout(o, "Blog", f'<h1>Blog</h1>\n{cards}\n{pager}', section="blog", side=self.blog_side(o))

    def archive_index(self, o) -> Reply:
        items = "".join(f'<li><a href="{o}/blog/archive/{y}/">{y}</a></li>' for y in self.years())
        return self.layout(o, self.L["archives"], f'<h1>{self.L["archives"]}</h1><ul>{items}</ul>', section="blog",
                           side=self.blog_side(o))

    def archive_year(self, o, y: int) -> Reply:
        items = "".join(f'<li><span class="d">{esc(self.show_date(p.published, False))}</span> '
                        f'<a href="{o}{p.path}">{esc(p.title)}</a></li>' for p in self.newest if p.published.year == y)
        return self.layout(o, f"{self.L['archives']} {y}", f'<h1>{self.L["archives"]} {y}</h1><ul class="archive">'
                                                           f'{items}</ul>', section="blog", side=self.blog_side(o))

    def single(self, o, p: Post) -> Reply:
        L = self.L
        comments = "".join(
            f'<div class="blog-comment" id="c{c.id}"><div class="blog-comment-head"><b>{esc(c.author)}</b> · '
            f'<span>{esc(self.show_date(c.published, True))}</span></div><div class="blog-comment-text">{c.html}</div></div>'
            for c in p.comments)
        i = p.index
        nav = ""
        if i > 0:
            nav += f'<a class="prev" href="{o}{self.posts[i - 1].path}">« {esc(self.posts[i - 1].title)}</a> '
        if i + 1 < len(self.posts):
            nav += f'<a class="next" href="{o}{self.posts[i + 1].path}">{esc(self.posts[i + 1].title)} »</a>'
        rel = "".join(f'<li><a href="{o}{r.path}">{esc(r.title)}</a></li>' for r in self.related(p))
        discuss = p.id % max(1, self.n_topics)
        main = (f'<div class="blog-entry">{self.fld("title", "h1", esc(p.title))}\n'
                f'<div class="blog-entry-meta">{L["by"]} {self.fld("author", "span", esc(p.author.name))} · '
                f'{self.fld("date", "span", self.date_el(p.published))}</div>\n'
                f'{self.fld("content", "div", chr(10) + self.content(p, o) + chr(10))}\n'
                f'<p class="discuss"><a href="{o}/forum/t/{discuss}/">Forum</a></p></div>\n'
                f'<div class="blog-nav">{nav}</div>\n'
                + (f'<div class="blog-related"><h3>{L["related"]}</h3><ul>{rel}</ul></div>\n' if rel else "")
                + f'<div class="blog-comments"><h3>{len(p.comments)} {L["comments"]}</h3>{comments}</div>')
        return self.layout(o, p.title, main, f'<link rel="canonical" href="{o}{p.path}">\n', section="blog",
                           side=self.blog_side(o, p))

    # ------------------------------------------------------------ feeds

    def feed(self, o) -> Reply:
        shown = self.newest[: self.feed_size]
        seq = "".join(f'<rdf:li rdf:resource="{o}{p.path}"/>' for p in shown)
        items = []
        for p in shown:
            content = f"<content:encoded>{cdata(p.html.replace(ORIGIN, o))}</content:encoded>" if self.full_feed else ""
            items.append(f'<item rdf:about="{o}{p.path}">\n<title>{esc(p.title)}</title>\n<link>{o}{p.path}</link>\n'
                         f'<description>{esc(" ".join(p.text.split()[:50]))}</description>\n'
                         f'<dc:creator>{esc(p.author.name)}</dc:creator>\n<dc:date>{T.iso(p.published)}</dc:date>\n'
                         f'{content}\n</item>\n')
        xml = ('<?xml version="1.0" encoding="utf-8"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
               'xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/" '
               'xmlns:content="http://purl.org/rss/1.0/modules/content/">\n'
               f'<channel rdf:about="{o}/blog/">\n<title>{esc(self.site_name)}</title>\n<link>{o}/blog/</link>\n'
               f'<description>{esc(self.tagline)}</description>\n<dc:language>{self.lang}</dc:language>\n'
               f'<items><rdf:Seq>{seq}</rdf:Seq></items>\n</channel>\n' + "".join(items) + "</rdf:RDF>\n")
        return feed_reply(xml, "rdf")

    def forum_feed(self, o) -> Reply:
        items = []
        for t in range(self.n_topics - 1, max(-1, self.n_topics - 16), -1):
            top = self.topic(t)
            items.append(f"<item><title>{esc(top['title'])}</title><link>{o}/forum/t/{t}/</link>"
                         f"<guid>{o}/forum/t/{t}/</guid><pubDate>{T.rfc822(top['when'])}</pubDate>"
                         f"<author>{esc(self.member(top['author']))}</author></item>\n")
        xml = ('<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0"><channel>'
               f'<title>{esc(self.forum_name)}: latest topics</title><link>{o}/forum/</link>'
               f'<description>Forum</description>\n' + "".join(items) + "</channel></rss>\n")
        return feed_reply(xml)
