"""deploy/Dockerfile, parsed (no container engine here): a pinned slim base, non-root
stages, a HEALTHCHECK that runs `blogharvest health`, a Chromium stage for rendering workers."""
from __future__ import annotations

import pytest

from tests.deploy import checks


@pytest.fixture
def broken(vm, broken_copy):
    return broken_copy(vm.DOCKERFILE)


def test_dockerfile_passes(vm):
    assert checks.check_dockerfile() == []


def test_stages(vm):
    st = vm.dockerfile_stages()
    assert st["build"]["image"] == st["runtime"]["image"]
    assert st["runtime"]["image"].startswith("python:3.11.") and "-slim" in st["runtime"]["image"]
    assert st["render"]["parent"] == "runtime"
    assert st["__final__"]["parent"] == "runtime" and "chromium" not in " ".join(st["__final__"]["runs"])
    for name in ("runtime", "render", "__final__"):
        assert st[name]["user"] == "10001:10001"
        assert st[name]["entrypoint"] == ["blogharvest"]
        assert st[name]["healthcheck"] == ["blogharvest", "health"]
    assert st["render"]["cmd"] == ["worker", "--queues", "render"]


def test_continuation_lines_and_comments_are_joined(vm, tmp_path):
    p = tmp_path / "Dockerfile"
    p.write_text("FROM python:3.11.9-slim AS a\n# c\nRUN a \\\n# inside\n  && b\nUSER 1:1\n")
    assert [i["value"] for i in vm.parse_dockerfile(p)] == ["python:3.11.9-slim AS a", "a && b", "1:1"]


@pytest.mark.parametrize("old,new,expected", [
    ("USER 10001:10001\nCMD [\"worker\", \"--queues\", \"render\"]", "CMD [\"worker\", \"--queues\", \"render\"]",
     "Dockerfile stage render: runs as root"),
    ("ARG PYTHON_IMAGE=python:3.11.13-slim-bookworm", "ARG PYTHON_IMAGE=python:3.11-slim",
     "Dockerfile stage build: base python:3.11-slim is not a version-pinned python:3.11.N-slim"),
    ("chromium chromium-driver", "chromium", "Dockerfile render: does not apt-get install chromium-driver"),
    ('  CMD ["blogharvest", "health"]', '  CMD ["curl", "localhost"]',
     "Dockerfile stage runtime: HEALTHCHECK should run blogharvest health"),
    ("COPY workers ./workers", "COPY worker ./workers", "Dockerfile: COPY source worker does not exist"),
])
def test_broken_dockerfiles_fail(vm, broken, old, new, expected):
    assert expected in checks.check_dockerfile(broken(old, new))


def test_digest_pin_is_accepted(vm, broken):
    digest = "python:3.11.13-slim-bookworm@sha256:" + "0" * 64
    assert checks.check_dockerfile(broken("python:3.11.13-slim-bookworm", digest)) == []


def test_build_context_keeps_what_the_image_copies(vm):
    """deploy/Dockerfile.dockerignore (BuildKit) excludes everything but what COPY needs."""
    ignore = (vm.REPO / "deploy" / "Dockerfile.dockerignore").read_text().split()
    assert "**" in ignore
    assert {"!pyproject.toml", "!tasks/", "!workers/"} <= set(ignore)
