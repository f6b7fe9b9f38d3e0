"""The real-blog corpus's fixed subset (issue 29): a regression on real blogs fails the build.

Runs `bench/corpus.py` as a user would (the embedded default `blogharvest crawl`, each blog served
on loopback as its original host) on the blogs of bench/corpus_subset.json and checks each field
against the thresholds there. The corpus is data from public repositories and lives beside the
checkout (../shared/corpus, or $BLOGHARVEST_CORPUS): where it is not there, the test is skipped.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SUBSET = json.loads((ROOT / "bench" / "corpus_subset.json").read_text())


def _corpus() -> Path | None:
    for d in (os.environ.get("BLOGHARVEST_CORPUS"), ROOT.parent / "shared" / "corpus"):
        if d and Path(d).is_dir():
            return Path(d)
    return None


def _present(corpus: Path, name: str) -> bool:
    return (corpus / name / "site").is_dir() or (corpus / f"{name}.tar.xz").is_file()


@pytest.mark.timeout(1500)
def test_corpus_subset_holds_its_scores(tmp_path):
    corpus = _corpus()
    if corpus is None or not all(_present(corpus, b) for b in SUBSET["blogs"]):
        pytest.skip("the real-blog corpus is not beside this checkout (../shared/corpus)")
    out = tmp_path / "scores.json"
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}  # the embedded default, as users run it
    env["BLOGHARVEST_HOME"] = str(tmp_path / "home")
    subprocess.run([sys.executable, str(ROOT / "bench" / "corpus.py"), "--corpus", str(corpus), "--json", str(out),
                    "--timeout", "300", *SUBSET["blogs"]], check=True, env=env, cwd=ROOT, timeout=1400)
    results = {r["blog"]: r["ours"] for r in json.loads(out.read_text())["blogs"]}
    low = [f"{blog} {field}: {results[blog].get(field)} < {floor}"
           for blog, floors in SUBSET["thresholds"].items() for field, floor in floors.items()
           if (results[blog].get(field) or 0) < floor]
    assert not low, "below the corpus thresholds:\n" + "\n".join(low)
