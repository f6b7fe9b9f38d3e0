"""AllRules and the two rule-finding algorithms.

Algorithm 1 (best_rule_quadratic) is the oracle; Algorithm 2 (best_rule_linear, one
post-order walk with bitsets) must choose the same node, on generated trees and on real
pages. Algorithm 1 is quadratic, so on real pages it runs on the smaller ones only; on
every page, Algorithm 2's per-node scores are checked against the exact set Dice of each
node's own text (what Algorithm 1 extracts through the node's rule, by AllRules' contract,
which is checked separately on a sample).
"""
from __future__ import annotations

import html as htmllib
import random
import re
import urllib.parse
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tasks.fetch.html import node_text, parse_html
from tasks.text.similarity import normalize_text
from tasks.learn.rules import (apply_rule, best_rule_linear, best_rule_quadratic, element_rules, elements,
                         first_match, first_matches, first_of, padded_bigrams, rule_for, rule_text, score_text,
                         walk_scores, xpath_literal)

# ---------------------------------------------------------------- AllRules

PAGE = """<html><head><title>T</title></head><body>
<div id="main" class="wrap">
  <h1 class="title">First post</h1>
  <div class="entry"><p>One <b>two</b> three</p><p>Four</p></div>
  <span class="by">Ann</span>
</div>
<div class="wrap"><h1 class="title">Second</h1><div class="entry"><p>Other</p></div></div>
<ul><li>a</li><li>b</li></ul>
</body></html>"""


def test_rule_preference_is_id_then_class_then_path():
    root = parse_html(PAGE)
    main = root.xpath("//div[@id='main']")[0]
    assert rule_for(main) == "//*[@id='main']"
    first_title = root.xpath("//h1")[0]
    assert rule_for(first_title) == "//*[@class='title']"
    # the second .title is not selected first by its class: a longer form names it
    second_title = root.xpath("//h1")[1]
    r = rule_for(second_title)
    assert "@id" not in r and apply_rule(root, r)[0] is second_title
    li2 = root.xpath("//li")[1]
    assert rule_for(li2) == root.getroottree().getpath(li2)


def test_every_form_of_element_rules_selects_its_node_first():
    root = parse_html(PAGE)
    for el in elements(root):
        forms = element_rules(el)
        assert forms, el
        assert forms[-1] == root.getroottree().getpath(el)  # the absolute path is always last
        for rule in forms:
            assert apply_rule(root, rule)[0] is el, (rule, el)


def test_xpath_literal_with_both_quotes():
    root = parse_html("""<div class="it's &quot;x&quot;">A</div><div class="b">B</div>""")
    cls = root.xpath("//div")[0].get("class")
    assert rule_text(root, f"//*[@class={xpath_literal(cls)}]") == "A"


def test_apply_rule_survives_bad_rules():
    root = parse_html(PAGE)
    assert apply_rule(root, "//*[") == []
    assert apply_rule(root, None) == []
    assert apply_rule(root, "count(//p)") == []
    assert rule_text(root, "//*[@class='by']") == "Ann"


def test_rules_ending_in_attribute_and_text_node():
    root = parse_html('<div class="m">Posted <a href="/u">Ann</a> on 2014-03-09 <time datetime="2014-03-09T10:00">Sun</time></div>')
    assert rule_text(root, "//*[@class='m']/text()[2]") == "on 2014-03-09"
    assert rule_text(root, "//time/@datetime") == "2014-03-09T10:00"


TRAPS = """<html><head><meta name="author" content=""><meta name="author" content="Bo"></head>
<body><a name="dup">anchor named like an id</a><script id="gone">x</script>
<div id="dup" class="c">first</div><span id="dup" class="c">second</span>
<p id="gone">after a stripped holder of the same id</p>
<p class="c">text before <b id="in" class="c">nested <i>deep</i> tail</b> text after<i>late</i></p>
<div class="w"><div class="w"><i>inner first</i></div><i>outer</i></div>
<a href="/later">a link after the named anchor</a><p class="q">no title</p><p class="q" title="T">titled</p>
<div class="e"></div><div class="e"><i>below the second</i></div>
</body></html>"""


def _headed_rules(root) -> list[str]:
    """Rules of every shape AllRules makes from a head `//tag[@a='v']`, over the page's
    elements, with tags that do and do not match and paths below the head."""
    out = {"//*[@id='nowhere']", "//h6", "//meta[@name='author']/@content", "//*[@class='c']/@id"}
    for el in elements(root):
        if not re.fullmatch(r"[A-Za-z][\w-]*", el.tag):
            continue  # g:plusone and the like: a prefix XPath does not know
        out |= {f"//{el.tag}", f"//{el.tag}/@href", f"//{el.tag}/@title", f"//{el.tag}/@class"}
        for a in ("id", "class", "name", "rel", "property"):
            v = el.get(a)
            if v is not None and "'" not in v:
                for head in (f"//*[@{a}='{v}']", f"//{el.tag}[@{a}='{v}']", f"//span[@{a}='{v}']"):
                    out |= {head, f"{head}/@content", f"{head}/@href", f"{head}/@title", f"{head}/text()[1]",
                            f"{head}/text()[2]", f"{head}/*", f"{head}/i", f"{head}/div[2]",
                            f"{head}/div/i", f"{head}/*/@class"}
    return sorted(out)


def _same(a: list, b: list) -> bool:
    return len(a) == len(b) and all(x is y or (isinstance(x, str) and x == y) for x, y in zip(a, b))


def test_first_match_is_the_rules_first_result_on_traps_and_real_pages(shared_dir):
    """The shortcut (one walk to the rule's first head, then what the rule takes from
    it) gives exactly what applying the whole rule gives first, or stands aside: nested
    heads, duplicate ids, an <a name> like an id, an id whose first holder was stripped,
    tags that do not match, heads without the path below them."""
    pages = [TRAPS] + [f.read_bytes() for f, _ in _testdata_pages(shared_dir)[::40]]
    assert len(pages) > 10
    taken = whole = 0
    for page in pages:
        root = parse_html(page)
        rules = _headed_rules(root)
        together = first_matches(root, rules)
        for rule in rules:
            first = first_match(root, rule)
            if first is None:
                whole += 1
                assert rule not in together and "/" in rule[2:], rule
                continue
            taken += 1
            assert _same(first, apply_rule(root, rule)[:1]), rule
            assert _same(together.get(rule, first), first), rule
    assert taken > whole > 0
    root = parse_html(TRAPS)
    assert first_of(root, "//*[@id='dup']")[0].text == "first"
    assert first_of(root, "//span[@id='dup']")[0].text == "second"
    assert node_text(first_of(root, "//*[@id='gone']")[0]).startswith("after")
    assert first_of(root, "//meta[@name='author']/@content") == [""]
    # a first head without what the rule takes passes to the next head
    assert first_match(root, "//a/@href") == ["/later"] and first_match(root, "//*[@class='q']/@title") == ["T"]
    assert first_match(root, "//*[@class='e']/i")[0].text == "below the second"
    # a head inside the first head: the walk stands aside and the whole rule answers
    assert first_match(root, "//*[@class='c']/text()[2]") is None
    assert first_of(root, "//*[@class='c']/text()[2]") == [" tail"]
    assert first_match(root, "//*[@class='w']/i") is None and first_of(root, "//*[@class='w']/i")[0].text == "inner first"
    for rule in ("/html/body/p[2]", "//p[@class='c']//b", "(//p)[2]"):
        assert first_match(root, rule) is None and _same(first_of(root, rule), apply_rule(root, rule)[:1])


def test_algorithms_on_a_small_page():
    root = parse_html(PAGE)
    for target in ("First post", "One two three", "Ann", "Other"):
        r1, s1 = best_rule_quadratic(root, target)
        r2, s2 = best_rule_linear(root, target)
        assert (r1, s1) == (r2, s2)
        assert s1 == 1.0
        assert rule_text(root, r1) == target
    assert best_rule_linear(root, "  ") == (None, 0.0)
    assert best_rule_quadratic(root, "") == (None, 0.0)


# ---------------------------------------------------------------- generated trees

WORDS = ["post", "Title", "content", "déjà", "vu", "naïve", "2014-03-09", "by", "Ann", "Lee",
         "—", "“quoted”", "日本", "a", "I", "x.y", ""]
TAGS = ["div", "p", "span", "a", "b", "h1", "li", "section"]


def _words(draw):
    n = draw(st.integers(0, 4))
    parts = [draw(st.sampled_from(WORDS)) for _ in range(n)]
    seps = [draw(st.sampled_from([" ", "", "\n  ", "\t"])) for _ in range(n + 1)]
    out = seps[0]
    for p, s in zip(parts, seps[1:]):
        out += p + s
    return out


@st.composite
def trees(draw, depth=0):
    tag = draw(st.sampled_from(TAGS))
    attrs = ""
    if draw(st.booleans()):
        attrs += f' id="{draw(st.sampled_from(["a", "b", "main"]))}"'
    if draw(st.booleans()):
        attrs += f' class="{draw(st.sampled_from(["x", "y", "x y", "entry"]))}"'
    kids = []
    if depth < 4:
        for _ in range(draw(st.integers(0, 3))):
            kids.append(draw(trees(depth + 1)) + htmllib.escape(_words(draw), quote=False))
    return f"<{tag}{attrs}>{htmllib.escape(_words(draw), quote=False)}{''.join(kids)}</{tag}>"


@st.composite
def page_and_target(draw):
    body = "".join(draw(st.lists(trees(), min_size=1, max_size=3)))
    doc = f"<html><body>{body}</body></html>"
    root = parse_html(doc)
    texts = [node_text(e) for e in elements(root)]
    texts = [t for t in texts if t]
    if texts and draw(st.booleans()):
        target = draw(st.sampled_from(texts))
        if draw(st.booleans()):  # a feed's text differs a little from the page's
            target = target[: max(1, len(target) * 2 // 3)] + " extra"
    else:
        target = _words(draw) or "post"
    return doc, target


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(page_and_target())
def test_algorithm_2_chooses_the_node_algorithm_1_chooses(case):
    doc, target = case
    root = parse_html(doc)
    r1, s1 = best_rule_quadratic(root, target)
    r2, s2 = best_rule_linear(root, target)
    assert r1 == r2
    assert s1 == pytest.approx(s2, abs=1e-12)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(page_and_target())
def test_walk_sizes_are_the_sizes_of_each_nodes_padded_bigram_set(case):
    doc, target = case
    root = parse_html(doc)
    nodes, sizes, inters, tsizes = walk_scores(root, [target])
    tset = padded_bigrams(" ".join(target.split()))
    assert tsizes == [len(tset)]
    for el, n, (i,) in zip(nodes, sizes, inters):
        s = padded_bigrams(node_text(el))
        if all(ord(c) < 256 for c in node_text(el) + target):  # no hash collisions possible
            assert n == len(s)
            assert i == len(s & tset)


# ---------------------------------------------------------------- real pages

def _testdata_pages(shared: Path) -> list[tuple[Path, str]]:
    """Every non-empty page of the 2013 test data and of the eval blogs, with a target:
    the feed entry's title for 2013 pages (the page's own <title> when no entry points
    to it), the gold title and content for eval blog posts."""
    from tasks.discover.feeds import parse_feed
    from tests.tasks.learn.test_fields import eval_truth

    out = []
    data = shared / "blogforever-testdata"
    titles = {}
    for feed_file in list(data.glob("*/feed")) + [data / "letitcrash.com" / "rss"]:
        feed = parse_feed(feed_file.read_bytes(), f"http://{feed_file.parent.name}/feed")
        for e in feed["entries"]:
            p = urllib.parse.urlsplit(e["url"])
            titles[data / p.netloc / urllib.parse.unquote(p.path).lstrip("/")] = e
    for f in sorted(data.rglob("*")):
        if not f.is_file() or f.suffix in (".md",) or f.name in ("feed", "rss", "default") \
                or f.stat().st_size == 0:
            continue
        e = titles.get(f)
        out.append((f, e["title"] if e else None))
        if e and e.get("content_html"):
            out.append((f, e["content_html"]))
    for blog in sorted((shared / "eval" / "blogs").iterdir()):
        for t in eval_truth(blog):
            out.append((blog / "site" / t["path"], t["title"]))
            out.append((blog / "site" / t["path"], t["content_text"][:3000]))
    return out


def _target_text(root, target):
    if target is None:
        t = root.find(".//title")
        target = node_text(t) if t is not None else "post"
    elif "<" in target:
        target = node_text(parse_html(target).find("body"))
    return normalize_text(target) or "post"  # NFKC, as both algorithms take it


def test_algorithm_2_scores_every_node_as_algorithm_1_would_on_every_page(shared_dir):
    """On every page: Algorithm 2's best node is the best node by the exact set Dice of
    each node's own text, with the same score (the per-node oracle, linear in depth)."""
    by_page: dict[Path, list] = {}
    for f, target in _testdata_pages(shared_dir):
        by_page.setdefault(f, []).append(target)
    assert len(by_page) > 300
    for f, targets in by_page.items():
        root = parse_html(f.read_bytes())
        targets = [_target_text(root, t) for t in targets]
        nodes, sizes, inters, tsizes = walk_scores(root, targets)
        node_sets = [padded_bigrams(node_text(el)) for el in nodes]
        for k, target in enumerate(targets):
            tset = padded_bigrams(target)
            assert tsizes[k] <= len(tset)
            oracle = [2 * len(s & tset) / (len(s) + len(tset)) if s or tset else 0.0 for s in node_sets]
            linear = [2 * i[k] / (n + tsizes[k]) if n + tsizes[k] else 0.0 for n, i in zip(sizes, inters)]
            best_i = max(range(len(nodes)), key=lambda i: (oracle[i], -i))
            lin_i = max(range(len(nodes)), key=lambda i: (linear[i], -i))
            assert linear[lin_i] == pytest.approx(oracle[best_i], abs=1e-3), (f, target[:60])
            if lin_i != best_i:  # only a hash collision among non-Latin-1 bigrams may reorder near-ties
                assert oracle[lin_i] == pytest.approx(oracle[best_i], abs=1e-3), (f, target[:60])


def test_algorithm_1_and_2_agree_on_a_sample_of_real_pages(shared_dir):
    """The real oracle (rules applied) on the pages small enough for a quadratic run."""
    pages = [(f, t) for f, t in _testdata_pages(shared_dir) if f.stat().st_size < 40_000]
    random.Random(3).shuffle(pages)
    assert len(pages) >= 8
    for f, target in pages[:8]:
        root = parse_html(f.read_bytes())
        target = _target_text(root, target)
        r1, s1 = best_rule_quadratic(root, target)
        r2, s2 = best_rule_linear(root, target)
        assert (r1, round(s1, 9)) == (r2, round(s2, 9)), f


def test_allrules_select_their_node_on_real_pages(shared_dir):
    data = shared_dir / "blogforever-testdata"
    files = [data / "mnmlist.com" / "happy", data / "korben.info" / "beyond.html",
             data / "www.quantumdiaries.org" / "2013" / "08" / "23" / "ilc-more-than-just-a-higgs-factory"]
    assert all(f.is_file() for f in files)
    for f in files:
        root = parse_html(f.read_bytes())
        els = elements(root)
        for el in random.Random(1).sample(els, min(60, len(els))):
            assert apply_rule(root, rule_for(el))[0] is el
