"""Blogger: /YYYY/MM/slug.html posts, date headers apart from the posts, Atom feeds paged by start-index.

What a crawler meets on a real Blogger blog: the home page and label pages show whole
posts grouped under one `h2.date-header` per day (the date is not inside the post), an
"Older Posts" link to /search?updated-max=...&max-results=N (which robots.txt disallows, as
Blogger's does), month archives /YYYY/MM/ in a "Blog Archive" widget that also repeats the
current month's titles, /feeds/posts/default (Atom, `start-index`/`max-results` paging,
`rel="next"`, `thr:total`), /feeds/POSTID/comments/default, and ?showComment=MILLIS copies
of post pages.
"""
from __future__ import annotations

import datetime as dt
import urllib.parse

from tests.httpd import Reply

from . import text as T
from .blog import Blog, ORIGIN, Post, feed_reply, image_ext, page_reply
from .text import esc


def millis(d: dt.datetime) -> int:
    return int(d.timestamp() * 1000)


class Blogger(Blog):
    family = "blogger"
    names = {"title": ("post-title", "post-title entry-title"), "content": ("post-body", "post-body entry-content"),
             "author": ("post-author", "post-author vcard"), "date": ("date-header", "date-header")}
    robots = "User-agent: Mediapartners-Google\nDisallow: \n\nUser-agent: *\nDisallow: /search\nAllow: /\n"

    def setup(self, r):
        self.blog_id = r.randint(10 ** 17, 10 ** 18 - 1)
        if "date_style" not in self.explicit:
            self.date_style = r.choice(["weekday", "weekday", "long", "numeric"])
        self.abs_links = True

    # ------------------------------------------------------------ URLs

    def make_slug(self, title: str) -> str:
        slug = T.slugify(title)
        while len(slug) > 40 and "-" in slug:
            slug = slug.rsplit("-", 1)[0]
        return slug

    def post_id(self, i: int, r) -> int:
        return r.randint(10 ** 18, 9 * 10 ** 18)

    def post_path(self, p: Post) -> str:
        return p.published.strftime("/%Y/%m/") + p.slug + ".html"

    def image_path(self, p: Post, k: int, kind: str) -> str:
        return f"/img/b/R29vZ2xl/AVvX{p.id % 100000:05d}/s1600/{p.slug}-{k + 1}.{image_ext(kind)}"

    def feeds(self):
        return ["/feeds/posts/default"]

    def label_path(self, tag: str) -> str:
        return "/search/label/" + urllib.parse.quote(tag)

    def older_link(self, base: str, last: Post) -> str:
        sep = "&" if "?" in base else "?"
        when = urllib.parse.quote(T.iso(last.published), safe=":")
        return f"{base}{sep}updated-max={when}&max-results={self.per_page}"

    def listing_chain(self, first: str, base: str, posts: list[Post]):
        """The targets of a paged listing: its first page, then each "Older Posts" page."""
        yield first
        for k in range(self.per_page, len(posts), self.per_page):
            yield self.older_link(base, posts[k - 1])

    def tag_name(self, slug: str) -> str:
        return next(t for t in self.by_tag[slug][0].tags if T.slugify(t) == slug)

    def feed_targets(self, base: str, n: int):
        yield base
        for s in range(1 + self.feed_size, n + 1, self.feed_size):
            yield f"{base}?start-index={s}&max-results={self.feed_size}"

    def paths(self):
        yield from ("/", "/robots.txt")
        yield from self.feed_targets("/feeds/posts/default", len(self.posts))
        yield from self.listing_chain("/", "/search", self.newest)
        for slug, posts in self.by_tag.items():
            label = self.label_path(self.tag_name(slug))
            yield from self.listing_chain(label, label, posts)
        for month in self.by_month:
            yield f"/{month}/"
        for p in self.posts:
            yield p.path
            yield from self.feed_targets(f"/feeds/{p.id}/comments/default", len(p.comments))
            for c in p.comments:
                yield f"{p.path}?showComment={millis(c.published)}"
            for img in p.images:
                yield img.path

    # ------------------------------------------------------------ routing

    def route(self, path, q, raw, o):
        if path in ("/", "/search"):
            return self.listing(o, "/search", None, self.newest, q, home=path == "/")
        if path.startswith("/search/label/"):
            label = path[len("/search/label/"):]
            slug = T.slugify(label)
            if slug not in self.by_tag or self.tag_name(slug) != label:
                return None
            return self.listing(o, self.label_path(label), label, self.by_tag[slug], q)
        if path == "/feeds/posts/default":
            return self.feed(o, "/feeds/posts/default", self.newest, q, None)
        segs = path.strip("/").split("/")
        if len(segs) == 4 and segs[0] == "feeds" and segs[2:] == ["comments", "default"]:
            p = next((p for p in self.posts if str(p.id) == segs[1]), None)
            if p is None:
                return None
            cs = sorted(p.comments, key=lambda c: c.published, reverse=True)
            return self.feed(o, path, cs, q, p)
        if len(segs) == 2 and segs[0].isdigit() and segs[1].isdigit() and path.endswith("/"):
            posts = self.by_month.get(f"{segs[0]}/{segs[1]}")
            return posts and self.listing(o, path, None, posts, {}, paged=False) or None
        p = self.by_path.get(path)
        if p is not None:
            return self.single(o, p)
        return None

    # ------------------------------------------------------------ pages

    def sidebar(self, o, current: str | None) -> str:
        L = self.L
        years: dict[str, list[str]] = {}
        for m in self.by_month:
            years.setdefault(m[:4], []).append(m)
        current = current or (self.newest[0].month if self.newest else None)
        tree = []
        for y, months in years.items():
            items = []
            for m in months:
                posts = self.by_month[m]
                titles = ""
                if m == current:
                    titles = "<ul class=\"posts\">" + "".join(
                        f'<li><a href="{o}{p.path}">{esc(p.title)}</a></li>' for p in posts) + "</ul>"
                items.append(f'<li class="archivedate {"expanded" if m == current else "collapsed"}">'
                             f'<a class="post-count-link" href="{o}/{m}/">{T.MONTHS[self.lang][int(m[5:]) - 1]}</a> '
                             f'<span class="post-count" dir="ltr">({len(posts)})</span>{titles}</li>')
            tree.append(f'<li class="archivedate"><a class="toggle" href="javascript:void(0)">&#9658;</a> '
                        f'<span class="post-count-link">{y}</span> '
                        f'<span class="post-count">({sum(len(self.by_month[m]) for m in months)})</span>'
                        f'<ul class="hierarchy">{"".join(items)}</ul></li>')
        r = T.rng(self.family, self.seed, "popular")
        popular = r.sample(self.posts, min(5, len(self.posts)))
        pop = "".join(f'<li><div class="item-title"><a href="{o}{p.path}">{esc(p.title)}</a></div>'
                      f'<div class="item-snippet">{esc(" ".join(p.text.split()[:18]))}…</div></li>' for p in popular)
        labels = "".join(f'<li><a dir="ltr" href="{o}{self.label_path(t)}">{esc(t)}</a></li>'
                         for t in sorted({t for p in self.posts for t in p.tags}))
        return (f'<div class="sidebar section" id="sidebar">\n'
                f'<div class="widget PopularPosts" id="PopularPosts1"><h2>{L["recent"]}</h2>'
                f'<div class="widget-content popular-posts"><ul>{pop}</ul></div></div>\n'
                f'<div class="widget Label" id="Label1"><h2>{L["tags"]}</h2><div class="widget-content list-label-widget-content">'
                f'<ul>{labels}</ul></div></div>\n'
                f'<div class="widget BlogArchive" id="BlogArchive1"><h2>{L["archives"]}</h2>'
                f'<div class="widget-content"><div id="ArchiveList"><ul class="hierarchy">{"".join(tree)}</ul>'
                f'</div></div></div>\n</div>')

    def layout(self, o, title, main, head="", current_month=None) -> Reply:
        body = (f'<div class="outer-wrapper"><div id="header-wrapper"><div class="header section" id="header">'
                f'<div class="widget Header" id="Header1"><div id="header-inner"><div class="titlewrapper">'
                f'<h1 class="title"><a href="{o}/">{esc(self.site_name)}</a></h1></div><div class="descriptionwrapper">'
                f'<p class="description"><span>{esc(self.tagline)}</span></p></div></div></div></div></div>\n'
                f'<div id="content-wrapper"><div id="main-wrapper"><div class="main section" id="main">'
                f'<div class="widget Blog" id="Blog1">\n{main}\n</div></div></div>\n'
                f'<div id="sidebar-wrapper">{self.sidebar(o, current_month)}</div></div>\n'
                f'<div id="footer-wrapper"><div class="footer section" id="footer">Powered by '
                f'<a href="https://www.blogger.com">Blogger</a>.</div></div></div>')
        head = (f'<meta content="blogger" name="generator">\n'
                f'<link rel="alternate" type="application/atom+xml" title="{esc(self.site_name)} - Atom" '
                f'href="{o}/feeds/posts/default">\n'
                f'<link rel="service.post" type="application/atom+xml" href="https://www.blogger.com/feeds/'
                f'{self.blog_id}/posts/default">\n{head}')
        return page_reply(self.doc(title, body, head, "loading"))

    def post_block(self, o, p: Post, single: bool) -> str:
        L = self.L
        title_inner = esc(p.title) if single else f'<a href="{o}{p.path}">{esc(p.title)}</a>'
        title = self.fld("title", "h3", title_inner) if single else f'<h3 class="post-title entry-title">{title_inner}</h3>'
        body = self.content(p, o)
        content = (self.fld("content", "div", f"\n{body}\n<div style=\"clear: both;\"></div>\n") if single else
                   f'<div class="post-body entry-content" id="post-body-{p.id}">\n{body}\n<div style="clear: both;"></div>\n</div>')
        author_inner = f'<span class="fn">{esc(p.author.name)}</span>'
        author = self.fld("author", "span", author_inner) if single else \
            f'<span class="post-author vcard">{author_inner}</span>'
        labels = ", ".join(f'<a href="{o}{self.label_path(t)}" rel="tag">{esc(t)}</a>' for t in p.tags)
        n = len(p.comments)
        return (f'<div class="post-outer"><div class="post hentry" itemprop="blogPost">\n<a name="{p.id}"></a>\n'
                f'{title}\n<div class="post-header"><div class="post-header-line-1"></div></div>\n{content}\n'
                f'<div class="post-footer"><div class="post-footer-line post-footer-line-1">'
                f'<span class="post-author-label">{L["posted"].split()[0]} {L["by"]}</span> {author} '
                f'<span class="post-timestamp">at <a class="timestamp-link" href="{o}{p.path}" rel="bookmark" '
                f'title="permanent link"><abbr class="published" title="{T.iso(p.published)}">'
                f'{T.format_time(p.published, self.lang)}</abbr></a></span> '
                f'<span class="post-comment-link"><a class="comment-link" href="{o}{p.path}#comment-form">{n} '
                f'{L["comments"].lower()}</a></span></div>\n<div class="post-footer-line post-footer-line-2">'
                f'<span class="post-labels">{L["tags"]}: {labels}</span></div></div>\n</div></div>')

    def grouped(self, o, posts: list[Post], single: bool) -> str:
        """Posts under one date header per day, the header outside every post."""
        out, day = [], None
        for p in posts:
            d = p.published.date()
            if d != day:
                if day is not None:
                    out.append("</div></div>")
                header = self.show_date(p.published, False)
                h2 = self.fld("date", "h2", f"<span>{esc(header)}</span>") if single else \
                    f'<h2 class="date-header"><span>{esc(header)}</span></h2>'
                out.append(f'<div class="date-outer">\n{h2}\n<div class="date-posts">')
                day = d
            out.append(self.post_block(o, p, single))
        if day is not None:
            out.append("</div></div>")
        return "\n".join(out)

    def listing(self, o, base, label, posts, q, paged=True, home=False) -> Reply | None:
        L = self.L
        if paged:
            start = 0
            if "updated-max" in q:
                try:
                    when = dt.datetime.fromisoformat(q["updated-max"].replace(" ", "+"))
                except ValueError:
                    return None
                start = next((i for i, p in enumerate(posts) if p.published < when), len(posts))
            try:
                n = int(q.get("max-results", self.per_page))
            except ValueError:
                return None
            shown = posts[start:start + max(1, min(n, 50))]
        else:
            shown = posts
        if not shown and posts:
            return None
        status = (f'<div class="status-msg-wrap"><div class="status-msg-body">Showing posts with label '
                  f'<b>{esc(label)}</b>. <a href="{o}/">Show all posts</a></div></div>') if label else ""
        pager = '<div class="blog-pager" id="blog-pager">'
        if paged and shown and shown[-1] is not posts[-1]:
            pager += (f'<span id="blog-pager-older-link"><a class="blog-pager-older-link" href="{o}'
                      f'{esc(self.older_link(base, shown[-1]))}" id="Blog1_blog-pager-older-link" '
                      f'title="{L["older"]}">{L["older"]}</a></span>')
        if not home:
            pager += f'<a class="home-link" href="{o}/">{L["home"]}</a>'
        pager += "</div>"
        main = f'{status}<div class="blog-posts hfeed">\n{self.grouped(o, shown, False)}\n</div>\n{pager}'
        month = base.strip("/") if not paged else None
        return self.layout(o, f"{self.site_name}" + (f": {label}" if label else ""), main, current_month=month)

    def single(self, o, p: Post) -> Reply:
        L = self.L
        items = []
        for c in p.comments:
            name = f'<a href="{c.url}" rel="nofollow">{esc(c.author)}</a>' if c.url else esc(c.author)
            items.append(
                f'<dt class="comment-author" id="c{c.id}"><a name="c{c.id}"></a>{name} {L["said"]}</dt>\n'
                f'<dd class="comment-body" id="Blog1_cmt-{c.id}">{c.html}</dd>\n'
                f'<dd class="comment-footer"><span class="comment-timestamp"><a href="{o}{p.path}?showComment='
                f'{millis(c.published)}#c{c.id}" title="comment permalink">'
                f'{esc(self.show_date(c.published, True))}</a></span></dd>')
        comments = (f'<div class="comments" id="comments"><a name="comments"></a><h4>{len(p.comments)} '
                    f'{L["comments"].lower()}:</h4><div id="Blog1_comments-block-wrapper"><dl class="avatar-comment-indent" '
                    f'id="comments-block">\n' + "\n".join(items) + '\n</dl></div>'
                    f'<p class="comment-footer"><a href="https://www.blogger.com/comment.g?blogID={self.blog_id}'
                    f'&amp;postID={p.id}" id="comment-form">{L["leave"]}</a></p></div>')
        i = p.index
        pager = '<div class="blog-pager" id="blog-pager">'
        if i + 1 < len(self.posts):
            pager += (f'<span id="blog-pager-newer-link"><a class="blog-pager-newer-link" href="{o}{self.posts[i + 1].path}" '
                      f'title="Newer Post">{L["newer"]}</a></span>')
        if i > 0:
            pager += (f'<span id="blog-pager-older-link"><a class="blog-pager-older-link" href="{o}{self.posts[i - 1].path}" '
                      f'title="Older Post">{L["older"]}</a></span>')
        pager += f'<a class="home-link" href="{o}/">{L["home"]}</a></div>'
        main = f'<div class="blog-posts hfeed">\n{self.grouped(o, [p], True)}\n{comments}\n</div>\n{pager}'
        head = (f'<link rel="canonical" href="{o}{p.path}">\n'
                f'<link rel="alternate" type="application/atom+xml" title="{esc(self.site_name)} - Atom" '
                f'href="{o}/feeds/{p.id}/comments/default">\n')
        return self.layout(o, f"{self.site_name}: {p.title}", main, head, current_month=p.month)

    # ------------------------------------------------------------ feeds

    def feed(self, o, base: str, items: list, q: dict, post: Post | None) -> Reply | None:
        try:
            start = int(q.get("start-index", "1"))
            n = int(q.get("max-results", str(self.feed_size)))
        except ValueError:
            return None
        if start < 1 or n < 1:
            return None
        n = min(n, 500)
        shown = items[start - 1:start - 1 + n]
        links = (f'<link rel="http://schemas.google.com/g/2005#feed" type="application/atom+xml" href="{o}{base}"/>\n'
                 f'<link rel="self" type="application/atom+xml" href="{o}{base}?start-index={start}&amp;max-results={n}"/>\n'
                 f'<link rel="alternate" type="text/html" href="{o}{post.path if post else "/"}"/>\n')
        if start - 1 + n < len(items):
            links += f'<link rel="next" type="application/atom+xml" href="{o}{base}?start-index={start + n}&amp;max-results={n}"/>\n'
        entries = [self.comment_entry(o, post, c) for c in shown] if post else [self.post_entry(o, p) for p in shown]
        updated = T.iso(items[0].published) if items else T.iso(self.start)
        title = f"{self.site_name}" if post is None else f"{self.site_name}: {post.title}"
        xml = ("<?xml version='1.0' encoding='UTF-8'?>"
               "<feed xmlns='http://www.w3.org/2005/Atom' xmlns:openSearch='http://a9.com/-/spec/opensearchrss/1.0/' "
               "xmlns:blogger='http://schemas.google.com/blogger/2008' xmlns:georss='http://www.georss.org/georss' "
               "xmlns:gd='http://schemas.google.com/g/2005' xmlns:thr='http://purl.org/syndication/thread/1.0'>\n"
               f"<id>tag:blogger.com,1999:blog-{self.blog_id}{'' if post is None else '.post' + str(post.id) + '..comments'}</id>\n"
               f"<updated>{updated}</updated>\n<title type='text'>{esc(title)}</title>\n"
               f"<subtitle type='html'>{esc(self.tagline)}</subtitle>\n{links}"
               f"<author><name>{esc(self.authors[0].name)}</name></author>\n"
               f"<generator version='7.00' uri='https://www.blogger.com'>Blogger</generator>\n"
               f"<openSearch:totalResults>{len(items)}</openSearch:totalResults>\n"
               f"<openSearch:startIndex>{start}</openSearch:startIndex>\n"
               f"<openSearch:itemsPerPage>{n}</openSearch:itemsPerPage>\n" + "".join(entries) + "</feed>\n")
        return feed_reply(xml, "atom")

    def post_entry(self, o, p: Post) -> str:
        html = p.html.replace(ORIGIN, o)
        body = (f"<content type='html'>{esc(html)}</content>" if self.full_feed else
                f"<summary type='text'>{esc(' '.join(p.text.split()[:60]))}</summary>")
        cats = "".join(f"<category scheme='http://www.blogger.com/atom/ns#' term='{esc(t)}'/>" for t in p.tags)
        return (f"<entry><id>tag:blogger.com,1999:blog-{self.blog_id}.post-{p.id}</id>"
                f"<published>{T.iso(p.published)}</published><updated>{T.iso(p.published)}</updated>{cats}"
                f"<title type='text'>{esc(p.title)}</title>{body}"
                f"<link rel='replies' type='application/atom+xml' href='{o}/feeds/{p.id}/comments/default' title='Post Comments'/>"
                f"<link rel='replies' type='text/html' href='{o}{p.path}#comment-form' title='{len(p.comments)} Comments'/>"
                f"<link rel='alternate' type='text/html' href='{o}{p.path}' title='{esc(p.title)}'/>"
                f"<author><name>{esc(p.author.name)}</name><uri>https://www.blogger.com/profile/{p.author.login}</uri>"
                f"</author><thr:total>{len(p.comments)}</thr:total></entry>\n")

    def comment_entry(self, o, p: Post, c) -> str:
        return (f"<entry><id>tag:blogger.com,1999:blog-{self.blog_id}.post-{c.id}</id>"
                f"<published>{T.iso(c.published)}</published><updated>{T.iso(c.published)}</updated>"
                f"<title type='text'>{esc(c.text[:40])}</title><content type='html'>{esc(c.html)}</content>"
                f"<link rel='alternate' type='text/html' href='{o}{p.path}?showComment={millis(c.published)}#c{c.id}' title=''/>"
                f"<author><name>{esc(c.author)}</name>{f'<uri>{esc(c.url)}</uri>' if c.url else ''}</author>"
                f"<thr:in-reply-to href='{o}{p.path}' ref='tag:blogger.com,1999:blog-{self.blog_id}.post-{p.id}' "
                f"type='text/html'/></entry>\n")
