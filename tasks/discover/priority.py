"""Download priority: how many post links will the page at a URL hold? (paper, 4.3)

A distance-weighted k-nearest-neighbour regression over URL features
(tasks.discover.urls.url_features) of the pages already fetched, each labelled with L(u), the
number of post links found on it. Unfitted, it answers a neutral prior so that the
traversal starts as breadth-first and sharpens as samples arrive.

The regression is scikit-learn's KNeighborsRegressor(weights="distance") written out in
numpy (brute force: a blog has at most a few thousand samples, a page a few hundred
links): the same estimates (tests/tasks/discover/test_priority.py holds them to
scikit-learn's), without importing scikit-learn and SciPy into every worker, which cost
a worker about 70 MB and seconds of start-up.
"""
from __future__ import annotations

import functools
import re
from urllib.parse import urlsplit

import numpy as np

from tasks.discover.urls import url_features

PRIOR = 1.0  # the estimate before any sample: every page equally worth a visit


@functools.lru_cache(maxsize=8192)
def url_template(url: str) -> str:
    """The shape of a URL: numbers as #, word-like segments as *, query keys kept.
    "/blog/page/3/" and "/blog/page/4/" share one; "/wiki/Slow_River_57" another."""
    try:
        p = urlsplit(url)
    except ValueError:
        return ""
    segs = []
    for seg in (p.path or "/").split("/"):
        if not seg:
            continue
        if re.fullmatch(r"\d+", seg):
            segs.append("#")
        elif re.search(r"[\W_\d]", seg) or len(seg) > 24:
            segs.append("*")
        else:
            segs.append(seg.lower())
    keys = sorted({kv.split("=", 1)[0].lower() for kv in p.query.split("&") if kv})
    return "/".join(segs) + ("?" + "&".join(keys) if keys else "")


class DistanceKNN:
    """k nearest neighbours (Euclidean), each weighing 1/distance; a query that sits on
    samples takes their mean (scikit-learn's weights="distance"). Which of several samples
    tied at the k-th distance counts is left open, as in scikit-learn."""

    def __init__(self, k: int):
        self.k = k

    def fit(self, X: np.ndarray, y: np.ndarray) -> "DistanceKNN":
        self.X, self.y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
        self.sq = np.einsum("ij,ij->i", self.X, self.X)
        return self

    def predict(self, Q: np.ndarray) -> np.ndarray:
        Q = np.asarray(Q, dtype=float).reshape(-1, self.X.shape[1])
        k = min(self.k, len(self.X))
        # the k nearest by |q|^2 - 2 q.x + |x|^2 (one product, without BLAS threads: workers are threads), then their exact
        # distances, so that a query equal to a sample is at 0 and weighs as scikit-learn's
        approx = np.einsum("ij,ij->i", Q, Q)[:, None] - 2.0 * np.einsum("ij,kj->ik", Q, self.X) + self.sq[None, :]
        idx = np.argpartition(approx, k - 1, axis=1)[:, :k] if k < len(self.X) else \
            np.broadcast_to(np.arange(len(self.X)), approx.shape)
        near = ((self.X[idx] - Q[:, None, :]) ** 2).sum(axis=2)
        dist = np.sqrt(near)
        with np.errstate(divide="ignore"):
            w = 1.0 / dist
        on = np.isinf(w)
        rows = on.any(axis=1)
        w[rows] = on[rows]
        return (w * self.y[idx]).sum(axis=1) / w.sum(axis=1)


class LinkEstimator:
    """kNN estimate of post links, plus an exploration bonus for URL shapes never sampled:
    a kind of page the crawl has not looked at yet (the blog's own archive pages inside a
    big forum) is worth one visit before the estimate, learned from other kinds, rules it out."""

    def __init__(self, k: int = 5):
        self.k = k
        self.model = None
        self.templates: set[str] = set()
        self.bonus = PRIOR

    def fit(self, samples) -> "LinkEstimator":
        """samples: [(url, post links on that page), ...]."""
        rows = [(u, float(n)) for u, n in samples if u]
        if not rows:
            self.model = None
            return self
        X = np.array([url_features(u) for u, _ in rows], dtype=float)
        y = np.array([n for _, n in rows], dtype=float)
        self.templates = {url_template(u) for u, _ in rows}
        self.bonus = max(PRIOR, float(y.max()) / 2)
        self.model = DistanceKNN(min(self.k, len(rows))).fit(X, y)
        return self

    def predict(self, urls) -> list[float]:
        urls = list(urls)
        if not urls:
            return []
        if self.model is None:
            return [PRIOR] * len(urls)
        X = np.array([url_features(u) for u in urls], dtype=float)
        # priorities stay below POST_PRIORITY (tasks.discover.traversal), non-negative
        return [float(max(0.0, v)) + (0.0 if url_template(u) in self.templates else self.bonus)
                for u, v in zip(urls, self.model.predict(X))]
