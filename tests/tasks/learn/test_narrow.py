"""A content rule whose block holds the post's title and the page around it, narrowed (issue 31)."""
from __future__ import annotations

from tasks.extract.post import extract_root
from tasks.fetch.html import parse_html
from tasks.learn.narrow import narrowed_content
from tasks.learn.plausible import checked_rules

TRIP = "".join(f"<h5>{d} maj</h5><p>Stad {d} --> Stad {d + 1}</p>" for d in range(1, 9))  # a sidebar, long


def page(i: int, body_words: int, wrapped: bool = True) -> str:
    body = " ".join(f"ord{i}x{j}" for j in range(body_words))
    post = f"<div>{body}</div>" if wrapped else body
    return (f"<html><body><div class='row'><div class='left'><div><span class='post-date'>{i} juni 2010</span>"
            f"<h2>Post number {i}</h2>{post}<div class='post-footer'><p>Upplagd av Jonas kl. 14:00</p></div>"
            f"<div><h2>0 kommentarer</h2></div></div></div><div class='right'>{TRIP}</div></div></body></html>")


RULES = {"content": {"rule": "//*[@class='row']", "share": 1.0}, "title": {"rule": "//*[@class='left']/div/h2", "share": 1.0},
         "date": {"rule": "//*[@class='post-date']", "share": 1.0}}


def pages(wrapped=True):
    # short posts too: their body is smaller than the sidebar the wide block also holds
    return [(page(i, 6 + 10 * (i % 3), wrapped), f"https://b.test/p{i}/", {"pseudo": True}) for i in range(1, 7)]


def test_a_block_around_the_title_and_a_sidebar_is_narrowed_to_the_post_body():
    out, note = narrowed_content(RULES, pages())
    assert note and "narrowed" in note
    assert out["content"]["rule"] != RULES["content"]["rule"]
    assert out["content"]["fallbacks"][-1] == "//*[@class='row']"  # the wide rule: the last runner-up
    html, url, _ = pages()[0]
    got = extract_root(parse_html(html, url), html, out)["content_text"]
    assert got == " ".join(f"ord1x{j}" for j in range(16))


def test_checked_rules_narrow_before_checking():
    out, notes = checked_rules(RULES, pages(), extract_root, lambda html, url: None)
    assert out["content"]["rule"] != RULES["content"]["rule"] and any("narrowed" in n for n in notes)


def test_a_block_without_a_wrapper_for_the_post_or_without_the_title_stays():
    assert narrowed_content(RULES, pages(wrapped=False)) == (RULES, None)  # no block holds most of the text
    inner = dict(RULES, content={"rule": "//*[@class='left']/div/div[1]", "share": 1.0})
    assert narrowed_content(inner, pages()) == (inner, None)  # the title is not inside it
