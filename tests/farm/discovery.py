"""Farm families for finding every post exactly once (issue 15).

    sections     posts under two sections and at the site's root; the main feed is one
                 section's only, so the pattern learned from it misses the rest
    eras         three URL schemes over the blog's life: /?p=N, then /YYYY/MM/slug.html,
                 then /slug/ (the feed shows only the newest scheme)
    sitemapped   old posts reachable only through the sitemap: robots.txt names a sitemap
                 index whose post sitemaps are gzipped (.xml.gz) with <lastmod>; no pagination,
                 no tag pages, no links between posts
    bloggerdup   Blogger with the duplicate forms of a post: ?showComment=, ?m=1, utm_*,
                 #comment-N and a cache-buster ?zx= that only the page's rel=canonical folds

All are Hugo-like (tests/farm/static.py) but for bloggerdup; each draws its variant
(sections, theme styles, language) from the seed like the other families.
"""
from __future__ import annotations

import gzip
import re

from tests.httpd import Reply

from . import text as T
from .blog import ORIGIN, Post
from .blogger import Blogger
from .static import Static

_SECTION_NAMES = ("travel", "notes", "recipes", "essays", "code", "garden", "reviews")


class Sections(Static):
    family = "sections"

    def setup(self, r):
        super().setup(r)
        self.has_archives = False
        self.sections = r.sample(_SECTION_NAMES, 2)

    def post_path(self, p: Post) -> str:
        k = p.index % 3
        if k == 2:
            return f"/{p.slug}/"  # root-level posts
        return f"/{self.sections[k]}/{p.slug}/"

    def feed_posts(self) -> list[Post]:
        """The main feed lists the first section only."""
        mine = [p for p in self.newest if p.path.startswith(f"/{self.sections[0]}/")]
        return mine[: self.feed_size]

    def feed(self, o) -> Reply:
        keep, self.newest = self.newest, self.feed_posts()
        try:
            return super().feed(o)
        finally:
            self.newest = keep


class Eras(Static):
    family = "eras"

    def setup(self, r):
        super().setup(r)
        self.has_archives = False

    def _era(self, p: Post) -> int:
        """Fixed by post index (option `eras`, default 14 and 14 posts): growable like the others."""
        first, second = self.options.get("eras", (14, 14))
        return 0 if p.index < first else 1 if p.index < first + second else 2

    def post_path(self, p: Post) -> str:
        era = self._era(p)
        if era == 0:
            return f"/?p={p.id}"
        if era == 1:
            return p.published.strftime("/%Y/%m/") + p.slug + ".html"
        return f"/{p.slug}/"

    def route(self, path, q, raw, o):
        if path == "/" and "p" in q:
            p = self.by_path.get(f"/?p={q['p']}")
            return p and self.single(o, p)
        if path.endswith(".html"):
            p = self.by_path.get(path)
            return p and self.single(o, p)
        return super().route(path, q, raw, o)


class Sitemapped(Static):
    family = "sitemapped"
    per_sitemap = 15

    def setup(self, r):
        super().setup(r)
        self.has_archives = False
        self.gzipped = True if "gzipped" not in self.options else self.options["gzipped"]

    def content(self, p: Post, o: str) -> str:
        """No links between posts: an old post is reachable only through the sitemap."""
        return re.sub(r'<a href="' + re.escape(ORIGIN) + r'[^"]*">(.*?)</a>', r"<span>\1</span>", p.html)

    def related(self, p, n=3):
        return []

    def render(self, target, origin):
        if target == "/robots.txt":
            return Reply(200, f"User-agent: *\nDisallow:\n\nSitemap: {origin.rstrip('/')}/sitemap_index.xml\n",
                         content_type="text/plain; charset=utf-8")
        return super().render(target, origin)

    def chunks(self) -> list[list[Post]]:
        return [self.posts[i: i + self.per_sitemap] for i in range(0, len(self.posts), self.per_sitemap)]

    def route(self, path, q, raw, o):
        segs = [s for s in path.split("/") if s]
        if segs[:1] in (["page"], ["tags"]):
            return None  # no pagination, no tag listings
        if path == "/sitemap_index.xml":
            ext = ".xml.gz" if self.gzipped else ".xml"
            items = "".join(f"<sitemap><loc>{o}/sitemap-posts-{i + 1}{ext}</loc>"
                            f"<lastmod>{T.iso(c[-1].published)}</lastmod></sitemap>\n"
                            for i, c in enumerate(self.chunks()))
            items += f"<sitemap><loc>{o}/sitemap-pages.xml</loc></sitemap>\n"
            return Reply(200, '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns='
                         '"http://www.sitemaps.org/schemas/sitemap/0.9">\n' + items + "</sitemapindex>\n",
                         content_type="application/xml")
        m = re.fullmatch(r"/sitemap-posts-(\d+)\.xml(\.gz)?", path)
        if m and bool(m.group(2)) == self.gzipped and 1 <= int(m.group(1)) <= len(self.chunks()):
            body = self.urlset(o, [(p.path, T.iso(p.published)) for p in self.chunks()[int(m.group(1)) - 1]])
            if self.gzipped:
                return Reply(200, gzip.compress(body.encode()), content_type="application/gzip")
            return Reply(200, body, content_type="application/xml")
        if path == "/sitemap-pages.xml":
            return Reply(200, self.urlset(o, [("/", None), ("/about/", None)]), content_type="application/xml")
        reply = super().route(path, q, raw, o)
        if reply is not None and reply.status == 200 and isinstance(reply.body, str):
            # no post-to-post navigation, no tag pages, no "older" pagination
            body = re.sub(r'<nav class="paginav">.*?</nav>', "", reply.body, flags=re.S)
            body = re.sub(r'<ul class="post-tags">.*?</ul>', "", body, flags=re.S)
            body = re.sub(r'<li><a href="[^"]*/tags/"[^>]*>.*?</li>', "", body, flags=re.S)
            body = re.sub(r'<footer class="page-footer">.*?</footer>', "", body, flags=re.S)
            reply = Reply(reply.status, body, reply.headers, reply.content_type)
        return reply

    def urlset(self, o, rows) -> str:
        items = "".join(f"<url><loc>{o}{path}</loc>" + (f"<lastmod>{mod}</lastmod>" if mod else "") + "</url>\n"
                        for path, mod in rows)
        return ('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
                ' xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">\n' + items + "</urlset>\n")


class BloggerDup(Blogger):
    family = "bloggerdup"

    def single(self, o, p: Post) -> Reply:
        reply = super().single(o, p)
        n = len(p.comments)
        extra = (f'<div class="share-links"><a href="{o}{p.path}?m=1">Mobile</a> '
                 f'<a href="{o}{p.path}?utm_source=feed&amp;utm_medium=share">Share</a> '
                 f'<a href="{o}{p.path}?zx=9f{p.id % 9973:04x}">Reload</a> '
                 f'<a href="{o}{p.path}#comment-{n}">{n} comments</a></div>')
        return Reply(reply.status, reply.body.replace("</body>", extra + "\n</body>"), reply.headers,
                     reply.content_type)

    def route(self, path, q, raw, o):
        if "zx" in q or q.get("m") in ("0", "1"):
            p = self.by_path.get(path)
            return p and self.single(o, p)  # the same page; its rel=canonical names the plain URL
        return super().route(path, q, raw, o)

    def grouped(self, o, posts, single):
        html = super().grouped(o, posts, single)
        if single:
            return html
        # the home and label pages link each post's comments by ?showComment= and the mobile view
        return html + "".join(f'<a class="comment-link" href="{o}{p.path}?showComment={p.id % 10 ** 13}#c1">'
                              f'c</a><a href="{o}{p.path}?m=1">m</a>' for p in posts)
