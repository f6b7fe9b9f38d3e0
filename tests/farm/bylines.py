"""Field values that share a node with other text, or live only in metadata or the feed.

One family, five cases (option `case`, else drawn from the seed), each in the blog's
language (en, fr, es, de) and with one of three themes (class, id or bare markup):

- "span": one byline node holds date, separator and author(s): "3 mars 2012 · par Marie
  Dupont et Jean Martin" (a third of the posts have two authors, whom the feed names
  both or only the first);
- "title_extra": the title node also holds a counter "Title (12)" or a subtitle element;
- "jsonld": no author on the page but in its JSON-LD (meta author is the site's name);
- "feed_author": no author on the page; the feed names one author for the whole blog
  (channel managingEditor / Atom feed author) and meta author is the site's name;
- "date_only": a byline with the date only, and where it shows a time, no zone.
"""
from __future__ import annotations

import json

from . import text as T
from .blog import Author, Post, feed_reply
from .static import Static
from .text import esc

CASES = ("span", "title_extra", "jsonld", "feed_author", "date_only")
AND = {"en": "and", "fr": "et", "es": "y", "de": "und"}
SEPS = (" · ", " | ", " — ")


class Bylines(Static):
    family = "bylines"

    def setup(self, r):
        super().setup(r)
        self.case = self.options.get("case") or CASES[self.seed % len(CASES)]
        self.sep = r.choice(SEPS)
        self.subtitles = r.random() < 0.5
        self.feed_first_author = r.random() < 0.5  # RSS feeds often name the first author only
        self.has_archives = True
        self.co: dict[int, Author] = {}
        if self.case == "feed_author":
            self.authors = self.authors[:1]
            self.author_weights = [1]
        if self.case == "date_only":
            self.machine_dates = False
            if "date_style" not in self.explicit:
                self.date_style = r.choice(["long", "short", "numeric", "weekday"])

    def _make_post(self, i: int) -> Post:
        p = super()._make_post(i)
        r = T.rng(self.family, self.seed, "co", i)
        if self.case == "span" and len(self.authors) > 1 and r.random() < 0.35:
            self.co[i] = r.choice([a for a in self.authors if a != p.author])
        return p

    def names_of(self, p: Post) -> list[str]:
        return [p.author.name] + ([self.co[p.index].name] if p.index in self.co else [])

    @property
    def truth(self) -> list[dict]:
        rows = super().truth
        for row, p in zip(rows, self.posts):
            row["authors"] = self.names_of(p)
        return rows

    def extra(self, p: Post) -> str:
        r = T.rng(self.family, self.seed, "extra", p.index)
        if self.subtitles:
            return f'<small class="subtitle">{esc(T.sentence(r, self.lang).rstrip("."))}</small>'
        return f" ({r.randint(1, 250)})"

    def single(self, o, p: Post):
        L = self.L
        names = f" {AND[self.lang]} ".join(esc(n) for n in self.names_of(p))
        date = esc(self.show_date(p.published))
        head = f'<link rel="canonical" href="{o}{p.path}">\n'
        title = esc(p.title)
        if self.case == "span":
            meta = self.fld("date", "div", f"{date}{self.sep}{L['by']} {names}")
        elif self.case == "title_extra":
            title += self.extra(p)
            meta = (self.fld("date", "span", self.date_el(p.published)) + " "
                    + self.fld("author", "span", f"{L['by']} {names}"))
        elif self.case == "date_only":
            meta = self.fld("date", "span", date) + " " + self.fld("author", "span", names)
        else:  # the author is not on the page
            meta = self.fld("date", "span", self.date_el(p.published))
            head += f'<meta name="author" content="{esc(self.site_name)}">\n'
            if self.case == "jsonld":
                ld = {"@context": "https://schema.org", "@type": "BlogPosting", "headline": p.title,
                      "author": [{"@type": "Person", "name": n} for n in self.names_of(p)],
                      "publisher": {"@type": "Organization", "name": self.site_name},
                      "datePublished": T.iso(p.published)}
                head += f'<script type="application/ld+json">{json.dumps(ld, ensure_ascii=False)}</script>\n'
        main = (f'<article class="post-single">\n<header class="post-header">\n'
                f'{self.fld("title", "h1", title)}\n<div class="post-meta">{meta}</div>\n</header>\n'
                f'{self.fld("content", "div", chr(10) + self.content(p, o) + chr(10))}\n</article>')
        return self.layout(o, p.title, main, head, "single")

    def feed(self, o):
        """RSS 2.0 with full content; authors per item (dc:creator) except where the
        case puts the author elsewhere (JSON-LD: none; feed_author: the channel's)."""
        items = []
        for p in self.newest[: self.feed_size]:
            who = ""
            if self.case not in ("jsonld", "feed_author"):
                names = self.names_of(p)[:1] if self.feed_first_author else self.names_of(p)
                who = "".join(f"<dc:creator>{esc(n)}</dc:creator>" for n in names)
            items.append(f"<item><title>{esc(p.title)}</title><link>{o}{p.path}</link>"
                         f"<pubDate>{T.rfc822(p.published)}</pubDate><guid>{o}{p.path}</guid>{who}"
                         f"<description>{esc(self.content(p, o))}</description></item>\n")
        editor = (f"<managingEditor>{self.authors[0].login}@example.org ({esc(self.authors[0].name)})"
                  f"</managingEditor>" if self.case == "feed_author" else "")
        xml = ('<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0" '
               'xmlns:dc="http://purl.org/dc/elements/1.1/">\n<channel>\n'
               f"<title>{esc(self.site_name)}</title><link>{o}/</link><description>{esc(self.tagline)}"
               f"</description><language>{self.lang}</language>{editor}\n" + "".join(items)
               + "</channel>\n</rss>\n")
        return feed_reply(xml)
