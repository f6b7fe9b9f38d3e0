"""A static site generator (Hugo with a PaperMod-like theme): /posts/slug/ and an index.xml of summaries.

What a crawler meets on a Hugo blog: no comments, relative links, a home list of entry
cards whose whole card is one empty `a.entry-link`, /page/N/ pagination, /tags/ and
/tags/T/ (paged), an optional /archives/ page, /index.xml (RSS 2.0, first paragraph only
in <description>, no author), the author only in `<meta name="author">` and the post meta
line, and a reading time beside the date.
"""
from __future__ import annotations

from tests.httpd import Reply

from . import text as T
from .blog import Blog, ORIGIN, Post, feed_reply, image_ext, listing_page, page_number, page_reply
from .text import esc


class Static(Blog):
    family = "static"
    names = {"title": ("post-title", "post-title"), "content": ("post-content", "post-content"),
             "author": ("post-author", "post-author"), "date": ("post-date", "post-date")}

    def setup(self, r):
        self.has_archives = r.random() < 0.5 if "archives" not in self.options else self.options["archives"]
        self.full_feed = False  # Hugo's default RSS template: summaries only
        if "date_style" not in self.explicit:
            self.date_style = r.choice(["long", "short", "iso"])

    def _comments(self, p: Post, r) -> None:
        """Static blogs have no comments of their own."""

    def post_path(self, p: Post) -> str:
        return f"/posts/{p.slug}/"

    def image_path(self, p: Post, k: int, kind: str) -> str:
        return f"/posts/{p.slug}/figure-{k + 1}.{image_ext(kind)}"

    def feeds(self):
        return ["/index.xml"]

    def paths(self):
        yield from ("/", "/robots.txt", "/index.xml", "/tags/", "/about/")
        if self.has_archives:
            yield "/archives/"
        for k in range(2, self.pages(len(self.posts)) + 1):
            yield f"/page/{k}/"
        for slug, posts in self.by_tag.items():
            yield f"/tags/{slug}/"
            for k in range(2, self.pages(len(posts)) + 1):
                yield f"/tags/{slug}/page/{k}/"
        for p in self.posts:
            yield p.path
            for img in p.images:
                yield img.path

    # ------------------------------------------------------------ routing

    def route(self, path, q, raw, o):
        if not path.endswith("/") and "." not in path.rsplit("/", 1)[-1]:
            if self.route(path + "/", q, raw, o) is None:
                return None
            return Reply(301, "", headers={"Location": o + path + "/"})
        if path == "/index.xml":
            return self.feed(o)
        segs = [s for s in path.split("/") if s]
        if not segs:
            return self.listing(o, "/", None, self.newest, 1)
        if segs[0] == "page" and len(segs) == 2:
            k = page_number(segs[1])
            if k == 1:
                return Reply(301, "", headers={"Location": o + "/"})
            return k and self.listing(o, "/", None, self.newest, k)
        if segs == ["tags"]:
            return self.tag_index(o)
        if segs == ["about"]:
            return self.about(o)
        if segs == ["archives"] and self.has_archives:
            return self.archives(o)
        if segs[0] == "tags" and len(segs) in (2, 4) and segs[1] in self.by_tag:
            k = listing_page(segs)
            if k is None:
                return None
            posts = self.by_tag[segs[1]]
            name = next(t for t in posts[0].tags if T.slugify(t) == segs[1])
            return self.listing(o, f"/tags/{segs[1]}/", name, posts, k)
        p = self.by_path.get(path)
        return p and self.single(o, p)

    # ------------------------------------------------------------ pages

    def href(self, o, path):
        return self.a(o, path)

    def layout(self, o, title, main, head="", body_class="list") -> Reply:
        L = self.L
        menu = (f'<li><a href="{self.href(o, "/tags/")}" title="{L["tags"]}"><span>{L["tags"]}</span></a></li>'
                + (f'<li><a href="{self.href(o, "/archives/")}"><span>{L["archives"]}</span></a></li>'
                   if self.has_archives else "")
                + f'<li><a href="{self.href(o, "/about/")}"><span>{L["about"]}</span></a></li>')
        body = (f'<header class="header"><nav class="nav"><div class="logo"><a href="{self.href(o, "/")}" accesskey="h" '
                f'title="{esc(self.site_name)} (Alt + H)">{esc(self.site_name)}</a></div><ul id="menu">{menu}</ul></nav>'
                f'</header>\n<main class="main">\n{main}\n</main>\n<footer class="footer"><span>&copy; '
                f'{self.newest[0].published.year if self.newest else 2020} <a href="{self.href(o, "/")}">'
                f'{esc(self.site_name)}</a></span> &middot; <span>Powered by <a href="https://gohugo.io/">Hugo</a> &amp; '
                f'<a href="https://github.com/adityatelange/hugo-PaperMod/">PaperMod</a></span></footer>')
        head = (f'<meta name="generator" content="Hugo 0.121.1">\n'
                f'<link rel="alternate" type="application/rss+xml" href="{o}/index.xml">\n{head}')
        return page_reply(self.doc(f"{title} | {self.site_name}" if title != self.site_name else title, body,
                                   head, body_class))

    def meta_line(self, p: Post) -> str:
        minutes = max(1, len(p.text.split()) // 200)
        return (f'<span title="{p.published.strftime("%Y-%m-%d %H:%M:%S %z")}">{esc(self.show_date(p.published))}</span>'
                f'&nbsp;·&nbsp;{minutes} min&nbsp;·&nbsp;{esc(p.author.name)}')

    def entry(self, o, p: Post, first: bool) -> str:
        summary = " ".join(p.text.split()[:70])
        return (f'<article class="post-entry{" first-entry" if first else ""}">\n<header class="entry-header">'
                f'<h2 class="entry-hint-parent">{esc(p.title)}</h2></header>\n<div class="entry-content">'
                f'<p>{esc(summary)}…</p></div>\n<footer class="entry-footer">{self.meta_line(p)}</footer>\n'
                f'<a class="entry-link" aria-label="post link to {esc(p.title)}" href="{self.href(o, p.path)}"></a>\n'
                f'</article>')

    def listing(self, o, base, title, posts, k) -> Reply | None:
        n = self.pages(len(posts))
        if k > n:
            return None
        items = "\n".join(self.entry(o, p, k == 1 and j == 0 and base == "/")
                          for j, p in enumerate(self.page_slice(posts, k)))
        url = lambda i: self.href(o, base if i == 1 else f"{base}page/{i}/")
        nav = '<footer class="page-footer"><nav class="pagination">'
        if k > 1:
            nav += f'<a class="prev" href="{url(k - 1)}">«&nbsp;{self.L["newer"]}</a>'
        if k < n:
            nav += f'<a class="next" href="{url(k + 1)}">{self.L["older"]}&nbsp;»</a>'
        nav += "</nav></footer>"
        head = (f'<header class="page-header"><h1>{esc(title)}</h1></header>\n' if title else
                f'<article class="home-info"><header class="entry-header"><h1>{esc(self.site_name)}</h1></header>'
                f'<div class="entry-content">{esc(self.tagline)}</div></article>\n')
        return self.layout(o, title or self.site_name, head + items + "\n" + nav)

    def single(self, o, p: Post) -> Reply:
        L = self.L
        tags = "".join(f'<li><a href="{self.href(o, "/tags/" + T.slugify(t) + "/")}">{esc(t)}</a></li>' for t in p.tags)
        i = p.index
        nav = '<nav class="paginav">'
        if i + 1 < len(self.posts):
            q = self.posts[i + 1]
            nav += (f'<a class="prev" href="{self.href(o, q.path)}"><span class="title">« {L["newer"]}</span><br>'
                    f'<span>{esc(q.title)}</span></a>')
        if i > 0:
            q = self.posts[i - 1]
            nav += (f'<a class="next" href="{self.href(o, q.path)}"><span class="title">{L["older"]} »</span><br>'
                    f'<span>{esc(q.title)}</span></a>')
        nav += "</nav>"
        related = "".join(f'<li><a href="{self.href(o, r.path)}">{esc(r.title)}</a></li>' for r in self.related(p))
        related = (f'<aside class="related"><h2>{L["related"]}</h2><ul>{related}</ul></aside>' if related else "")
        title = self.fld("title", "h1", esc(p.title))
        # undated_posts: a theme printing the day on its listings only, none on the post's page
        undated = bool(self.options.get("undated_posts"))
        date = "" if undated else self.fld("date", "span", self.date_el(p.published))
        author = self.fld("author", "span", esc(p.author.name))
        main = (f'<article class="post-single">\n<header class="post-header">\n<div class="breadcrumbs">'
                f'<a href="{self.href(o, "/")}">{L["home"]}</a>&nbsp;»&nbsp;<a href="{self.href(o, "/")}">Posts</a></div>\n'
                f'{title}\n<div class="post-meta">{date}&nbsp;·&nbsp;{max(1, len(p.text.split()) // 200)} min'
                f'&nbsp;·&nbsp;{author}</div>\n</header>\n'
                f'{self.fld("content", "div", chr(10) + self.content(p, o) + chr(10))}\n'
                f'<footer class="post-footer"><ul class="post-tags">{tags}</ul>\n{nav}\n</footer>\n</article>\n{related}')
        head = (f'<meta name="author" content="{esc(p.author.name)}">\n'
                f'<meta name="description" content="{esc(" ".join(p.text.split()[:30]))}">\n'
                f'<link rel="canonical" href="{o}{p.path.replace(*self.options.get("canonical_moved", ("", "")))}">\n'
                f'<meta property="og:title" content="{esc(p.title)}">\n'
                + ("" if undated else f'<meta property="article:published_time" content="{T.iso(p.published)}">\n'))
        return self.layout(o, p.title, main, head, "single")

    def tag_index(self, o) -> Reply:
        items = "".join(f'<li><a href="{self.href(o, "/tags/" + s + "/")}">{esc(next(t for t in ps[0].tags if T.slugify(t) == s))}'
                        f' <sup><strong><sup>{len(ps)}</sup></strong></sup></a></li>'
                        for s, ps in sorted(self.by_tag.items()))
        return self.layout(o, self.L["tags"], f'<header class="page-header"><h1>{self.L["tags"]}</h1></header>'
                                              f'<ul class="terms-tags">{items}</ul>', body_class="list")

    def archives(self, o) -> Reply:
        years: dict[int, list[Post]] = {}
        for p in self.newest:
            years.setdefault(p.published.year, []).append(p)
        out = []
        for y, posts in years.items():
            entries = "".join(f'<div class="archive-entry"><h3 class="archive-entry-title">{esc(p.title)}</h3>'
                              f'<div class="archive-meta">{esc(self.show_date(p.published, False))}</div>'
                              f'<a class="entry-link" aria-label="post link to {esc(p.title)}" '
                              f'href="{self.href(o, p.path)}"></a></div>' for p in posts)
            out.append(f'<div class="archive-year"><h2 class="archive-year-header">{y} '
                       f'<sup class="archive-count">&nbsp;&nbsp;{len(posts)}</sup></h2>{entries}</div>')
        return self.layout(o, self.L["archives"], f'<header class="page-header"><h1>{self.L["archives"]}</h1>'
                                                  f'</header>\n' + "\n".join(out))

    def about(self, o) -> Reply:
        r = T.rng(self.family, self.seed, "about")
        paras = "\n".join(f"<p>{esc(T.sentence(r, self.lang))}</p>" for _ in range(3))
        return self.layout(o, self.L["about"], f'<article class="post-single"><header class="post-header">'
                                               f'<h1 class="post-title">{self.L["about"]}</h1></header>'
                                               f'<div class="post-content">{paras}</div></article>', body_class="single")

    # ------------------------------------------------------------ feed

    def feed(self, o) -> Reply:
        items = []
        for p in self.newest[: self.feed_size]:
            items.append(f"    <item>\n      <title>{esc(p.title)}</title>\n      <link>{o}{p.path}</link>\n"
                         f"      <pubDate>{T.rfc822(p.published)}</pubDate>\n      <guid>{o}{p.path}</guid>\n"
                         f"      <description>{esc(p.summary_html.replace(ORIGIN, o))}</description>\n    </item>\n")
        last = T.rfc822(self.newest[0].published) if self.newest else ""
        xml = ('<?xml version="1.0" encoding="utf-8" standalone="yes"?>\n'
               '<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">\n  <channel>\n'
               f"    <title>{esc(self.site_name)}</title>\n    <link>{o}/</link>\n"
               f"    <description>Recent content on {esc(self.site_name)}</description>\n"
               f"    <generator>Hugo -- 0.121.1</generator>\n    <language>{self.lang}</language>\n"
               f"    <lastBuildDate>{last}</lastBuildDate>\n"
               f'    <atom:link href="{o}/index.xml" rel="self" type="application/rss+xml" />\n'
               + "".join(items) + "  </channel>\n</rss>\n")
        return feed_reply(xml)
