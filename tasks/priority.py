"""Download priority: how many post links will the page at a URL hold? (paper, 4.3)

A distance-weighted k-nearest-neighbour regression (scikit-learn) over URL features
(tasks.urls.url_features) of the pages already fetched, each labelled with L(u), the
number of post links found on it. Unfitted, it answers a neutral prior so that the
traversal starts as breadth-first and sharpens as samples arrive.
"""
from __future__ import annotations

import numpy as np
from sklearn.neighbors import KNeighborsRegressor

from tasks.urls import url_features

PRIOR = 1.0  # the estimate before any sample: every page equally worth a visit


class LinkEstimator:
    def __init__(self, k: int = 5):
        self.k = k
        self.model = None

    def fit(self, samples) -> "LinkEstimator":
        """samples: [(url, post links on that page), ...]."""
        rows = [(u, float(n)) for u, n in samples if u]
        if not rows:
            self.model = None
            return self
        X = np.array([url_features(u) for u, _ in rows], dtype=float)
        y = np.array([n for _, n in rows], dtype=float)
        self.model = KNeighborsRegressor(n_neighbors=min(self.k, len(rows)), weights="distance")
        self.model.fit(X, y)
        return self

    def predict(self, urls) -> list[float]:
        urls = list(urls)
        if not urls:
            return []
        if self.model is None:
            return [PRIOR] * len(urls)
        X = np.array([url_features(u) for u in urls], dtype=float)
        # priorities stay below POST_PRIORITY (tasks.traversal), non-negative
        return [float(max(0.0, v)) for v in self.model.predict(X)]
