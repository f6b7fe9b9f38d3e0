"""deploy/validate_manifests.py (`vm`, loaded from its file by tests/deploy/checks.py) and
fresh renderings of k8s/ by kustomize; without a kustomize the tests that need one skip."""
from __future__ import annotations

import copy

import pytest

from tests.deploy import checks


@pytest.fixture(scope="session")
def vm():
    return checks.vm


@pytest.fixture(scope="session")
def _rendered(vm):
    if vm.kustomize_command() is None:
        pytest.skip(vm.NO_KUSTOMIZE)
    return {"k8s": vm.render(), "k8s+hpa": vm.render(components=[vm.HPA_COMPONENT])}


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
