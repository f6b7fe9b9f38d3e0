"""deploy/compose.yaml: valid against the Compose schema kept in deploy/, every variable has a
default, Redis with AOF on a volume and noeviction, workers that stop gracefully."""
from __future__ import annotations

import pytest

from tests.deploy import checks


@pytest.fixture
def broken(vm, broken_copy):
    return broken_copy(vm.COMPOSE_FILE)


def test_compose_passes(vm):
    assert checks.check_compose() == []


def test_services_of_the_issue(vm):
    c = vm.interpolate_defaults(vm.load_compose())
    s = c["services"]
    assert {"redis", "worker", "render-worker", "beat", "flower", "selenium"} <= set(s)
    assert s["selenium"]["image"].startswith("selenium/standalone-chromium:")
    assert s["worker"]["environment"]["REDIS_URL"] == "redis://redis:6379/0"
    assert checks.compose_duration(s["worker"]["stop_grace_period"]) > 300


def test_interpolation_takes_defaults(vm):
    assert vm.interpolate_defaults({"a": ["${X:-redis://r:1/0}", "$$HOME", "${Y:-}"]}) == \
        {"a": ["redis://r:1/0", "$HOME", ""]}


def test_durations(vm):
    assert checks.compose_duration("6m30s") == 390
    assert checks.compose_duration("1h") == 3600
    with pytest.raises(ValueError):
        checks.compose_duration("390")


def test_redis_without_aof_fails(vm, broken):
    errors = checks.check_compose(broken('      - --appendonly\n      - "yes"', '      - --appendonly\n      - "no"'))
    assert errors == ["compose redis: command needs --appendonly yes"]


def test_short_grace_period_fails(vm, broken):
    errors = checks.check_compose(broken("stop_grace_period: 390s", "stop_grace_period: 2m"))
    assert "compose worker: grace period 120.0 s <= soft shutdown 60 s + hard time limit 300 s" in errors


def test_variable_without_default_fails(vm, broken):
    errors = checks.check_compose(broken("${REDIS_URL:-redis://redis:6379/0}", "${REDIS_URL}"))
    assert any("${REDIS_URL} has no default" in e for e in errors)


def test_unknown_key_fails_the_schema(vm, broken):
    errors = checks.check_compose(broken("    shm_size: 2gb", "    shm_sise: 2gb"))
    assert any("shm_sise" in e for e in errors)


def test_the_grid_is_confined_and_guarded(vm, broken):
    """selenium alone on the internal network with the workers, which advertise their proxies."""
    c = vm.interpolate_defaults(vm.load_compose())
    assert c["networks"]["grid"] == {"internal": True} and c["services"]["selenium"]["networks"] == ["grid"]
    assert c["services"]["render-worker"]["environment"]["BLOGHARVEST_PROXY_ADVERTISE"] == "auto"
    assert checks.compose_grid_errors(c) == []
    errors = checks.check_compose(broken("  grid:\n    internal: true", "  grid: {}"))
    assert errors == ["compose selenium: network grid is not internal (the browser would reach more than the proxies)"]
    errors = checks.check_compose(broken("  BLOGHARVEST_PROXY_ADVERTISE: auto\n", "  BLOGHARVEST_UNGUARDED_GRID: \"1\"\n"))
    assert "compose render-worker: SELENIUM_REMOTE_URL without BLOGHARVEST_PROXY_ADVERTISE (the Grid would render " \
           "nothing)" in errors
    assert "compose worker: BLOGHARVEST_UNGUARDED_GRID lets the Grid render unguarded" in errors
    errors = checks.check_compose(broken('    command: ["worker", "--concurrency", "2", "--queues", "render"]\n'
                                         '    networks: [default, grid]\n',
                                         '    command: ["worker", "--concurrency", "2", "--queues", "render"]\n'))
    assert errors == ["compose render-worker: shares no network with selenium (its browser cannot reach the proxy)"]
