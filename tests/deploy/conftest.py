"""deploy/validate_manifests.py (not a package: loaded from its file) and fresh renderings."""
from __future__ import annotations

import copy
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def vm():
    spec = importlib.util.spec_from_file_location("validate_manifests", ROOT / "deploy" / "validate_manifests.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def _rendered(vm):
    return {"k8s": vm.render_kustomization(), "k8s+hpa": vm.render_kustomization(components=[vm.HPA_COMPONENT])}


@pytest.fixture
def docs(_rendered):
    """The base rendering (k8s/), a copy each test may change."""
    return copy.deepcopy(_rendered["k8s"])


def find(docs: list[dict], kind: str, name: str) -> dict:
    return next(d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name)


@pytest.fixture
def broken_copy(tmp_path):
    """`broken_copy(path)(old, new)`: a copy of the file at `path` with `old` replaced by
    `new` once (which must be there), written under tmp_path; returns the copy's path."""
    def of(path):
        def write(old: str, new: str):
            text = path.read_text(encoding="utf-8")
            assert old in text
            out = tmp_path / path.name
            out.write_text(text.replace(old, new, 1), encoding="utf-8")
            return out
        return write
    return of
