"""k8s/: rendered by kustomize, valid against Kubernetes' schemas offline (KEDA's from
k8s/schemas/), and consistent: references, pod security, graceful worker shutdown, scaling
on the queue the workers consume, and a network that keeps crawlers off private ranges.

Every check is shown passing on the real manifests and failing on a broken copy."""
from __future__ import annotations

import pytest

from tests.deploy import checks


def find(docs, kind, name):
    return next(d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name)


def container(doc, name=None):
    cs = doc["spec"]["template"]["spec"]["containers"]
    return next(c for c in cs if name is None or c["name"] == name)


# ------------------------------------------------------------------ rendering

def test_rendering_holds_every_component_of_the_issue(docs):
    kinds = {(d["kind"], d["metadata"]["name"]) for d in docs}
    assert {("Namespace", "blogharvest"), ("ConfigMap", "blogharvest-config"), ("Secret", "blogharvest-redis"),
            ("Deployment", "worker"), ("Deployment", "render-worker"), ("Deployment", "beat"),
            ("Deployment", "flower"), ("Deployment", "selenium"), ("StatefulSet", "redis"),
            ("ScaledObject", "worker"), ("PodDisruptionBudget", "worker"),
            ("NetworkPolicy", "internet-egress")} <= kinds
    assert all(d["metadata"].get("namespace") == "blogharvest" for d in docs if d["kind"] != "Namespace")
    secret = find(docs, "Secret", "blogharvest-redis")
    assert secret["stringData"]["REDIS_URL"].startswith("redis://")


def test_hpa_component_swaps_keda_for_hpas(_rendered):
    kinds = {(d["kind"], d["metadata"]["name"]) for d in _rendered["k8s+hpa"]}
    assert ("HorizontalPodAutoscaler", "worker") in kinds
    assert not any(k in ("ScaledObject", "TriggerAuthentication") for k, _ in kinds)


# ------------------------------------------------------------------ schemas

@pytest.mark.parametrize("variant", ["k8s", "k8s+hpa"])
def test_every_object_is_valid_for_kubernetes_offline(vm, _rendered, variant):
    assert vm.validate_schemas(_rendered[variant]) == []


def test_schema_validation_catches_a_misspelt_field(vm, docs):
    container(find(docs, "Deployment", "worker"))["resource"] = {"limits": {"memory": "1Gi"}}
    errors = vm.validate_schemas([find(docs, "Deployment", "worker")], versions=("1.28",))
    assert errors and "resource" in errors[0]


def test_keda_objects_are_checked_against_the_crd_schema_in_the_repo(vm, docs):
    so = find(docs, "ScaledObject", "worker")
    assert vm.CRD_SCHEMAS[("keda.sh/v1alpha1", "ScaledObject")].is_file()
    so["spec"]["minReplicaCount"] = "two"
    so["spec"]["triggers"][0]["metadata"]["listLength"] = 20  # KEDA wants strings
    errors = vm.validate_schemas([so])
    assert any("minReplicaCount" in e for e in errors) and any("listLength" in e for e in errors)


# ------------------------------------------------------------------ references, security

def test_references_resolve(vm, docs):
    assert checks.check_references(docs) == []
    find(docs, "Secret", "blogharvest-redis")["stringData"].pop("REDIS_PASSWORD")
    find(docs, "Service", "selenium")["spec"]["ports"][0]["targetPort"] = "grid"
    errors = checks.check_references(docs)
    assert any("has no key REDIS_PASSWORD" in e for e in errors)
    assert any("targetPort grid" in e for e in errors)


def test_pods_are_non_root_and_pinned(vm, docs):
    assert checks.check_pod_security(docs) == []
    worker = find(docs, "Deployment", "worker")
    worker["spec"]["template"]["spec"]["securityContext"].pop("runAsNonRoot")
    container(worker)["image"] = "blogharvest:latest"
    errors = checks.check_pod_security(docs)
    assert any("runAsNonRoot" in e for e in errors) and any("not pinned" in e for e in errors)


def test_environment_names_are_ones_the_code_reads(vm, docs):
    assert checks.check_env_names(docs) == []
    find(docs, "ConfigMap", "blogharvest-config")["data"]["BLOGHARVEST_WORKER_SOFT_SHUTDOWM"] = "60"
    assert checks.check_env_names(docs) == ["ConfigMap/blogharvest-config: BLOGHARVEST_WORKER_SOFT_SHUTDOWM "
                                        "is not read by blogharvest"]


# ------------------------------------------------------------------ workers

def test_workers_stop_gracefully_and_scale_on_their_queue(vm, docs):
    assert checks.check_workers(docs) == []


def test_grace_period_must_cover_soft_shutdown_plus_the_hard_time_limit(vm, docs):
    find(docs, "Deployment", "worker")["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] = 330
    errors = checks.check_workers(docs)
    assert errors == ["Deployment/worker[worker]: grace period 330 s <= soft shutdown 60 s + hard time limit 300 s"]


def test_limits_come_from_workers_settings(vm, docs):
    """Raise the hard limit through the ConfigMap: workers/settings.py reads it, so must the check."""
    find(docs, "ConfigMap", "blogharvest-config")["data"]["BLOGHARVEST_HARD_TIME_LIMIT"] = "600"
    errors = checks.check_workers(docs)
    assert any("hard time limit 600 s" in e for e in errors)
    find(docs, "ConfigMap", "blogharvest-config")["data"]["BLOGHARVEST_HARD_TIME_LIMIT"] = "100"
    errors = checks.check_workers(docs)
    assert any("soft time limit 240 >= hard time limit 100" in e for e in errors)
    assert any("visibility timeout 260 s" in e for e in errors)


def test_scaled_object_must_watch_the_queue_the_worker_consumes(vm, docs):
    find(docs, "ScaledObject", "worker")["spec"]["triggers"][0]["metadata"]["listName"] = "crawl"
    assert any("watches list crawl" in e for e in checks.check_workers(docs))


def test_redis_keeps_an_append_only_file_on_a_volume(vm, docs):
    redis = find(docs, "StatefulSet", "redis")
    c = container(redis)
    c["args"] = [c["args"][0].replace("--appendonly yes", "--appendonly no")]
    assert any("--appendonly yes" in e for e in checks.check_workers(docs))


# ------------------------------------------------------------------ network

def test_network_policy_passes(vm, docs):
    assert checks.check_network(docs) == []


@pytest.mark.parametrize("cidr", ["10.0.0.0/8", "169.254.169.254/32", "100.64.0.0/10"])
def test_crawlers_cannot_reach_private_or_metadata_addresses(vm, docs, cidr):
    np = find(docs, "NetworkPolicy", "internet-egress")
    np["spec"]["egress"][0]["to"][0]["ipBlock"]["except"].remove(
        {"10.0.0.0/8": "10.0.0.0/8", "169.254.169.254/32": "169.254.0.0/16", "100.64.0.0/10": "100.64.0.0/10"}[cidr])
    errors = checks.check_network(docs)
    assert any("forbidden range" in e and "Deployment/worker" in e for e in errors)


def test_every_worker_reaches_selenium_and_redis(vm, docs):
    labels = find(docs, "Deployment", "worker")["spec"]["template"]["metadata"]["labels"]
    labels.pop("blogharvest/selenium-client")
    labels.pop("blogharvest/redis-client")
    errors = checks.check_network(docs)
    assert "Deployment/worker: cannot reach Selenium" in errors
    assert "Deployment/worker: cannot reach Redis" in errors


def test_browser_and_flower_stay_away_from_what_they_do_not_need(vm, docs):
    find(docs, "Deployment", "selenium")["spec"]["template"]["metadata"]["labels"]["blogharvest/redis-client"] = "true"
    find(docs, "Deployment", "flower")["spec"]["template"]["metadata"]["labels"]["blogharvest/selenium-client"] = "true"
    errors = checks.check_network(docs)
    assert "the Selenium browser (it runs blogs' JavaScript) may reach Redis" in errors
    assert "Deployment/flower: may reach Selenium" in errors


def test_ingress_is_checked_too(vm, docs):
    """Egress alone is not enough: Redis's own ingress policy must admit the workers."""
    find(docs, "NetworkPolicy", "redis-ingress")["spec"]["ingress"][0]["from"][0]["podSelector"] = {
        "matchLabels": {"app.kubernetes.io/component": "beat"}}
    errors = checks.check_network(docs)
    assert "Deployment/worker: cannot reach Redis" in errors
    assert "Deployment/beat: cannot reach Redis" not in errors


def test_the_grid_renders_only_through_the_workers_guarding_proxies(vm, docs):
    """Every worker driving the Grid tells it where its proxy is (the pod IP, downward API),
    the Selenium pods reach that proxy's ports and nothing else (no internet of their own)."""
    env = {e["name"]: e for e in container(find(docs, "Deployment", "render-worker"))["env"]}
    assert env["BLOGHARVEST_PROXY_ADVERTISE"]["valueFrom"]["fieldRef"]["fieldPath"] == "status.podIP"
    assert find(docs, "Service", "selenium")["spec"]["clusterIP"] == "None"  # resolves to the pods' own IPs
    assert checks.grid_errors(docs) == []

    render = container(find(docs, "Deployment", "render-worker"))
    render["env"] = [e for e in render["env"] if e["name"] != "BLOGHARVEST_PROXY_ADVERTISE"]
    find(docs, "Deployment", "selenium")["spec"]["template"]["metadata"]["labels"]["blogharvest/egress-internet"] = "true"
    config = find(docs, "ConfigMap", "blogharvest-config")["data"]
    config["BLOGHARVEST_PROXY_PORTS"] = "9300-9400"
    config["BLOGHARVEST_UNGUARDED_GRID"] = "1"
    docs.remove(find(docs, "NetworkPolicy", "grid-proxy-ingress"))
    errors = checks.check_network(docs)
    assert "Deployment/render-worker[render-worker]: SELENIUM_REMOTE_URL without BLOGHARVEST_PROXY_ADVERTISE " \
           "(the Grid would render nothing)" in errors
    assert "Deployment/selenium: the Selenium browser has internet egress of its own" in errors
    assert "Deployment/worker[worker]: BLOGHARVEST_UNGUARDED_GRID lets the Grid render unguarded" in errors
    assert "Deployment/worker[worker]: the Selenium browser cannot reach its proxy on port 9300" in errors


def test_the_proxy_port_range_must_be_open_end_to_end(vm, docs):
    find(docs, "ConfigMap", "blogharvest-config")["data"]["BLOGHARVEST_PROXY_PORTS"] = "9300-9400"
    errors = checks.check_network(docs)
    assert "Deployment/worker[worker]: the Selenium browser cannot reach its proxy on port 9400" in errors
    assert not any("port 9300" in e for e in errors)
    find(docs, "ConfigMap", "blogharvest-config")["data"].pop("BLOGHARVEST_PROXY_PORTS")
    assert any("BLOGHARVEST_PROXY_PORTS must name" in e for e in checks.check_network(docs))
