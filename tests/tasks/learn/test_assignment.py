"""Maximum weight assignment in numpy: the optimum of SciPy's linear_sum_assignment."""
from __future__ import annotations

import numpy as np
import pytest

from tasks.learn.assignment import max_weight_assignment


@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (5, 2), (2, 7), (12, 40), (40, 12), (30, 30)])
@pytest.mark.parametrize("seed", range(4))
def test_same_optimum_as_scipy(shape, seed):
    optimize = pytest.importorskip("scipy.optimize")
    rng = np.random.default_rng(seed)
    w = rng.random(shape)
    w[rng.random(shape) < 0.4] = 0.0  # dice weights below the bound are 0: many ties
    rows, cols = max_weight_assignment(w)
    r2, c2 = optimize.linear_sum_assignment(w, maximize=True)
    assert len(rows) == len(r2) == min(shape)
    assert len(set(rows)) == len(rows) and len(set(cols)) == len(cols)
    assert w[rows, cols].sum() == pytest.approx(w[r2, c2].sum(), abs=1e-9)


def test_identity_and_empty():
    assert max_weight_assignment(np.eye(4)) == ([0, 1, 2, 3], [0, 1, 2, 3])
    assert max_weight_assignment(np.zeros((0, 3))) == ([], [])
    assert max_weight_assignment([[0.1, 0.9], [0.8, 0.2]]) == ([0, 1], [1, 0])


def test_comment_matching_leaves_scipy_out():
    """Matching comments loads no SciPy (a worker's memory)."""
    import subprocess
    import sys

    code = ("import sys; from tasks.extract.comments import match_comments; "
            "s, pairs = match_comments(['great post, thanks', 'spam'], ['Great post, thanks!']); "
            "assert s > 0.8 and pairs[0][:2] == (0, 0), (s, pairs); print('scipy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
