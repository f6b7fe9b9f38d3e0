"""Post pages in the comment markup of real themes, with what a reader sees in them.

Each theme writes its comment list as the theme's own template does (WordPress 2.7's
default in a Japanese blog, Twenty Ten in pt-BR, Kubrick's "Says:", Blogger's threaded
comments in French, a Jekyll theme with the date in Jalali digits), around the same page
shell: the post, a related-posts list with excerpts, a tag cloud, and a sidebar of recent
comments with excerpts (the blocks that must never become comments). The texts are made
here; the markup is the themes'.
"""
from __future__ import annotations

import html
import random

TEXTS = {
    "ja": ["とても参考になりました。ありがとうございます。", "この方法で設定したら、うまく動きました。助かりました！",
           "質問なのですが、Windowsでも同じ手順で大丈夫でしょうか。", "続きの記事を楽しみにしています。",
           "自分の環境ではエラーが出てしまいました。バージョンの違いかもしれません。", "なるほど、そういう仕組みだったのですね。"],
    "pt": ["Excelente artigo, me ajudou muito no trabalho de hoje.", "Obrigado pela explicação, ficou bem claro agora.",
           "Tentei fazer do mesmo jeito mas deu erro na segunda etapa, alguma ideia?", "Muito bom! Compartilhei com a equipe.",
           "Não conhecia essa opção, vou testar amanhã cedo.", "Parabéns pelo blog, sempre com conteúdo de qualidade."],
    "fr": ["Merci pour ce billet, très utile pour débuter.", "Je n'avais jamais pensé à le faire de cette manière.",
           "Est-ce que cela marche aussi sous Linux ? J'ai un doute.", "Super article, comme d'habitude !",
           "J'ai essayé hier soir et tout fonctionne parfaitement.", "Petite coquille dans le deuxième paragraphe."],
    "en": ["Thanks for writing this, it saved me an afternoon.", "I tried this on my own machine and it worked right away.",
           "Could you say more about the second step? I got lost there.", "Great post, bookmarked for later.",
           "I think there is a typo in the last code sample.", "Nice to see this explained so plainly."],
}
NAMES = {"ja": ["山田太郎", "さくら", "通りすがり", "たなか", "Taro Yamada"], "pt": ["Cassio", "Maria Souza", "João P.", "Ana", "Rodrigo Lima"],
         "fr": ["Anonyme", "Claire", "Jean-Marc D.", "Sophie", "Luc"], "en": ["Philipp", "ansh bansal", "Hassan Ali", "Kim", "Roland"]}
OWNER = {"ja": "管理人", "pt": "Autor do Blog", "fr": "Le blogueur", "en": "Yasoob"}


def _said(rng, lang: str, i: int) -> str:
    """One paragraph: two of the language's sentences (no two comments say the same)."""
    a, b = rng.sample(TEXTS[lang], 2)
    return f"{a} {b}" if i % 2 else f"{b} {a}"


def _comments(rng, lang: str, n: int, threaded: bool) -> list[dict]:
    out = []
    seen: set = set()
    for i in range(n):
        parent = None
        if threaded and out and rng.random() < 0.35:
            parent = rng.randrange(len(out))
        while True:
            paras = [_said(rng, lang, i + k) for k in range(rng.choice((1, 1, 2, 3)))]
            if paras[0] not in seen:
                seen.add(paras[0])
                break
        out.append({"author": OWNER[lang] if parent is not None and rng.random() < 0.6 else rng.choice(NAMES[lang]),
                    "paras": paras,
                    "day": 1 + (i % 27), "parent": parent, "id": 100 + i})
    return out


# ---------------------------------------------------------------- the themes' comment lists

def wp27_ja(cs: list[dict]) -> str:
    """WordPress 2.7-era theme of a Japanese blog: div#comments > div.comment, the name in an
    h3, the text in <p>s, no dates shown."""
    items = "".join(f'<div class="comment" id="comment-{c["id"]}"><h3>{c["author"]}</h3>'
                    + "".join(f"<p>{p}</p>" for p in c["paras"]) + "</div>" for c in cs)
    return f'<div id="comments"><h2>コメント ({len(cs)})</h2>{items}</div>'


def _tree(cs: list[dict], item) -> str:
    """The comments as a theme nests them: item(comment, its replies' markup)."""
    def kids(i):
        return [j for j, c in enumerate(cs) if c["parent"] == i]

    def one(i):
        return item(cs[i], "".join(one(j) for j in kids(i)))
    return "".join(one(i) for i in kids(None))


def twentyten_pt(cs: list[dict]) -> str:
    """Twenty Ten, pt-BR: ol.commentlist, threaded (ul.children), "DD/MM/YYYY at HH:MM"."""
    def item(c, children):
        return (f'<li class="comment even thread-even depth-1" id="li-comment-{c["id"]}"><div id="comment-{c["id"]}">'
                f'<div class="comment-author vcard"><img alt="" src="/avatar.png" class="avatar avatar-40 photo" height="40" width="40" />'
                f'<cite class="fn">{c["author"]}</cite> <span class="says">disse:</span></div>'
                f'<div class="comment-meta commentmetadata"><a href="#comment-{c["id"]}">{c["day"]:02d}/03/2012 at 10:{c["day"]:02d}</a></div>'
                f'<div class="comment-body">' + "".join(f"<p>{p}</p>" for p in c["paras"]) + "</div>"
                f'<div class="reply"><a class="comment-reply-link" href="?replytocom={c["id"]}#respond">Responder</a></div>'
                f"</div>" + (f'<ul class="children">{children}</ul>' if children else "") + "</li>")
    return (f'<div id="comments"><h3 id="comments-title">{len(cs)} Respostas para <em>Post</em></h3>'
            f'<ol class="commentlist">{_tree(cs, item)}</ol></div>')


def kubrick_en(cs: list[dict]) -> str:
    """Kubrick (WordPress's default until 2.9): ol.commentlist > li, cite + " Says:", the date in small."""
    items = "".join(f'<li class="{"alt" if k % 2 else ""}" id="comment-{c["id"]}"><cite>{c["author"]}</cite> Says:<br />'
                    f'<small class="commentmetadata"><a href="#comment-{c["id"]}" title="">March {c["day"]}th, 2009 at 4:{c["day"]:02d} pm</a></small>'
                    + "".join(f"<p>{p}</p>" for p in c["paras"]) + "</li>" for k, c in enumerate(cs))
    return f'<h3 id="comments">{len(cs)} Responses to &#8220;Post&#8221;</h3><ol class="commentlist">{items}</ol>'


def blogger_fr(cs: list[dict]) -> str:
    """Blogger's threaded comments, French: li.comment > div.comment-block (cite.user, span.datetime,
    p.comment-content), replies in div.comment-replies."""
    def item(c, children):
        return (f'<li class="comment" id="c{c["id"]}"><div class="avatar-image-container"><img src="/b.png" alt=""/></div>'
                f'<div class="comment-block"><div class="comment-header"><cite class="user"><a href="https://www.blogger.com/profile/{c["id"]}" rel="nofollow">{c["author"]}</a></cite>'
                f'<span class="icon user "></span><span class="datetime secondary-text"><a rel="nofollow" href="?showComment={c["id"]}#c{c["id"]}">{c["day"]} mars 2014 à 10:{c["day"]:02d}</a></span></div>'
                f'<p class="comment-content">' + "<br><br>".join(c["paras"]) + "</p>"
                f'<span class="comment-actions secondary-text"><a class="comment-reply" target="_self">Répondre</a></span></div>'
                f'<div class="comment-replies">' + (f'<div class="comment-thread inline-thread"><ol>{children}</ol></div>' if children else "")
                + "</div></li>")
    body = _tree(cs, item)
    return (f'<div class="comments" id="comments"><h4>{len(cs)} commentaires :</h4><div id="comment-holder">'
            f'<div class="comment-thread toplevel-thread"><ol id="top-ra">{body}</ol></div></div></div>')


def blogger_classic_en(cs: list[dict]) -> str:
    """Blogger's classic template: a run of siblings per comment, dt (avatar, name, "said..."),
    dd.comment-body, dd.comment-footer (the time)."""
    items = "".join(f'<dt class="comment-author" id="c{c["id"]}"><a name="c{c["id"]}"></a>'
                    f'<div class="avatar-image-container"><img src="/b.png" alt=""/></div>'
                    f'<a href="https://www.blogger.com/profile/{c["id"]}" rel="nofollow">{c["author"]}</a> said...</dt>'
                    f'<dd class="comment-body"><p>' + "<br /><br />".join(c["paras"]) + "</p></dd>"
                    f'<dd class="comment-footer"><span class="comment-timestamp"><a href="#c{c["id"]}" title="comment permalink">'
                    f'7:{c["day"]:02d} AM</a></span></dd>' for c in cs)
    return f'<div class="comments" id="comments"><h4>{len(cs)} comments:</h4><dl id="comments-block">{items}</dl></div>'


def loose_en(cs: list[dict]) -> str:
    """A Jekyll theme's static comments: the text loose in the block after the name line,
    replies nested in a ul."""
    def item(c, children):
        return (f'<li><div class="comment"><div class="inner"><p><a href=""><span class="author">{c["author"]}</span></a> • '
                f'<time>Jun {c["day"]:02d}, 2013</time></p>\n' + " ".join(c["paras"]) + "</div></div>"
                + (f"<ul>{children}</ul>" if children else "") + "</li>")
    return f'<section class="comments"><h1>Comments</h1><div id="comments"><ul>{_tree(cs, item)}</ul></div></section>'


THEMES = {"wp27-ja": (wp27_ja, "ja", False), "twentyten-pt": (twentyten_pt, "pt", True),
          "kubrick-en": (kubrick_en, "en", False), "blogger-fr": (blogger_fr, "fr", True),
          "blogger-classic-en": (blogger_classic_en, "en", False), "loose-en": (loose_en, "en", True)}


# ---------------------------------------------------------------- the page around them

def _shell(i: int, lang: str, comments_html: str, rng) -> str:
    """A post page: header, the post, a box of labelled rows (author, link, licence), related
    posts with excerpts, the comments, then a sidebar with a tag cloud and recent comments
    (excerpts, links to other posts)."""
    words = TEXTS[lang]
    related = "".join(f'<li><a href="/2012/0{k + 1}/post-{(i + k) % 9}/">{rng.choice(words)[:18]}</a>'
                      f'<p>{rng.choice(words)} {rng.choice(words)}</p></li>' for k in range(3))
    tags = "".join(f'<a href="/tag/t{k}/" style="font-size:{8 + k}pt">tag{k}</a> ' for k in range(12))
    recent = "".join(f'<li><span class="comment-author-link">{NAMES[lang][k]}</span> on '
                     f'<a href="/2012/01/post-{k}/#comment-{k}">{words[k][:30]}</a></li>' for k in range(5))
    recent2 = "".join(f'<li><b>{NAMES[lang][k]}</b>: <a href="/2012/02/post-{k}/#comment-{k + 9}">{words[-k - 1]}</a></li>'
                      for k in range(4))
    body = " ".join(words[(i + k) % len(words)] for k in range(8))
    return (f'<html lang="{lang}"><head><title>Post {i}</title></head><body><div id="wrapper">'
            f'<div id="header"><h1><a href="/">Blog</a></h1><p class="description">A blog about things and more things</p></div>'
            f'<div id="container"><div id="content"><div class="post" id="post-{i}"><h2 class="entry-title">Post number {i}</h2>'
            f'<div class="entry-meta">2012-03-{1 + i % 27:02d}</div><div class="entry-content"><p>{html.escape(body)}</p>'
            f'<p>{html.escape(body[::-1])}</p></div>'
            f'<div class="post-info"><div class="row"><span class="label">Author</span><span>Blog Owner</span></div>'
            f'<div class="row"><span class="label">Link</span><span>http://blog.example/2012/03/post-{i}/</span></div>'
            f'<div class="row"><span class="label">License</span><span>All posts are published under the CC BY 4.0 '
            f'licence; please name the source when you copy them.</span></div></div></div>'
            f'<div class="related"><h3>Related</h3><ul>{related}</ul></div>{comments_html}'
            f'<div id="respond"><h3>Leave a Reply</h3><form><textarea name="comment"></textarea><input type="submit"/></form></div>'
            f'</div></div><div id="sidebar"><div class="widget tag-cloud"><h3>Tags</h3>{tags}</div>'
            f'<div class="widget recentcomments"><h3>Recent comments</h3><ul>{recent}</ul></div>'
            f'<div class="widget"><h3>Latest replies</h3><ul>{recent2}</ul></div></div>'
            f'<div id="footer">© 2012 Blog. Powered by things.</div></div></body></html>')


def blog(theme: str, posts: int = 8, seed: int = 1, counts: list[int] | None = None) -> list[dict]:
    """[{"url", "html", "comments"}] of a blog's posts in `theme`; `counts` comments per post
    (default: a mix with posts of none and of one)."""
    make, lang, threaded = THEMES[theme]
    rng = random.Random(seed)
    counts = counts or [rng.choice((0, 1, 2, 3, 5, 8)) for _ in range(posts)]
    out = []
    for i, n in enumerate(counts):
        cs = _comments(rng, lang, n, threaded)
        page = _shell(i, lang, make(cs) if cs else "", rng)
        out.append({"url": f"http://blog.example/2012/03/post-{i}/", "html": page, "comments": cs})
    return out
