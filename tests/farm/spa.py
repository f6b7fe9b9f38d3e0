"""A single-page-app theme: post pages are empty shells that JavaScript fills from JSON.

Listing pages (/, /page/N/, /tag/T/) are served as HTML with links, as pre-rendered SPA
themes do; a post page /post/SLUG holds only the site chrome and
`<article id="app" data-src="/api/posts/SLUG.json">`. /static/app.js fetches that JSON and
writes title, author, date and body into #app (then sets `data-state="ready"` on it, or
`"error"`), sets document.title, and loads the first page of comments from
/api/comments/SLUG/1.json. Further comment pages are behind the button
`#load-more-comments` (class `load-more`): each click appends one page; after the last page
the button is hidden (`hidden` attribute) and `#comments` gets `data-complete="true"`.
The comment list is `#comments ol.comment-list > li.comment`. The feed is Atom at /atom.xml.
"""
from __future__ import annotations

import json

from tests.httpd import Reply

from . import text as T
from .blog import Blog, ORIGIN, Post, feed_reply, image_ext, json_reply, page_number, page_reply
from .text import esc

APP_JS = r"""/* farm SPA theme: renders a post from JSON, comments page by page. */
(function () {
  "use strict";
  var CFG = __CONFIG__;
  function esc(s) {
    return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }
  function wrap(name, inner) { return CFG.fields[name][0] + inner + CFG.fields[name][1]; }
  function getJSON(url) {
    return fetch(url, {headers: {"Accept": "application/json"}}).then(function (r) {
      if (!r.ok) { throw new Error("HTTP " + r.status + " for " + url); }
      return r.json();
    });
  }
  var app = document.getElementById("app");
  if (!app || !app.getAttribute("data-src")) { return; }
  var button, list, section;
  function addComments(url) {
    button.disabled = true;
    return getJSON(url).then(function (page) {
      page.comments.forEach(function (c) {
        var li = document.createElement("li");
        li.className = "comment";
        li.id = "comment-" + c.id;
        var who = c.url ? '<a href="' + esc(c.url) + '" rel="nofollow">' + esc(c.author) + "</a>" : esc(c.author);
        li.innerHTML = '<div class="comment-meta"><span class="comment-author">' + who + "</span> " +
          '<time class="comment-date" datetime="' + esc(c.published) + '">' + esc(c.date_text) + "</time></div>" +
          '<div class="comment-text">' + c.html + "</div>";
        list.appendChild(li);
      });
      section.setAttribute("data-loaded", String(list.children.length));
      if (page.next) {
        button.setAttribute("data-next", page.next);
        button.hidden = false;
        button.disabled = false;
      } else {
        button.removeAttribute("data-next");
        button.hidden = true;
        section.setAttribute("data-complete", "true");
      }
    });
  }
  getJSON(app.getAttribute("data-src")).then(function (post) {
    document.title = post.title + " \u00b7 " + CFG.site;
    var date = CFG.machine_dates ?
      '<time datetime="' + esc(post.published) + '">' + esc(post.date_text) + "</time>" : esc(post.date_text);
    var tags = post.tags.map(function (t) {
      return '<a class="tag" href="' + esc(t.url) + '">' + esc(t.name) + "</a>";
    }).join(" ");
    app.innerHTML = '<header class="post-head">' + wrap("title", esc(post.title)) +
      '<p class="byline">' + esc(CFG.labels.by) + " " + wrap("author", esc(post.author)) + " \u00b7 " +
      wrap("date", date) + "</p></header>\n" + wrap("content", "\n" + post.html + "\n") +
      '\n<p class="tags">' + tags + "</p>\n" +
      '<section id="comments" class="comments" data-loaded="0"><h2>' + post.comments.total + " " +
      esc(CFG.labels.comments) + '</h2><ol class="comment-list"></ol>' +
      '<button id="load-more-comments" class="load-more" type="button" hidden>' + esc(CFG.labels.load_more) +
      "</button></section>";
    section = document.getElementById("comments");
    list = section.querySelector("ol.comment-list");
    button = document.getElementById("load-more-comments");
    button.addEventListener("click", function () {
      var next = button.getAttribute("data-next");
      if (next) { addComments(next); }
    });
    app.setAttribute("data-state", "ready");
    if (post.comments.first) { return addComments(post.comments.first); }
    section.setAttribute("data-complete", "true");
  }).catch(function (e) {
    app.setAttribute("data-state", "error");
    app.textContent = "Could not load this post (" + e.message + ").";
  });
})();
"""


class SPA(Blog):
    family = "spa"
    names = {"title": ("post-title", "title"), "content": ("post-content", "content markdown-body"),
             "author": ("post-author", "author"), "date": ("post-date", "date")}

    def setup(self, r):
        self.comments_per_page = self.comments_per_page if "comments_per_page" in self.explicit else r.choice([3, 4, 5])

    def post_path(self, p: Post) -> str:
        return f"/post/{p.slug}"

    def image_path(self, p: Post, k: int, kind: str) -> str:
        return f"/media/{p.id}-{k + 1}.{image_ext(kind)}"

    def feeds(self):
        return ["/atom.xml"]

    def json_path(self, p: Post) -> str:
        return f"/api/posts/{p.slug}.json"

    def comments_path(self, p: Post, k: int) -> str:
        return f"/api/comments/{p.slug}/{k}.json"

    def comment_pages(self, p: Post) -> int:
        return self.pages(len(p.comments), self.comments_per_page) if p.comments else 0

    def paths(self):
        yield from ("/", "/robots.txt", "/atom.xml", "/static/app.js")
        for k in range(2, self.pages(len(self.posts)) + 1):
            yield f"/page/{k}/"
        for slug in self.by_tag:
            yield f"/tag/{slug}/"
        for p in self.posts:
            yield p.path
            yield self.json_path(p)
            for k in range(1, self.comment_pages(p) + 1):
                yield self.comments_path(p, k)
            for img in p.images:
                yield img.path

    # ------------------------------------------------------------ routing

    def route(self, path, q, raw, o):
        if path == "/":
            return self.listing(o, "/", None, self.newest, 1)
        if path == "/atom.xml":
            return self.feed(o)
        if path == "/static/app.js":
            return Reply(200, self.app_js(), content_type="application/javascript; charset=utf-8")
        segs = [s for s in path.split("/") if s]
        if not segs:
            return None
        if segs[0] == "page" and len(segs) == 2 and path.endswith("/"):
            k = page_number(segs[1])
            return k and k > 1 and self.listing(o, "/", None, self.newest, k) or None
        if segs[0] == "tag" and len(segs) == 2 and segs[1] in self.by_tag and path.endswith("/"):
            posts = self.by_tag[segs[1]]
            return self.listing(o, path, next(t for t in posts[0].tags if T.slugify(t) == segs[1]), posts, 1,
                                paged=False)
        if segs[0] == "post" and len(segs) == 2:
            p = self.by_path.get(path)
            return p and self.shell(o, p)
        if segs[:2] == ["api", "posts"] and len(segs) == 3 and segs[2].endswith(".json"):
            p = self.by_path.get(self.post_path_for(segs[2][:-5]))
            return p and self.post_json(o, p)
        if segs[:2] == ["api", "comments"] and len(segs) == 4 and segs[3].endswith(".json"):
            p = self.by_path.get(self.post_path_for(segs[2]))
            k = page_number(segs[3][:-5])
            return p and k and k <= self.comment_pages(p) and self.comments_json(o, p, k) or None
        return None

    def post_path_for(self, slug: str) -> str:
        return f"/post/{slug}"

    # ------------------------------------------------------------ pages

    def app_js(self) -> str:
        fields = {}
        for name, tag in (("title", "h1"), ("author", "span"), ("date", "span"), ("content", "div")):
            fields[name] = self.fld(name, tag, "\x00").split("\x00")
        cfg = {"site": self.site_name, "machine_dates": self.machine_dates, "fields": fields,
               "labels": {"by": self.L["by"], "comments": self.L["comments"],
                          "load_more": f'{self.L["load_more"]} ({self.L["comments"].lower()})'}}
        return APP_JS.replace("__CONFIG__", json.dumps(cfg, ensure_ascii=False))

    def layout(self, o, title, main, head="", body_class="") -> Reply:
        L = self.L
        recent = "".join(f'<li><a href="{self.a(o, p.path)}">{esc(p.title)}</a></li>' for p in self.recent(o))
        tags = "".join(f'<a class="chip" href="{self.a(o, "/tag/" + s + "/")}">{esc(s)}</a> ' for s in sorted(self.by_tag))
        body = (f'<div id="root" class="layout">\n<nav class="topbar"><a class="brand" href="{self.a(o, "/")}">'
                f'{esc(self.site_name)}</a> <a href="{self.a(o, "/atom.xml")}">Atom</a></nav>\n'
                f'<div class="columns">\n<main class="main-column">\n{main}\n</main>\n'
                f'<aside class="side-column"><section class="widget recent"><h3>{L["recent"]}</h3><ul>{recent}</ul>'
                f'</section><section class="widget tags"><h3>{L["tags"]}</h3>{tags}</section></aside>\n</div>\n'
                f'<footer class="bottom">{esc(self.tagline)}</footer>\n</div>')
        head = (f'<link rel="alternate" type="application/atom+xml" title="{esc(self.site_name)}" href="{o}/atom.xml">\n'
                f'{head}')
        return page_reply(self.doc(title, body, head, body_class))

    def listing(self, o, base, title, posts, k, paged=True) -> Reply | None:
        L = self.L
        n = self.pages(len(posts)) if paged else 1
        if k > n:
            return None
        shown = self.page_slice(posts, k) if paged else posts
        cards = "\n".join(
            f'<div class="card"><a class="card-link" href="{self.a(o, p.path)}"><h2 class="card-title">{esc(p.title)}'
            f'</h2></a><div class="card-meta">{esc(p.author.name)} · {esc(self.show_date(p.published, False))}</div>'
            f'<p class="card-excerpt">{esc(" ".join(p.text.split()[:25]))}…</p></div>' for p in shown)
        pager = ""
        if paged:
            url = lambda i: self.a(o, "/" if i == 1 else f"/page/{i}/")
            pager = '<div class="pager">'
            if k > 1:
                pager += f'<a class="pager-newer" href="{url(k - 1)}">{L["newer"]}</a> '
            if k < n:
                pager += f'<a class="pager-older" href="{url(k + 1)}">{L["older"]}</a>'
            pager += "</div>"
        head = f"<h1 class=\"list-title\">{esc(title)}</h1>\n" if title else ""
        return self.layout(o, title or self.site_name, f'{head}<div class="cards">\n{cards}\n</div>\n{pager}',
                           body_class="list")

    def shell(self, o, p: Post) -> Reply:
        main = (f'<article id="app" data-src="{self.a(o, self.json_path(p))}" data-state="loading">'
                f'<p class="loading">…</p></article>\n'
                f'<noscript><p>{esc(self.site_name)} needs JavaScript.</p></noscript>')
        head = f'<script src="{self.a(o, "/static/app.js")}" defer></script>\n'
        return self.layout(o, self.site_name, main, head, body_class="post")

    def post_json(self, o, p: Post) -> Reply:
        return json_reply({
            "id": p.id, "slug": p.slug, "title": p.title, "author": p.author.name,
            "published": T.iso(p.published), "date_text": self.show_date(p.published),
            "html": p.html.replace(ORIGIN, o if self.abs_links else ""),
            "tags": [{"name": t, "url": self.a(o, f"/tag/{T.slugify(t)}/")} for t in p.tags],
            "comments": {"total": len(p.comments),
                         "first": self.a(o, self.comments_path(p, 1)) if p.comments else None},
        })

    def comments_json(self, o, p: Post, k: int) -> Reply:
        n = self.comment_pages(p)
        return json_reply({
            "page": k, "pages": n,
            "comments": [{"id": c.id, "author": c.author, "url": c.url, "published": T.iso(c.published),
                          "date_text": self.show_date(c.published, True), "html": c.html}
                         for c in self.page_slice(p.comments, k, self.comments_per_page)],
            "next": self.a(o, self.comments_path(p, k + 1)) if k < n else None,
        })

    # ------------------------------------------------------------ feed

    def feed(self, o) -> Reply:
        entries = []
        for p in self.newest[: self.feed_size]:
            body = (f'<content type="html">{esc(p.html.replace(ORIGIN, o))}</content>' if self.full_feed else
                    f'<summary type="html">{esc(p.summary_html.replace(ORIGIN, o))}</summary>')
            cats = "".join(f'<category term="{esc(t)}"/>' for t in p.tags)
            entries.append(f'  <entry>\n    <title>{esc(p.title)}</title>\n    <link href="{o}{p.path}"/>\n'
                           f'    <id>urn:farm:{self.host}:{p.id}</id>\n    <published>{T.iso(p.published)}</published>\n'
                           f'    <updated>{T.iso(p.published)}</updated>\n    <author><name>{esc(p.author.name)}</name>'
                           f'</author>\n    {cats}\n    {body}\n  </entry>\n')
        updated = T.iso(self.newest[0].published) if self.newest else T.iso(self.start)
        xml = ('<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom" '
               f'xml:lang="{self.lang}">\n  <title>{esc(self.site_name)}</title>\n  <subtitle>{esc(self.tagline)}</subtitle>\n'
               f'  <link href="{o}/atom.xml" rel="self"/>\n  <link href="{o}/"/>\n  <updated>{updated}</updated>\n'
               f'  <id>urn:farm:{self.host}</id>\n' + "".join(entries) + "</feed>\n")
        return feed_reply(xml, "atom")
