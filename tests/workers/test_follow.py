"""The progress a follower shows: phase, posts against the expected total, an ETA."""
from __future__ import annotations

from workers.follow import eta_seconds, expected_total, progress_line

INFO = {"crawl_id": "c", "state": "running", "phase": "traverse", "posts": 40, "pages": 90, "errors": 1,
        "queued": 12, "announced": {"archive widget": 120, "feed entries": 10},
        "phase_started": {"discover": 0.0, "traverse": 100.0}}


def test_expected_total_is_the_largest_announced_count():
    assert expected_total(INFO) == 120
    assert expected_total(dict(INFO, posts=130)) == 130  # found more than announced: never below
    assert expected_total(dict(INFO, announced={})) is None


def test_eta_follows_the_traversal_rate():
    # 40 posts in 200 s: 80 more take 400 s
    assert eta_seconds(INFO, now=300.0) == 400.0
    assert eta_seconds(dict(INFO, announced={}), now=300.0) is None
    assert eta_seconds(dict(INFO, posts=0), now=300.0) is None


def test_progress_line_names_phase_total_and_eta():
    line = progress_line(INFO, now=300.0)
    assert line.startswith("traverse") and "posts 40/120" in line and "eta 6m40s" in line
    assert "eta" not in progress_line(dict(INFO, announced={}), now=300.0)
