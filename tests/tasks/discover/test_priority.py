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


def _sklearn_knn(k):
    neighbors = pytest.importorskip("sklearn.neighbors")
    return neighbors.KNeighborsRegressor(n_neighbors=k, weights="distance", algorithm="kd_tree")


@pytest.mark.parametrize("n,k", [(1, 5), (3, 5), (40, 5), (400, 5), (400, 1)])
def test_numpy_knn_gives_scikit_learns_estimates(n, k):
    """DistanceKNN is KNeighborsRegressor(weights="distance") without scikit-learn:
    the same numbers on samples without equal distances, and on queries sitting on samples."""
    import numpy as np

    from tasks.discover.priority import DistanceKNN

    rng = np.random.default_rng(n * 10 + k)
    X, y = rng.normal(size=(n, 6)), rng.integers(0, 30, size=n).astype(float)
    Q = np.vstack([rng.normal(size=(50, 6)), X[: min(n, 5)]])  # some queries are samples
    ours = DistanceKNN(min(k, n)).fit(X, y).predict(Q)
    theirs = _sklearn_knn(min(k, n)).fit(X, y).predict(Q)
    assert np.allclose(ours, theirs, rtol=1e-9, atol=1e-9)


def test_url_estimates_match_scikit_learn_on_a_crawls_samples():
    """On URL features (many equal distances) the estimates of a real sample set agree
    with scikit-learn's wherever the k nearest are not tied at the k-th distance."""
    import numpy as np

    from tasks.discover.priority import DistanceKNN
    from tasks.discover.urls import url_features

    urls = ([f"http://b.test/page/{n}/" for n in range(2, 30)] + [f"http://b.test/{y}/{m:02d}/" for y in (2013, 2014)
            for m in range(1, 13)] + [f"http://b.test/tag/{w}/" for w in ("red", "green", "blue-sky", "x1")])
    X = np.array([url_features(u) for u in urls], dtype=float)
    y = np.arange(len(urls), dtype=float) % 11
    queries = ["http://b.test/page/31/", "http://b.test/2015/02/", "http://b.test/tag/yellow/", "http://b.test/"]
    Q = np.array([url_features(u) for u in queries], dtype=float)
    ours = DistanceKNN(5).fit(X, y).predict(Q)
    theirs = _sklearn_knn(5).fit(X, y).predict(Q)
    d = np.sort(np.linalg.norm(Q[:, None, :] - X[None, :, :], axis=2), axis=1)
    untied = d[:, 4] < d[:, 5] - 1e-12
    assert untied.any()
    assert np.allclose(ours[untied], theirs[untied])


def test_workers_do_not_import_scikit_learn():
    """A worker's modules leave scikit-learn and SciPy out (memory, start-up)."""
    import subprocess
    import sys

    code = ("import sys, workers.crawl; bad = [m for m in ('sklearn', 'scipy', 'selenium', 'dateparser', 'rich') "
            "if m in sys.modules]; print(','.join(bad))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
