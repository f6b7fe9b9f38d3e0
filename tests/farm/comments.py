"""Comment families: Hugo-like blogs (tests/farm/static.py) whose comments have no feed.

- `threaded` ("markup only"): comments printed in the page by one of three themes, with
  class names drawn per blog, threaded (replies nested one level down, up to three), in the
  blog's language, with or without dates (`comment_dates`), pingbacks among them in the
  list theme. Option `decoys=True` adds scripts and a frame that have nothing to do with
  comments: a share script and an iframe after the post, a "show comments" toggle (no sign
  of script comments: --js auto starts no browser). Option `mount=True` adds, beside the
  complete static comments, an empty element named for comments (a sign: --js auto renders
  its sample, sees nothing more, renders no post).
- `widget` ("unknown script widget"): the post page holds an empty container and a script
  from the blog itself that loads the comments from JSON, a page at a time, behind a
  "load more" button named and labelled per blog; the page shows the comment count.

Truth comments carry `parent` (index in the post's list, or None) and `kind`.
"""
from __future__ import annotations

import json

from tests.httpd import Reply

from . import text as T
from .blog import Blog, Comment, Post, json_reply
from .static import Static
from .text import esc

PREFIXES = ("cmt", "talk", "resp", "nb", "gb", "disc", "fb", "rx")
THEMES = ("list", "divs", "articles")
MORE = {"en": "More", "fr": "Plus", "es": "Más", "de": "Mehr"}


class _Commented(Static):
    """Static with comments of its own (Blog's generator) and reply links between them."""

    def setup(self, r):
        super().setup(r)
        self.prefix = r.choice(PREFIXES) + r.choice(["-", "_", ""])
        self.parents: dict[int, int | None] = {}  # comment id -> parent comment id
        self.kinds: dict[int, str] = {}

    def _comments(self, p: Post, r) -> None:
        Blog._comments(self, p, r)
        depth: dict[int, int] = {}
        for j, c in enumerate(p.comments):
            parent = None
            if j and r.random() < 0.35:
                cand = [d for d in p.comments[:j] if depth[d.id] < 2]
                parent = r.choice(cand).id if cand else None
            self.parents[c.id] = parent
            depth[c.id] = 0 if parent is None else depth[parent] + 1
            self.kinds[c.id] = "comment"

    @property
    def truth(self) -> list[dict]:
        rows = super().truth
        for p, row in zip(self.posts, rows):
            ids = [c.id for c in p.comments]
            for c, tc in zip(p.comments, row["comments"]):
                par = self.parents.get(c.id)
                tc["parent"] = ids.index(par) if par in ids else None
                tc["kind"] = self.kinds.get(c.id, "comment")
        return rows

    def children(self, p: Post, parent: int | None) -> list[Comment]:
        return [c for c in p.comments if self.parents.get(c.id) == parent]

    def c(self, name: str) -> str:
        return f"{self.prefix}{name}"


class Threaded(_Commented):
    family = "threaded"

    def setup(self, r):
        super().setup(r)
        self.theme = self.options.get("theme") or r.choice(THEMES)
        self.comment_dates = self.options.get("comment_dates", r.random() < 0.6)
        self.decoys = bool(self.options.get("decoys", False))
        self.mount = bool(self.options.get("mount", False))

    def _comments(self, p: Post, r) -> None:
        super()._comments(p, r)
        if self.theme == "list" and p.comments and r.random() < 0.3:
            c = p.comments[-1]
            c.author = T.title(r)
            self.kinds[c.id] = "pingback"
            self.parents[c.id] = None

    def when(self, c: Comment) -> str:
        if not self.comment_dates:
            return ""
        s = esc(T.format_date(c.published, self.date_style, self.lang, True))
        return s if not self.machine_dates else f'<time datetime="{T.iso(c.published)}">{s}</time>'

    def one(self, p: Post, c: Comment) -> str:
        L, k = self.L, self.c
        kids = "".join(self.one(p, d) for d in self.children(p, c.id))
        who = f'<a href="{c.url}" rel="external nofollow">{esc(c.author)}</a>' if c.url else esc(c.author)
        if self.theme == "list":
            kind = " pingback" if self.kinds.get(c.id) == "pingback" else ""
            kids = f'<ol class="{k("children")}">{kids}</ol>' if kids else ""
            return (f'<li class="{k("item")}{kind}" id="{k("")}{c.id}"><div class="{k("meta")}">'
                    f'<span class="{k("name")}">{who}</span> <span class="{k("when")}">{self.when(c)}</span></div>'
                    f'<div class="{k("body")}">{c.html}</div><a class="{k("reply")}" href="#r{c.id}">{L["reply"]}</a>'
                    f'{kids}</li>')
        if self.theme == "divs":
            kids = f'<div class="{k("replies")}">{kids}</div>' if kids else ""
            return (f'<div class="{k("c")}" id="c{c.id}"><p class="{k("head")}"><strong>{who}</strong> '
                    f'{L["said"]}</p><div class="{k("msg")}">{c.html}</div>'
                    f'<p class="{k("foot")}">{self.when(c)}</p>{kids}</div>')
        kids = f'<div class="{k("sub")}">{kids}</div>' if kids else ""
        return (f'<article class="{k("note")}"><header>{who}</header><section>{c.html}</section>'
                f'<footer>{self.when(c)} <button type="button">{L["reply"]}</button></footer>{kids}</article>')

    def comments_html(self, p: Post) -> str:
        L, k = self.L, self.c
        top = "".join(self.one(p, c) for c in self.children(p, None))
        wrap = {"list": f'<ol class="{k("list")}">{top}</ol>', "divs": f'<div class="{k("thread")}">{top}</div>',
                "articles": top}[self.theme]
        toggle = (f'<button type="button" class="{k("toggle")}" onclick="this.nextElementSibling.hidden=false">'
                  f'{L["comments"]}</button>' if self.decoys else "")
        return (f'<section id="{k("comments")}"><h2>{len(p.comments)} {L["comments"]}</h2>{toggle}<div>{wrap}</div>'
                f'<form class="{k("form")}"><label>{L["leave"]}</label><textarea></textarea></form></section>')

    def single(self, o, p: Post) -> Reply:
        reply = super().single(o, p)
        extra = self.comments_html(p) if p.comments else ""
        if self.decoys:
            extra += (f'<iframe src="{o}/share/frame.html" title="share"></iframe>'
                      f'<script src="{o}/share/share.js" async></script>')
        if self.mount:
            extra += f'<div class="{self.c("comments")}-embed"></div>'
        return Reply(reply.status, reply.body.replace("</main>", extra + "\n</main>", 1), headers=reply.headers,
                     content_type=reply.content_type)

    def route(self, path, q, raw, o):
        if self.decoys and path == "/share/share.js":
            return Reply(200, "window.shared = true;", content_type="application/javascript")
        if self.decoys and path == "/share/frame.html":
            return Reply(200, "<html><body><a href='#'>Share</a></body></html>", content_type="text/html")
        return super().route(path, q, raw, o)

    def paths(self):
        yield from super().paths()
        if self.decoys:
            yield from ("/share/share.js", "/share/frame.html")


WIDGET_JS = r"""(function () {
  "use strict";
  var CFG = __CONFIG__;
  var root = document.getElementById(CFG.root);
  if (!root) { return; }
  function esc(s) { return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;"); }
  var list = document.createElement("div"); list.className = CFG.k + "stream"; root.appendChild(list);
  var more = document.createElement("span"); more.className = CFG.k + "next"; more.setAttribute("role", "button");
  more.textContent = CFG.more; more.hidden = true; root.appendChild(more);
  function draw(c, into) {
    var d = document.createElement("div"); d.className = CFG.k + "entry";
    d.innerHTML = '<div class="' + CFG.k + 'who">' + esc(c.author) + '</div><div class="' + CFG.k + 'ts" title="' +
      c.published + '">' + esc(c.shown) + '</div><div class="' + CFG.k + 'txt">' + c.html + '</div>';
    into.appendChild(d);
    if (c.replies.length) {
      var sub = document.createElement("div"); sub.className = CFG.k + "nest"; d.appendChild(sub);
      c.replies.forEach(function (r) { draw(r, sub); });
    }
  }
  function load(k) {
    more.hidden = true;
    fetch(root.getAttribute("data-src") + k + ".json").then(function (r) { return r.json(); }).then(function (page) {
      page.items.forEach(function (c) { draw(c, list); });
      if (page.next) { more.setAttribute("data-k", page.next); more.hidden = false; }
    });
  }
  more.addEventListener("click", function () { load(more.getAttribute("data-k")); });
  load(1);
})();
"""


class Widget(_Commented):
    family = "widget"

    def setup(self, r):
        super().setup(r)
        self.per_load = self.options.get("per_load") or r.choice([2, 3])
        self.more = f'{MORE[self.lang]} …' if r.random() < 0.5 else self.L["load_more"]

    def api(self, p: Post) -> str:
        return f"/{self.prefix.strip('-_') or 'x'}-api/{p.slug}/"

    def single(self, o, p: Post) -> Reply:
        reply = super().single(o, p)
        k = self.c
        extra = (f'<section class="{k("zone")}"><h2>{len(p.comments)} {self.L["comments"]}</h2>'
                 f'<div id="{k("root")}" data-src="{self.api(p)}"></div></section><script src="{o}/assets/{k("embed")}.js" defer></script>')
        return Reply(reply.status, reply.body.replace("</main>", extra + "\n</main>", 1), headers=reply.headers,
                     content_type=reply.content_type)

    def tree(self, p: Post, c: Comment) -> dict:
        return {"author": c.author, "published": T.iso(c.published), "html": c.html,
                "shown": T.format_date(c.published, self.date_style, self.lang, True),
                "replies": [self.tree(p, d) for d in self.children(p, c.id)]}

    def route(self, path, q, raw, o):
        k = self.c
        if path == f"/assets/{k('embed')}.js":
            cfg = {"root": k("root"), "k": k(""), "more": self.more}
            return Reply(200, WIDGET_JS.replace("__CONFIG__", json.dumps(cfg)), content_type="application/javascript")
        for p in self.posts:
            base = self.api(p)
            if path.startswith(base) and path.endswith(".json"):
                n = path[len(base):-5]
                top = self.children(p, None)
                pages = max(1, -(-len(top) // self.per_load))
                if not n.isdigit() or not 1 <= int(n) <= pages:
                    return None
                i = int(n)
                items = [self.tree(p, c) for c in top[(i - 1) * self.per_load: i * self.per_load]]
                return json_reply({"items": items, "next": str(i + 1) if i < pages else None})
        return super().route(path, q, raw, o)

    def paths(self):
        yield from super().paths()
        yield f"/assets/{self.c('embed')}.js"
        for p in self.posts:
            top = self.children(p, None)
            for i in range(1, max(1, -(-len(top) // self.per_load)) + 1):
                yield f"{self.api(p)}{i}.json"
