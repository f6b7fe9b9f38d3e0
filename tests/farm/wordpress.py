"""WordPress: dated permalinks, paged archives, RSS 2.0 with comment feeds, and its duplicates.

What a crawler meets on a real WordPress blog: /YYYY/MM/DD/slug/ posts, /page/N/, category,
tag, author and month archives, /feed/ (content:encoded, dc:creator, wfw:commentRss,
slash:comments) paged by ?paged=N, a comment feed per post, paginated comments
(comment-page-N/), ?replytocom=N copies of every post page, and attachment pages.
"""
from __future__ import annotations

import datetime as dt
from pathlib import PurePosixPath

from tests.httpd import Reply

from . import text as T
from .blog import Blog, Image, ORIGIN, Post, cdata, feed_reply, image_ext, page_number, page_reply
from .text import esc


class WordPress(Blog):
    family = "wordpress"
    names = {"title": ("post-title", "entry-title"), "content": ("post-body", "entry-content"),
             "author": ("post-author", "author vcard"), "date": ("post-date", "entry-date published")}
    robots = "User-agent: *\nDisallow: /wp-admin/\nAllow: /wp-admin/admin-ajax.php\n"

    def setup(self, r):
        self.list_full = r.random() < 0.3  # home shows whole posts, not excerpts
        self.numbered_pager = r.random() < 0.5
        self.abs_links = True  # WordPress writes absolute URLs everywhere

    # ------------------------------------------------------------ URLs

    def post_path(self, p: Post) -> str:
        return p.published.strftime("/%Y/%m/%d/") + p.slug + "/"

    def image_path(self, p: Post, k: int, kind: str) -> str:
        return p.published.strftime("/wp-content/uploads/%Y/%m/") + f"{p.slug}-{k + 1}.{image_ext(kind)}"

    def attachment_path(self, p: Post, img: Image) -> str:
        return p.path + PurePosixPath(img.path).stem + "/"

    def figure(self, p: Post, img: Image, caption: str) -> str:
        return (f'<figure class="wp-block-image"><a href="{ORIGIN}{self.attachment_path(p, img)}">'
                f'<img src="{ORIGIN}{img.path}" alt="{esc(img.alt)}" width="{img.width}" height="{img.height}" '
                f'class="wp-image-{p.id + len(p.images)}"></a><figcaption>{caption}</figcaption></figure>')

    def comment_page_path(self, p: Post, k: int) -> str:
        return p.path if k == 1 else f"{p.path}comment-page-{k}/"

    def comment_pages(self, p: Post) -> int:
        return self.pages(len(p.comments), self.comments_per_page)

    def feeds(self):
        return ["/feed/"]

    def feed_pages(self) -> int:
        """Option `one_feed_page`: the feed shows its newest entries only (no ?paged=N), as most do."""
        return 1 if self.options.get("one_feed_page") else self.pages(len(self.posts), self.feed_size)

    def archives(self):
        """(base path, title, posts) of every archive list: categories, tags, authors, months."""
        for slug, posts in self.by_cat.items():
            yield f"/category/{slug}/", posts[0].category, posts
        for slug, posts in self.by_tag.items():
            yield f"/tag/{slug}/", next(t for t in posts[0].tags if T.slugify(t) == slug), posts
        for login, posts in self.by_author.items():
            yield f"/author/{login}/", posts[0].author.name, posts
        for month, posts in self.by_month.items():
            yield f"/{month}/", self.month_name(month), posts

    def month_name(self, month: str) -> str:
        y, m = month.split("/")
        return f"{T.MONTHS[self.lang][int(m) - 1].capitalize()} {y}"

    def paths(self):
        yield from ("/", "/robots.txt", "/about/", "/feed/", "/?feed=rss2")
        for k in range(2, self.pages(len(self.posts)) + 1):
            yield f"/page/{k}/"
        for k in range(2, self.feed_pages() + 1):
            yield f"/feed/?paged={k}"
        for p in self.posts:
            yield p.path
            yield p.path + "feed/"
            n = self.comment_pages(p)
            for k in range(1, n + 1) if n > 1 else ():
                yield f"{p.path}comment-page-{k}/"
            for j, c in enumerate(p.comments):
                yield f"{self.comment_page_path(p, j // self.comments_per_page + 1)}?replytocom={c.id}"
            for img in p.images:
                yield self.attachment_path(p, img)
                yield img.path
        for base, _, posts in self.archives():
            yield base
            for k in range(2, self.pages(len(posts)) + 1):
                yield f"{base}page/{k}/"

    # ------------------------------------------------------------ routing

    def route(self, path, q, raw, o):
        if path == "/":
            if "p" in q:
                p = next((p for p in self.posts if str(p.id) == q["p"]), None)
                return p and Reply(301, "", headers={"Location": o + p.path})
            if "feed" in q:
                return self.feed(o, q.get("paged", "1"))
            k = page_number(q.get("paged", "1"))
            return k and self.listing(o, "/", None, self.newest, k)
        if not path.endswith("/"):
            if self.route(path + "/", {}, "", o) is None:
                return None
            return Reply(301, "", headers={"Location": o + path + "/" + ("?" + raw if raw else "")})
        segs = path.strip("/").split("/")
        if segs == ["feed"]:
            return self.feed(o, q.get("paged", "1"))
        if segs == ["about"]:
            return self.about(o)
        if len(segs) == 2 and segs[0] == "page":
            k = page_number(segs[1])
            if k == 1:
                return Reply(301, "", headers={"Location": o + "/"})
            return k and self.listing(o, "/", None, self.newest, k)
        if len(segs) >= 4 and segs[0].isdigit() and segs[2].isdigit():
            p = self.by_path.get("/" + "/".join(segs[:4]) + "/")
            if p is None:
                return None
            if len(segs) == 4:
                return self.single(o, p, 1, "replytocom" in q)
            if len(segs) == 5 and segs[4] == "feed":
                return self.comment_feed(o, p)
            if len(segs) == 5 and segs[4].startswith("comment-page-"):
                k = page_number(segs[4][len("comment-page-"):])
                n = self.comment_pages(p)
                return k and n > 1 and k <= n and self.single(o, p, k, "replytocom" in q) or None
            if len(segs) == 5:
                img = next((i for i in p.images if self.attachment_path(p, i) == path), None)
                return img and self.attachment(o, p, img)
            return None
        k = 1
        if len(segs) >= 2 and segs[-2] == "page":
            k = page_number(segs[-1])
            if not k or k == 1:
                return None
            segs = segs[:-2]
        base = "/" + "/".join(segs) + "/"
        for b, title, posts in self.archives():
            if b == base:
                return k <= self.pages(len(posts)) and self.listing(o, base, title, posts, k) or None
        return None

    # ------------------------------------------------------------ pages

    def _menu_post(self, o) -> str:
        """Option `menu_post`: the menu links the oldest post (a series' first part), which the home
        page's listing does not show and its category lists."""
        if not self.options.get("menu_post") or not self.posts:
            return ""
        first = min(self.posts, key=lambda p: p.published)
        return f'<li class="menu-item"><a href="{o}{first.path}">{esc(first.title)}</a></li>'

    def layout(self, o, title, main, head="", body_class="", post: Post | None = None) -> Reply:
        L = self.L
        nav = "".join(f'<li class="menu-item"><a href="{o}/category/{T.slugify(c)}/">{esc(c)}</a></li>'
                      for c in self.categories)
        header = (f'<header id="masthead" class="site-header"><p class="site-title"><a href="{o}/" rel="home">'
                  f'{esc(self.site_name)}</a></p><p class="site-description">{esc(self.tagline)}</p>\n'
                  f'<nav id="site-navigation" class="main-navigation"><ul id="primary-menu" class="menu">'
                  f'<li class="menu-item"><a href="{o}/">{L["home"]}</a></li>'
                  f'<li class="menu-item"><a href="{o}/about/">{L["about"]}</a></li>{nav}{self._menu_post(o)}</ul></nav></header>')
        recent = "".join(f'<li><a href="{o}{p.path}">{esc(p.title)}</a></li>' for p in self.recent(o, post))
        # the archive widget's "show post counts" option
        counts = {m: f"&nbsp;({len(ps)})" if self.options.get("archive_counts") else "" for m, ps in self.by_month.items()}
        months = "".join(f'<li><a href="{o}/{m}/">{self.month_name(m)}</a>{counts[m]}</li>' for m in self.by_month)
        cats = "".join(f'<li class="cat-item"><a href="{o}/category/{s}/">{esc(ps[0].category)}</a> ({len(ps)})</li>'
                       for s, ps in self.by_cat.items())
        side = (f'<aside id="secondary" class="widget-area">\n'
                f'<section id="search-2" class="widget widget_search"><form role="search" method="get" action="{o}/">'
                f'<input type="search" name="s"></form></section>\n'
                f'<section id="recent-posts-2" class="widget widget_recent_entries"><h2 class="widget-title">'
                f'{L["recent"]}</h2><ul>{recent}</ul></section>\n'
                f'<section id="archives-2" class="widget widget_archive"><h2 class="widget-title">{L["archives"]}'
                f'</h2><ul>{months}</ul></section>\n'
                f'<section id="categories-2" class="widget widget_categories"><h2 class="widget-title">'
                f'{L["categories"]}</h2><ul>{cats}</ul></section>\n</aside>')
        main = f'<main id="main" class="site-main">\n{main}\n</main>'
        inner = f"{side}\n{main}" if self.sidebar_first else f"{main}\n{side}"
        body = (f'<div id="page" class="site">\n{header}\n<div id="content" class="site-content">\n{inner}\n</div>\n'
                f'<footer id="colophon" class="site-footer"><div class="site-info">Proudly powered by WordPress '
                f'&middot; &copy; {esc(self.site_name)}</div></footer>\n</div>')
        head = (f'<link rel="alternate" type="application/rss+xml" title="{esc(self.site_name)} &raquo; Feed" '
                f'href="{o}/feed/">\n<meta name="generator" content="WordPress 6.4.2">\n{head}')
        if self.options.get("site_comment_feed"):  # as WordPress writes on every page, before a post's own
            head = (f'<link rel="alternate" type="application/rss+xml" title="{esc(self.site_name)} &raquo; '
                    f'Comments Feed" href="{o}/comments/feed/">\n{head}')
        return page_reply(self.doc(f"{title} – {self.site_name}", body, head, body_class))

    def byline(self, o, p: Post, single: bool) -> str:
        L = self.L
        if single:
            date = self.fld("date", "span", self.date_el(p.published))
            author = self.fld("author", "span", f'<a class="url fn n" href="{o}/author/{p.author.login}/">'
                                                  f'{esc(p.author.name)}</a>')
        else:
            date = f'<time class="entry-date published" datetime="{T.iso(p.published)}">{esc(self.show_date(p.published))}</time>'
            author = f'<span class="author vcard"><a class="url fn n" href="{o}/author/{p.author.login}/">{esc(p.author.name)}</a></span>'
        return (f'<div class="entry-meta"><span class="posted-on">{L["posted"]} <a href="{o}{p.path}" rel="bookmark">'
                f'{date}</a></span> <span class="byline">{L["by"]} {author}</span></div>')

    def entry(self, o, p: Post) -> str:
        L = self.L
        body = (f'<div class="entry-content">\n{self.content(p, o)}\n</div>' if self.list_full else
                f'<div class="entry-summary">{self.excerpt(p)} <a class="more-link" href="{o}{p.path}">'
                f'{L["more"]}</a></div>')
        return (f'<article id="post-{p.id}" class="post-{p.id} post type-post status-publish hentry">\n'
                f'<header class="entry-header"><h2 class="entry-title"><a href="{o}{p.path}" rel="bookmark">'
                f'{esc(p.title)}</a></h2>{self.byline(o, p, False)}</header>\n{body}\n'
                f'<footer class="entry-footer"><a href="{o}{p.path}#comments">{len(p.comments)} '
                f'{L["comments"]}</a></footer>\n</article>')

    def excerpt(self, p: Post) -> str:
        w = p.text.split()
        return f"<p>{esc(' '.join(w[:55]))}{' [&hellip;]' if len(w) > 55 else ''}</p>"

    def pager(self, o, base, k, n) -> str:
        L = self.L
        url = lambda i: f"{o}{base}" if i == 1 else f"{o}{base}page/{i}/"
        if self.numbered_pager:
            items = [f'<span aria-current="page" class="page-numbers current">{k}</span>' if i == k else
                     f'<a class="page-numbers" href="{url(i)}">{i}</a>'
                     for i in sorted({1, n, *range(max(1, k - 2), min(n, k + 2) + 1)})]
            if k < n:
                items.append(f'<a class="next page-numbers" href="{url(k + 1)}">{L["older"]} &rarr;</a>')
            return f'<nav class="navigation pagination"><div class="nav-links">{" ".join(items)}</div></nav>'
        links = ""
        if k < n:
            links += f'<div class="nav-previous"><a href="{url(k + 1)}">{L["older"]}</a></div>'
        if k > 1:
            links += f'<div class="nav-next"><a href="{url(k - 1)}">{L["newer"]}</a></div>'
        return f'<nav class="navigation posts-navigation"><div class="nav-links">{links}</div></nav>'

    def listing(self, o, base, title, posts, k) -> Reply | None:
        n = self.pages(len(posts))
        if k > n:
            return None
        items = "\n".join(self.entry(o, p) for p in self.page_slice(posts, k))
        head = f'<header class="page-header"><h1 class="page-title">{esc(title)}</h1></header>\n' if title else ""
        return self.layout(o, title or self.site_name, head + items + "\n" + self.pager(o, base, k, n),
                           body_class="home blog" if base == "/" else "archive")

    def single(self, o, p: Post, k: int, reply_form: bool) -> Reply:
        L = self.L
        tags = ", ".join(f'<a href="{o}/tag/{T.slugify(t)}/" rel="tag">{esc(t)}</a>' for t in p.tags)
        title = self.fld("title", "h1", esc(p.title))
        article = (f'<article id="post-{p.id}" class="post-{p.id} post type-post status-publish hentry">\n'
                   f'<header class="entry-header">{title}{self.byline(o, p, True)}</header>\n'
                   f'{self.fld("content", "div", chr(10) + self.content(p, o) + chr(10))}\n'
                   f'<footer class="entry-footer"><span class="cat-links"><a href="{o}/category/'
                   f'{T.slugify(p.category)}/" rel="category tag">{esc(p.category)}</a></span> '
                   f'<span class="tags-links">{tags}</span></footer>\n</article>')
        rel = "".join(f'<div class="jp-relatedposts-post"><h4 class="jp-relatedposts-post-title"><a href="{o}{r.path}">'
                      f'{esc(r.title)}</a></h4><p class="jp-relatedposts-post-date">{esc(self.show_date(r.published, False))}'
                      f'</p></div>' for r in self.related(p))
        related = (f'<div id="jp-relatedposts" class="jp-relatedposts"><h3 class="jp-relatedposts-headline">'
                   f'{L["related"]}</h3><div class="jp-relatedposts-items">{rel}</div></div>') if rel else ""
        i = p.index
        prev_ = self.posts[i - 1] if i > 0 else None
        next_ = self.posts[i + 1] if i + 1 < len(self.posts) else None
        nav = '<nav class="navigation post-navigation"><div class="nav-links">'
        if prev_:
            nav += f'<div class="nav-previous"><a href="{o}{prev_.path}" rel="prev">&larr; {esc(prev_.title)}</a></div>'
        if next_:
            nav += f'<div class="nav-next"><a href="{o}{next_.path}" rel="next">{esc(next_.title)} &rarr;</a></div>'
        nav += "</div></nav>"
        here = self.comment_page_path(p, k)
        canonical = o + (here if k > 1 else p.path)
        head = (f'<link rel="canonical" href="{canonical}">\n'
                f'<link rel="alternate" type="application/rss+xml" title="{esc(self.site_name)} &raquo; '
                f'{esc(p.title)} Comments Feed" href="{o}{p.path}feed/">\n'
                f'<link rel="shortlink" href="{o}/?p={p.id}">\n')
        if reply_form:
            head += "<meta name='robots' content='noindex, nofollow'>\n"
        main = "\n".join([article, related, nav, self.comments(o, p, k, here)])
        return self.layout(o, p.title, main, head, body_class=f"post-template-default single postid-{p.id}", post=p)

    def comment_time(self, c) -> dt.datetime:
        """A comment's time as the page writes it: the blog's clock, unless the theme writes its
        wall time labelled UTC (option comment_clock="utc") or with no zone ("naive")."""
        clock = self.options.get("comment_clock")
        if clock == "utc":
            return c.published.replace(tzinfo=dt.timezone.utc)
        return c.published.replace(tzinfo=None) if clock == "naive" else c.published

    def comments(self, o, p: Post, k: int, here: str) -> str:
        L = self.L
        cpp = self.comments_per_page
        shown = self.page_slice(p.comments, k, cpp)
        items = []
        for j, c in enumerate(shown):
            name = f'<a href="{c.url}" rel="external nofollow ugc" class="url">{esc(c.author)}</a>' if c.url else esc(c.author)
            parity = "even" if j % 2 == 0 else "odd"
            items.append(
                f'<li id="comment-{c.id}" class="comment {parity} thread-{parity} depth-1">\n'
                f'<article id="div-comment-{c.id}" class="comment-body">\n<footer class="comment-meta">'
                f'<div class="comment-author vcard"><b class="fn">{name}</b> <span class="says">says:</span></div>'
                f'<div class="comment-metadata"><a href="{o}{here}#comment-{c.id}"><time datetime="{T.iso(self.comment_time(c))}">'
                f'{esc(self.show_date(c.published, True))}</time></a></div></footer>\n'
                f'<div class="comment-content">\n{c.html}\n</div>\n<div class="reply"><a rel="nofollow" '
                f'class="comment-reply-link" href="{o}{here}?replytocom={c.id}#respond" '
                f'aria-label="{L["reply"]} {esc(c.author)}">{L["reply"]}</a></div>\n</article>\n</li>')
        n = self.comment_pages(p)
        cnav = ""
        if n > 1:
            cnav = '<nav class="navigation comment-navigation"><div class="nav-links">'
            if k > 1:
                cnav += (f'<div class="nav-previous"><a href="{o}{p.path}comment-page-{k - 1}/#comments">'
                         f'{L["older_comments"]}</a></div>')
            if k < n:
                cnav += (f'<div class="nav-next"><a href="{o}{p.path}comment-page-{k + 1}/#comments">'
                         f'{L["newer_comments"]}</a></div>')
            cnav += "</div></nav>"
        title = (f'<h2 class="comments-title">{len(p.comments)} {L["comments"]} &ldquo;{esc(p.title)}&rdquo;</h2>'
                 if p.comments else "")
        form = (f'<div id="respond" class="comment-respond"><h3 id="reply-title" class="comment-reply-title">'
                f'{L["leave"]}</h3><form action="{o}/wp-comments-post.php" method="post" id="commentform">'
                f'<textarea id="comment" name="comment"></textarea><input type="hidden" name="comment_post_ID" '
                f'value="{p.id}"><input name="submit" type="submit" value="{L["leave"]}"></form></div>')
        ol = f'<ol class="comment-list">\n' + "\n".join(items) + "\n</ol>" if items else ""
        return f'<div id="comments" class="comments-area">\n{title}\n{ol}\n{cnav}\n{form}\n</div>'

    def attachment(self, o, p: Post, img: Image) -> Reply:
        name = PurePosixPath(img.path).stem
        main = (f'<article id="post-{p.id + 1000}" class="attachment type-attachment status-inherit hentry">'
                f'<header class="entry-header"><h1 class="entry-title">{esc(name)}</h1></header>'
                f'<div class="entry-content"><p class="attachment"><a href="{o}{img.path}"><img src="{o}{img.path}" '
                f'width="{img.width}" height="{img.height}" alt="{esc(img.alt)}"></a></p></div>'
                f'<footer class="entry-footer">Published in <a href="{o}{p.path}">{esc(p.title)}</a></footer></article>')
        return self.layout(o, name, main, f'<link rel="canonical" href="{o}{self.attachment_path(p, img)}">\n',
                           "attachment single")

    def about(self, o) -> Reply:
        r = T.rng(self.family, self.seed, "about")
        paras = "\n".join(f"<p>{esc(T.sentence(r, self.lang))} {esc(T.sentence(r, self.lang))}</p>" for _ in range(3))
        main = (f'<article id="post-2" class="page type-page status-publish hentry"><header class="entry-header">'
                f'<h1 class="entry-title">{self.L["about"]}</h1></header><div class="entry-content">{paras}</div></article>')
        return self.layout(o, self.L["about"], main, body_class="page-template-default page")

    # ------------------------------------------------------------ feeds

    def rss(self, o, self_url, title, items, link) -> str:
        return ('<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"\n'
                '\txmlns:content="http://purl.org/rss/1.0/modules/content/"\n'
                '\txmlns:wfw="http://wellformedweb.org/CommentAPI/"\n'
                '\txmlns:dc="http://purl.org/dc/elements/1.1/"\n'
                '\txmlns:atom="http://www.w3.org/2005/Atom"\n'
                '\txmlns:sy="http://purl.org/rss/1.0/modules/syndication/"\n'
                '\txmlns:slash="http://purl.org/rss/1.0/modules/slash/"\n\t>\n<channel>\n'
                f'\t<title>{esc(title)}</title>\n\t<atom:link href="{esc(self_url)}" rel="self" type="application/rss+xml" />\n'
                f'\t<link>{link}</link>\n\t<description>{esc(self.tagline)}</description>\n'
                f'\t<lastBuildDate>{T.rfc822(self.newest[0].published) if self.newest else ""}</lastBuildDate>\n'
                f'\t<language>{self.lang}</language>\n\t<sy:updatePeriod>hourly</sy:updatePeriod>\n'
                f'\t<generator>https://wordpress.org/?v=6.4.2</generator>\n' + "".join(items) + "</channel>\n</rss>\n")

    def _feed_time(self, p):
        """A post's time in its feed: in the blog's zone, or in UTC (option feed_clock="utc", as
        WordPress writes its feeds: "+0000", a day off the page's for a post near midnight)."""
        return p.published.astimezone(dt.timezone.utc) if self.options.get("feed_clock") == "utc" else p.published

    def feed(self, o, paged: str) -> Reply | None:
        k = page_number(paged)
        if not k or k > self.feed_pages():
            return None
        items = []
        for p in self.page_slice(self.newest, k, self.feed_size):
            cats = "".join(f"\t\t<category>{cdata(c)}</category>\n" for c in [p.category, *p.tags])
            content = (f"\t\t<content:encoded>{cdata(p.html.replace(ORIGIN, o))}</content:encoded>\n"
                       if self.full_feed else "")
            items.append(
                f"\t<item>\n\t\t<title>{esc(p.title)}</title>\n\t\t<link>{o}{p.path}</link>\n"
                f"\t\t<comments>{o}{p.path}#{'comments' if p.comments else 'respond'}</comments>\n"
                f"\t\t<dc:creator>{cdata(p.author.name)}</dc:creator>\n\t\t<pubDate>{T.rfc822(self._feed_time(p))}</pubDate>\n"
                f"{cats}\t\t<guid isPermaLink=\"false\">{o}/?p={p.id}</guid>\n"
                f"\t\t<description>{cdata(self.excerpt(p))}</description>\n{content}"
                f"\t\t<wfw:commentRss>{o}{p.path}feed/</wfw:commentRss>\n"
                f"\t\t<slash:comments>{len(p.comments)}</slash:comments>\n\t</item>\n")
        self_url = f"{o}/feed/" + (f"?paged={k}" if k > 1 else "")
        return feed_reply(self.rss(o, self_url, self.site_name, items, o))

    def comment_feed(self, o, p: Post) -> Reply:
        items = []
        for c in sorted(p.comments, key=lambda c: c.published, reverse=True)[: self.comment_feed_size]:
            items.append(
                f"\t<item>\n\t\t<title>By: {esc(c.author)}</title>\n\t\t<link>{o}{p.path}#comment-{c.id}</link>\n"
                f"\t\t<dc:creator>{cdata(c.author)}</dc:creator>\n\t\t<pubDate>{T.rfc822(c.published)}</pubDate>\n"
                f"\t\t<guid isPermaLink=\"false\">{o}{p.path}#comment-{c.id}</guid>\n"
                f"\t\t<description>{cdata(c.text)}</description>\n"
                f"\t\t<content:encoded>{cdata(c.html)}</content:encoded>\n\t</item>\n")
        return feed_reply(self.rss(o, f"{o}{p.path}feed/", f"Comments on: {p.title}", items, o + p.path))
