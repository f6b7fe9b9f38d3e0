"""Download priority: distance-weighted kNN over URL features estimates post links per page."""
from __future__ import annotations

import pytest

from tasks.discover.priority import PRIOR, LinkEstimator


def test_unfitted_estimator_answers_the_prior():
    est = LinkEstimator()
    assert est.predict(["http://b.test/a", "http://b.test/b"]) == [PRIOR, PRIOR]
    assert est.predict([]) == []
    assert est.fit([]).predict(["http://b.test/"]) == [PRIOR]


def test_archive_pages_rank_above_posts_and_assets():
    samples = [(f"http://b.test/page/{n}/", 10) for n in range(2, 8)]
    samples += [(f"http://b.test/2014/0{m}/", 8) for m in range(1, 7)]
    samples += [(f"http://b.test/2014/03/0{d}/post-number-{d}/", 0) for d in range(1, 9)]
    samples += [("http://b.test/wp-content/uploads/a.jpg", 0), ("http://b.test/about/", 1)]
    est = LinkEstimator(k=3).fit(samples)
    page, month, post = est.predict(["http://b.test/page/12/", "http://b.test/2015/11/",
                                     "http://b.test/2015/11/09/yet-another-post/"])
    assert page > 5 and month > 5
    assert post < 1
    assert all(v >= 0 for v in est.predict(["http://b.test/x?y=1", "http://other.test/"]))


def test_exact_sample_is_returned_and_few_samples_work():
    est = LinkEstimator(k=5).fit([("http://b.test/archive/", 42), ("http://b.test/2014/03/09/p/", 0)])
    assert est.predict(["http://b.test/archive/"]) == [pytest.approx(42.0)]
