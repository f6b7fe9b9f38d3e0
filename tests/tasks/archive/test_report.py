"""The crawl report: facts from records, and an HTML page that stands alone."""
from __future__ import annotations

import json
import re
import shutil

import pytest

from tasks.archive.report import (advice, bar_chart, comments_per_post, coverage, error_groups, posts_per_month,
                                  render_html, summarise)


def _record(i: int, **over) -> dict:
    r = {"url": f"http://b.test/p{i}/", "title": f"Post {i}", "content_text": "words " * 20,
         "authors": ["Ann"], "published": f"2012-{(i % 3) * 2 + 1:02d}-03T10:00:00+01:00", "comments": []}
    r.update(over)
    return r


RECORDS = ([_record(i) for i in range(6)]
           + [_record(6, authors=[], sources={"authors": "jsonld"}), _record(7, published=None),
              _record(8, comments=[{"author": "x"}] * 3, extraction="fallback")])
INFO = {"crawl_id": "c1", "url": "http://b.test/", "state": "done", "pages": 27, "errors": 4,
        "started": 100.0, "finished": 160.0,
        "phase_started": {"discover": 100.0, "learn": 101.5, "traverse": 110.0, "write": 150.0, "end": 162.0}}
BLOG = {"rules": {"title": {"rule": "//h1[@class='t']", "share": 0.9, "score": 0.99, "fallbacks": ["//h1"]},
                  "authors": None}}
ERRORS = [{"url": f"http://b.test/x{i}", "kind": "http_404" if i < 3 else "timeout", "message": "m"}
          for i in range(4)]


def test_coverage_counts_filled_fields_and_their_sources():
    cov = coverage(RECORDS)
    assert cov["authors"]["filled"] == 8 and cov["authors"]["of"] == 9
    assert cov["date"]["filled"] == 8
    assert cov["comments"]["filled"] == 1
    # the record's own word on who filled a field wins over the default "rule"
    assert cov["title"]["sources"] == {"rule": 8, "fallback": 1}
    assert cov["authors"]["sources"] == {"rule": 7, "fallback": 1}


def test_posts_per_month_shows_gaps_as_zeros_and_counts_undated():
    months = posts_per_month(RECORDS)
    assert list(months) == ["2012-01", "2012-02", "2012-03", "2012-04", "2012-05", "undated"]
    assert months["2012-02"] == 0 and months["2012-04"] == 0 and months["undated"] == 1
    assert sum(months.values()) == len(RECORDS)


def test_a_bogus_date_cannot_make_the_chart_endless():
    months = posts_per_month([_record(1, published="0001-01-01"), _record(2, published="9999-12-01")])
    assert len(months) <= 1200


def test_errors_are_grouped_by_kind_with_examples():
    groups = error_groups(ERRORS * 3)
    assert [(g["kind"], g["count"]) for g in groups] == [("http_404", 9), ("timeout", 3)]
    assert len(groups[0]["examples"]) == 3


def test_summary_sets_posts_against_announced_counts():
    f = summarise(INFO, BLOG, RECORDS, ERRORS, {"archive widget": 12, "feed entries": 5})
    assert f["missing_against"] == {"archive widget": 3, "feed entries": 0}
    assert f["pages_per_post"] == 3.0 and f["duration_seconds"] == 60.0
    assert [(p["phase"], p["seconds"]) for p in f["phases"]] == [
        ("discover", 1.5), ("learn", 8.5), ("traverse", 40.0), ("write", 12.0)]
    assert f["comments"] == comments_per_post(RECORDS) and f["comments"]["total"] == 3
    assert json.loads(json.dumps(f)) == f


def test_html_stands_alone_and_escapes_what_the_blog_wrote():
    hostile = _record(9, title="<script>alert(1)</script>", url="http://b.test/</script><b>")
    f = summarise(INFO, BLOG, RECORDS + [hostile], ERRORS + [{"url": "x", "kind": "<i>k</i>", "message": "</script>"}])
    page = render_html(f)
    assert not re.search(r"<script(?![^>]*application/json)", page)  # no code, only the facts block
    assert not re.search(r"""(src|href)=['"]?https?:""", page)  # nothing fetched from the network
    assert "<i>k</i>" not in page and "&lt;i&gt;k&lt;/i&gt;" in page
    data = re.search(r"<script type='application/json' id='facts'>(.*?)</script>", page, re.S).group(1)
    assert json.loads(data)["posts"] == 10


def test_advice_names_each_fault_and_what_to_do():
    info = dict(INFO, warnings={"no-browser": "rendering is off: no Chromium; install chromium"})
    f = summarise(info, BLOG, RECORDS, ERRORS + [{"url": "u", "kind": "timeout", "message": "m"}],
                  {"archive widget": 12})
    said = " | ".join(advice(f))
    assert "3 of the 12 posts the archive widget announces were not found" in said
    assert "No post in 2 month(s)" in said and "2012-02, 2012-04" in said
    assert "install chromium" in said and "run the same command again" in said
    assert "fallback" in said
    clean = summarise(INFO, BLOG, [_record(i, published=f"2012-0{i % 3 + 1}-01") for i in range(9)], [],
                      {"archive widget": 9})
    assert advice(clean) == [] and "Complete" in render_html(clean)


def test_report_says_which_pages_a_browser_drew_and_why():
    blog = dict(BLOG, js="posts", js_reason="http://b.test/p1/: comments by script (<div id=talk>)")
    page = render_html(summarise(INFO, blog, RECORDS, []))
    assert "rendered by a browser</td><td>post pages: http://b.test/p1/: comments by script (&lt;div id=talk&gt;)" in page
    served = summarise(INFO, dict(BLOG, js=False, js_reason="--js never"), RECORDS, [])
    assert served["rendering"] == {"decision": False, "pages": "no page", "reason": "--js never"}
    assert summarise(INFO, BLOG, RECORDS, [])["rendering"] is None  # a crawl that never decided
    assert "rendered by a browser" not in render_html(summarise(INFO, BLOG, RECORDS, []))


def test_bar_chart_marks_empty_months():
    svg = bar_chart({"2012-01": 3, "2012-02": 0, "2012-03": 1}, "t")
    assert svg.count("class='gap'") == 1 and svg.count("class='bar'") == 2


@pytest.mark.browser
@pytest.mark.skipif(not shutil.which("chromedriver") and not shutil.which("chromium"), reason="no Chromium")
def test_report_page_reads_in_chromium_without_console_errors(tmp_path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    path = tmp_path / "report.html"
    path.write_text(render_html(summarise(INFO, BLOG, RECORDS, ERRORS, {"archive widget": 12})), encoding="utf-8")
    o = webdriver.ChromeOptions()
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage"):
        o.add_argument(a)
    o.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    o.binary_location = "/usr/bin/chromium"
    d = webdriver.Chrome(options=o, service=Service("/usr/bin/chromedriver"))
    try:
        d.get(path.as_uri())
        text = d.find_element("tag name", "body").text
        assert "Crawl of http://b.test/" in text
        assert "announced by archive widget" in text and "3 missing" in text
        assert "3 comments on 1 of 9 posts" in text
        assert d.execute_script("return document.querySelectorAll('svg rect').length") >= 5
        assert [e for e in d.get_log("browser") if e["level"] == "SEVERE"] == []
    finally:
        d.quit()
