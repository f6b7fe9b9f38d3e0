"""A farm blog: posts with ground truth, and the pages a platform would serve for them.

`Blog` generates posts (deterministic from the seed, post by post, so `add_posts` appends
exactly what a bigger blog would have had) and renders any URL lazily from them. A family
(WordPress, Blogger, ...) subclasses it with its own URL scheme, markup and feeds.
"""
from __future__ import annotations

import datetime as dt
import json
import math
import re
import urllib.parse
import zoneinfo
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from lxml import html as lhtml

from tests.httpd import Reply

from . import text as T
from .text import esc

ORIGIN = "@@ORIGIN@@"  # placeholder for the site origin inside stored post HTML
STYLES = ("id", "class", "bare")
HTML = "text/html; charset=UTF-8"


@dataclass(frozen=True)
class Author:
    name: str
    login: str


@dataclass
class Comment:
    id: int
    author: str
    published: dt.datetime
    html: str
    text: str
    url: str | None = None  # the commenter's home page, if any


@dataclass
class Image:
    path: str
    kind: str  # "png" or "jpeg"
    width: int
    height: int
    alt: str


@dataclass
class Post:
    index: int  # 0 is the oldest
    id: int  # the platform's post id
    slug: str
    title: str
    author: Author
    published: dt.datetime
    tags: list[str]
    category: str
    html: str  # content HTML, with ORIGIN placeholders in URLs
    text: str  # content as text (the truth)
    summary_html: str  # the first paragraph
    comments: list[Comment]
    images: list[Image]
    path: str = ""  # URL path as served, set by the family

    @property
    def month(self) -> str:
        return self.published.strftime("%Y/%m")


def norm(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip()


def html_text(fragment: str) -> str:
    return norm(lhtml.fragment_fromstring(fragment, create_parent="div").text_content())


def cdata(s: str) -> str:
    return "<![CDATA[" + s.replace("]]>", "]]]]><![CDATA[>") + "]]>"


def file_for(target: str) -> str:
    """The file harness.py serves for a URL target ("/a/b/" -> "a/b/index.html", queries kept)."""
    parts = urllib.parse.urlsplit(target)
    path = urllib.parse.unquote(parts.path).lstrip("/")
    if parts.query:
        return f"{path}?{urllib.parse.unquote(parts.query)}"
    return path + "index.html" if path == "" or path.endswith("/") else path


class Blog:
    """Base of every family. Subclasses define `post_path`, `route` and `paths`."""

    family = "base"
    names: dict = {}  # field -> (id name, class name) of the family's markup
    image_dir = "/images/"
    robots = "User-agent: *\nDisallow:\n"

    def __init__(self, seed: int = 0, n_posts: int | None = None, feed_size: int | None = None, *,
                 lang: str | None = None, full_feed: bool | None = None, per_page: int | None = None,
                 comment_feed_size: int | None = None, comments_per_page: int | None = None,
                 style: str | None = None, date_style: str | None = None, n_authors: int | None = None,
                 **options):
        r = T.rng(self.family, seed, "blog")
        self.seed = seed
        self.explicit = {k for k, v in dict(
            lang=lang, full_feed=full_feed, per_page=per_page, style=style, date_style=date_style,
            n_authors=n_authors, feed_size=feed_size, comment_feed_size=comment_feed_size,
            comments_per_page=comments_per_page).items() if v is not None}
        self.options = options
        self.feed_size = feed_size or r.randint(10, 20)
        n_posts = n_posts if n_posts is not None else r.randint(50, 500)
        self.lang = lang or r.choice(["en", "en", "en", "fr", "es", "de"])
        self.L = T.LABELS[self.lang]
        self.full_feed = r.random() < 0.6 if full_feed is None else full_feed
        self.per_page = per_page or r.choice([5, 6, 7, 10])
        self.comment_feed_size = comment_feed_size or r.choice([4, 5, 6])
        self.comments_per_page = comments_per_page or r.choice([4, 5, 8])
        fields = ("title", "content", "author", "date")
        self.styles = {f: style or r.choices(STYLES, weights=(1, 2, 1))[0] for f in fields}
        self.date_style = date_style or r.choice(T.DATE_STYLES)
        self.date_with_time = r.random() < 0.3
        self.machine_dates = r.random() < 0.6
        self.sidebar_first = r.random() < 0.3
        self.abs_links = r.random() < 0.7
        self.tz = dt.timezone(dt.timedelta(hours=r.choice([0, 1, 2, -5, -8, 9])))
        if options.get("zone"):  # a zone with summer time (its offset moves over the year)
            self.tz = zoneinfo.ZoneInfo(options["zone"])
        self.start = dt.datetime(r.randint(2006, 2016), r.randint(1, 12), r.randint(1, 28), 9, 0, tzinfo=self.tz)
        words = T.WORDS[self.lang]
        self.site_name = f"{r.choice(T.TITLE_ADJ)} {r.choice(T.TITLE_NOUNS)}"
        self.tagline = " ".join(r.choice(words) for _ in range(6)).capitalize()
        self.host = f"{self.family}-s{seed}.farm.test"
        people = []
        while len(people) < (n_authors or r.choice([1, 2, 3, 4])):
            name = T.person(r)
            if name not in people:
                people.append(name)
        self.authors = [Author(n, T.slugify(n)) for n in people]
        self.author_weights = [r.randint(1, 5) for _ in people]
        pool = [t for t in T.TITLE_NOUNS if " " not in t]
        self.tags = r.sample(pool, r.randint(6, 12))
        self.categories = r.sample(T.TITLE_ADJ, r.randint(3, 5))
        self.posts: list[Post] = []
        self.images: dict[str, Image] = {}
        self.by_path: dict[str, Post] = {}
        self._titles: set[str] = set()
        self._slugs: set[str] = set()
        self.setup(r)
        self._extend(n_posts)

    # ------------------------------------------------------------ generation

    def setup(self, r) -> None:
        """Family-specific choices drawn after the common ones."""

    def post_path(self, p: Post) -> str:
        raise NotImplementedError

    def make_slug(self, title: str) -> str:
        return T.slugify(title)

    def post_id(self, i: int, r) -> int:
        return 100 + 7 * i + r.randint(0, 6)

    def add_posts(self, k: int) -> list[Post]:
        """Append k newer posts; feeds, archives and list pages follow."""
        return self._extend(k)

    def edit_post(self, index: int, note: str | None = None) -> Post:
        """Change a post's content in place (an update after publication): a paragraph is appended."""
        p = self.posts[index]
        r = T.rng(self.family, self.seed, "edit", index, len(p.html))
        note = note or f"Update: {T.sentence(r, self.lang)}"
        p.html += f"\n<p class=\"update\">{esc(note)}</p>"
        p.text = html_text(p.html)
        return p

    def _extend(self, k: int) -> list[Post]:
        new = []
        for _ in range(k):
            p = self._make_post(len(self.posts))
            self.posts.append(p)
            new.append(p)
        self.newest = self.posts[::-1]
        self.by_path = {p.path: p for p in self.posts}
        self.by_tag: dict[str, list[Post]] = {}
        self.by_cat: dict[str, list[Post]] = {}
        self.by_author: dict[str, list[Post]] = {}
        self.by_month: dict[str, list[Post]] = {}
        for p in self.newest:
            for t in p.tags:
                self.by_tag.setdefault(T.slugify(t), []).append(p)
            self.by_cat.setdefault(T.slugify(p.category), []).append(p)
            self.by_author.setdefault(p.author.login, []).append(p)
            self.by_month.setdefault(p.month, []).append(p)
        return new

    def _make_post(self, i: int) -> Post:
        r = T.rng(self.family, self.seed, "post", i)
        if i == 0:
            published = self.start
        else:
            gap = r.choice([r.uniform(0.05, 0.9), r.uniform(1, 6), r.uniform(1, 12)])
            published = self.posts[-1].published + dt.timedelta(days=gap)
        published = published.replace(second=0, microsecond=0)
        title = T.title(r)
        while title in self._titles:
            title = f"{title} ({r.randint(2, 99)})"
        self._titles.add(title)
        slug = base = self.make_slug(title)
        n = 2
        while slug in self._slugs:
            slug, n = f"{base}-{n}", n + 1
        self._slugs.add(slug)
        author = r.choices(self.authors, weights=self.author_weights)[0]
        p = Post(index=i, id=self.post_id(i, r), slug=slug, title=title, author=author, published=published,
                 tags=r.sample(self.tags, r.randint(1, 3)), category=r.choice(self.categories),
                 html="", text="", summary_html="", comments=[], images=[])
        p.path = self.post_path(p)
        self._content(p, r)
        self._comments(p, r)
        return p

    def _content(self, p: Post, r) -> None:
        paras = []
        for k in range(r.randint(2, 7)):
            sents = [T.sentence(r, self.lang) for _ in range(r.randint(2, 6))]
            if r.random() < 0.4:
                j = r.randrange(len(sents))
                sents[j] = r.choice(["<em>{}</em>", "<strong>{}</strong>", "<code>{}</code>"]).format(esc(sents[j]))
            if k and r.random() < 0.3 and p.index > 0:
                old = self.posts[r.randrange(p.index)]
                sents.append(f'See also <a href="{ORIGIN}{old.path}">{esc(old.title)}</a>.')
            elif r.random() < 0.2:
                sents.append(f'<a href="https://example.org/{T.slugify(sents[0], 3)}">source</a>.')
            paras.append("<p>" + " ".join(s if s.startswith("<") or "<a " in s else esc(s) for s in sents) + "</p>")
        blocks = list(paras)
        if r.random() < 0.3:
            blocks.insert(r.randint(1, len(blocks)), "<ul>\n" + "\n".join(
                f"<li>{esc(T.sentence(r, self.lang))}</li>" for _ in range(r.randint(2, 4))) + "\n</ul>")
        if r.random() < 0.2:
            blocks.insert(r.randint(1, len(blocks)), f"<blockquote><p>{esc(T.sentence(r, self.lang))}</p></blockquote>")
        if r.random() < 0.25:
            blocks.insert(r.randint(1, len(blocks)), f"<h3>{esc(T.title(r))}</h3>")
        for k in range(r.choice([0, 0, 1, 1, 2])):
            kind = r.choice(["png", "jpeg"])
            w, h = r.choice([(16, 16), (32, 24), (48, 32), (64, 40)])
            img = Image(self.image_path(p, k, kind), kind, w, h, f"{p.slug} figure {k + 1}")
            self.images[img.path] = img
            p.images.append(img)
            blocks.insert(r.randint(1, len(blocks)), self.figure(p, img, esc(T.sentence(r, self.lang))))
        p.html = "\n".join(blocks)
        p.summary_html = paras[0]
        p.text = html_text(p.html)

    def image_path(self, p: Post, k: int, kind: str) -> str:
        return f"{self.image_dir}{p.slug}-{k + 1}.{image_ext(kind)}"

    def figure(self, p: Post, img: Image, caption: str) -> str:
        return (f'<figure><img src="{ORIGIN}{img.path}" alt="{esc(img.alt)}" width="{img.width}" '
                f'height="{img.height}"><figcaption>{caption}</figcaption></figure>')

    def _comments(self, p: Post, r) -> None:
        x = r.random()
        n = 0 if x < 0.3 else r.randint(1, 4) if x < 0.75 else r.randint(6, 14)
        when = p.published
        for j in range(n):
            when = when + dt.timedelta(minutes=r.randint(20, 3000))
            if r.random() < 0.15:
                who, url = p.author.name, None
            else:
                who = r.choice([T.person(r), r.choice(T.HANDLES)])
                url = f"https://example.net/~{T.slugify(who)}" if r.random() < 0.3 else None
            paras = [" ".join(T.sentence(r, self.lang) for _ in range(r.randint(1, 3)))
                     for _ in range(r.choice([1, 1, 2]))]
            html = "\n".join(f"<p>{esc(s)}</p>" for s in paras)
            p.comments.append(Comment(p.index * 100 + j + 1, who, when, html, norm(" ".join(paras)), url))

    # ------------------------------------------------------------ truth and writing

    @property
    def truth(self) -> list[dict]:
        """One harness truth row per post, oldest first."""
        return [{"path": file_for(p.path), "title": p.title, "content_text": p.text,
                 "authors": [p.author.name], "published": T.iso(p.published),
                 "comments": [{"author": c.author, "published": T.iso(c.published), "content_text": c.text}
                              for c in p.comments]} for p in self.posts]

    @property
    def original_url(self) -> str:
        return f"https://{self.host}/"

    def feeds(self) -> list[str]:
        """Paths of the blog's main feed(s), the one a crawler should find first."""
        return []

    def paths(self) -> Iterator[str]:
        """Every target (path with query) the written copy holds: what a crawler can reach."""
        raise NotImplementedError

    def write(self, dest, origin: str | None = None) -> Path:
        """Write site/, posts.txt, truth.jsonl and SOURCE.txt for harness.py."""
        dest = Path(dest)
        site = dest / "site"
        origin = (origin or self.original_url).rstrip("/")
        seen = set()
        for target in self.paths():
            name = file_for(target)
            if name in seen:
                continue
            seen.add(name)
            rep = self.render(target, origin)
            if rep is None or rep.status != 200:
                raise RuntimeError(f"{self.family}: {target} does not render ({rep and rep.status})")
            body = rep.encoded()
            f = site / name
            if Path(name).suffix.lower() not in (".html", ".htm", ".xml", ".json", ".js", ".txt", ""):
                # harness.py rewrites the origin only in files with those suffixes
                body = body.replace(origin.encode(), b"")
            f.parent.mkdir(parents=True, exist_ok=True)
            f.write_bytes(body)
        truth = self.truth
        (dest / "posts.txt").write_text("".join(t["path"] + "\n" for t in truth), encoding="utf-8")
        (dest / "truth.jsonl").write_text(
            "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in truth), encoding="utf-8")
        (dest / "SOURCE.txt").write_text(self.source_txt(origin + "/"), encoding="utf-8")
        return dest

    def source_txt(self, origin: str) -> str:
        return (f"name:            {self.site_name} (blogharvest test farm)\n"
                f"original URL:    {origin}\n"
                f"generator:       tests.farm family={self.family} seed={self.seed}\n"
                f"post pages:      {len(self.posts)}   example {self.posts[-1].path if self.posts else '-'}\n"
                f"feed:            {', '.join(self.feeds())} ({self.feed_size} entries, "
                f"{'full content' if self.full_feed else 'summaries'})\n"
                f"language:        {self.lang}, dates '{self.date_style}', styles {self.styles}\n")

    # ------------------------------------------------------------ serving

    def render(self, target: str, origin: str) -> Reply | None:
        """The reply for a request target ("/path?query"), or None when the blog has no such page."""
        parts = urllib.parse.urlsplit(target)
        path = urllib.parse.unquote(parts.path) or "/"
        query = dict(urllib.parse.parse_qsl(parts.query, keep_blank_values=True))
        o = origin.rstrip("/")
        if path in self.images and not parts.query:
            img = self.images[path]
            data = (T.png if img.kind == "png" else T.jpeg)(img.width, img.height, f"{self.seed}{path}")
            return Reply(200, data, content_type="image/png" if img.kind == "png" else "image/jpeg")
        if path == "/robots.txt":
            return Reply(200, self.robots, content_type="text/plain; charset=utf-8")
        return self.route(path, query, parts.query, o)

    def route(self, path: str, query: dict, raw_query: str, o: str) -> Reply | None:
        raise NotImplementedError

    # ------------------------------------------------------------ markup helpers

    def a(self, o: str, path: str) -> str:
        """An href to a page of this blog, absolute or root-relative as the theme writes them."""
        return (o + path) if self.abs_links else path

    def content(self, p: Post, o: str) -> str:
        return p.html.replace(ORIGIN, o if self.abs_links else "")

    def fld(self, name: str, tag: str, inner: str, extra: str = "") -> str:
        """A field container, marked by id, class or nothing as this blog's theme does."""
        style = self.styles[name]
        ids, classes = self.names[name]
        attr = f' id="{ids}"' if style == "id" else f' class="{classes}"' if style == "class" else ""
        return f"<{tag}{attr}{extra}>{inner}</{tag}>"

    def show_date(self, d: dt.datetime, with_time: bool | None = None) -> str:
        wt = self.date_with_time if with_time is None else with_time
        return T.format_date(d, self.date_style, self.lang, wt)

    def date_el(self, d: dt.datetime) -> str:
        s = esc(self.show_date(d))
        return f'<time datetime="{T.iso(d)}">{s}</time>' if self.machine_dates else s

    def recent(self, o: str, exclude: Post | None = None, n: int = 5) -> list[Post]:
        return [p for p in self.newest[: n + 1] if p is not exclude][:n]

    def related(self, p: Post, n: int = 3) -> list[Post]:
        """Older posts picked from the post's own seed: stable when newer posts are added."""
        if p.index == 0:
            return []
        r = T.rng(self.family, self.seed, "related", p.index)
        pool = range(max(0, p.index - 40), p.index)
        return [self.posts[i] for i in sorted(r.sample(pool, min(n, len(pool))), reverse=True)]

    def pages(self, n_items: int, per_page: int | None = None) -> int:
        return max(1, math.ceil(n_items / (per_page or self.per_page)))

    def page_slice(self, items: list, page: int, per_page: int | None = None) -> list:
        k = per_page or self.per_page
        return items[(page - 1) * k: page * k]

    def doc(self, title: str, body: str, head: str = "", body_class: str = "") -> str:
        return (f'<!DOCTYPE html>\n<html lang="{self.lang}">\n<head>\n<meta charset="utf-8">\n'
                f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
                f"<title>{esc(title)}</title>\n{head}</head>\n<body class=\"{body_class}\">\n{body}\n</body>\n</html>\n")


def page_reply(s: str) -> Reply:
    return Reply(200, s, content_type=HTML)


def feed_reply(s: str, kind: str = "rss") -> Reply:
    return Reply(200, s, content_type=f"application/{kind}+xml; charset=UTF-8")


def json_reply(obj) -> Reply:
    return Reply(200, json.dumps(obj, ensure_ascii=False, indent=1), content_type="application/json; charset=utf-8")


def image_ext(kind: str) -> str:
    """The file extension of a farm image of `kind` ("png" or "jpeg")."""
    return "png" if kind == "png" else "jpg"


def page_number(s: str) -> int | None:
    return int(s) if s.isdigit() and int(s) >= 1 and s == str(int(s)) else None


def listing_page(segs: list[str]) -> int | None:
    """The page of a two-segment listing: "x/y" is page 1, "x/y/page/K" page K (K > 1);
    None for anything else (page/1 is not a URL of the listing)."""
    if len(segs) == 2:
        return 1
    if len(segs) == 4 and segs[2] == "page":
        k = page_number(segs[3])
        return k if k and k > 1 else None
    return None
