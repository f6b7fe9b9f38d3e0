"""Maximum weight bipartite matching (the assignment problem) in numpy.

The comment rule's score matches page nodes to feed comments (tasks/extract/comments.py).
scipy.optimize.linear_sum_assignment does it, but importing SciPy's optimize package
grew a worker by about 35 MB the first time a crawl learned a comment rule; this is the
Hungarian algorithm with potentials (shortest augmenting paths, O(n^2 m) for n <= m),
its inner loop over columns in numpy. Same optimum as SciPy's (tests hold it to it);
among equal optima it may pick other pairs.
"""
from __future__ import annotations

import numpy as np


def max_weight_assignment(w) -> tuple[list[int], list[int]]:
    """Rows and columns of a matching of maximum total weight of the matrix `w` (every row
    matched when rows <= columns, else every column), sorted by row, as SciPy returns them."""
    w = np.asarray(w, dtype=float)
    if w.size == 0:
        return [], []
    flip = w.shape[0] > w.shape[1]
    cost = -(w.T if flip else w)  # minimise the negated weights, rows <= columns
    n, m = cost.shape
    u, v = np.zeros(n + 1), np.zeros(m + 1)
    p = np.zeros(m + 1, dtype=int)  # p[j]: the row (1-based) matched to column j; column 0 is free
    way = np.zeros(m + 1, dtype=int)
    a = np.zeros((n + 1, m + 1))
    a[1:, 1:] = cost
    for i in range(1, n + 1):
        p[0], j0 = i, 0
        minv = np.full(m + 1, np.inf)
        used = np.zeros(m + 1, dtype=bool)
        while True:
            used[j0] = True
            i0 = p[j0]
            free = ~used
            free[0] = False
            cur = a[i0] - u[i0] - v
            better = free & (cur < minv)
            minv[better] = cur[better]
            way[better] = j0
            masked = np.where(free, minv, np.inf)
            j1 = int(np.argmin(masked))
            delta = masked[j1]
            u[p[used]] += delta
            v[used] -= delta
            minv[free] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
    pairs = sorted((int(p[j]) - 1, j - 1) for j in range(1, m + 1) if p[j])
    if flip:
        pairs = sorted((c, r) for r, c in pairs)
    return [r for r, _ in pairs], [c for _, c in pairs]
