"""The project's own checks across the deployment files: what no schema can say.

deploy/validate_manifests.py renders k8s/ with kustomize and validates schemas; these take
its renderings, parsers and collected commands and look across objects and files:
references, pod security, graceful worker shutdown, the network, compose.yaml and the
Dockerfile, and the commands the files run (parsed by blogharvest's, celery's and Flower's
own parsers). Each returns its errors; tests/deploy shows each failing on a broken copy.
"""
from __future__ import annotations

import contextlib
import importlib.util
import io
import ipaddress
import os
import re
import shlex
import sys
import warnings
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[2]


def _load_validator():
    """deploy/validate_manifests.py is a script, not a package: loaded from its file, once."""
    if "validate_manifests" not in sys.modules:
        spec = importlib.util.spec_from_file_location("validate_manifests", ROOT / "deploy" / "validate_manifests.py")
        sys.modules[spec.name] = module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return sys.modules["validate_manifests"]


vm = _load_validator()
name_of, containers, pod_spec, split_image = vm.name_of, vm.containers, vm.pod_spec, vm.split_image
is_blogharvest_image, container_env = vm.is_blogharvest_image, vm.container_env

#: Addresses a crawling pod must never reach: RFC 1918, link-local (cloud metadata at
#: 169.254.169.254), shared CGNAT space; and their IPv6 counterparts.
FORBIDDEN_EGRESS = tuple(map(ipaddress.ip_network, (
    "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "100.64.0.0/10", "fc00::/7", "fe80::/10")))
PROBES = ("startupProbe", "readinessProbe", "livenessProbe")


# ------------------------------------------------------------------------- helpers

def matches(selector: dict, labels: dict) -> bool:
    """A LabelSelector (matchLabels, matchExpressions) against a pod's labels."""
    if not all(labels.get(k) == v for k, v in (selector.get("matchLabels") or {}).items()):
        return False
    ops = {"In": lambda k, vs: labels.get(k) in vs, "NotIn": lambda k, vs: labels.get(k, object()) not in vs,
           "Exists": lambda k, vs: k in labels, "DoesNotExist": lambda k, vs: k not in labels}
    return all(ops[e["operator"]](e["key"], e.get("values") or []) for e in selector.get("matchExpressions") or [])


def templates(docs: list[dict]) -> list[tuple[dict, dict]]:
    """(workload, its pod template's labels) for every object that runs pods."""
    return [(d, ((d["spec"].get("template") or {}).get("metadata") or {}).get("labels") or {})
            for d in docs if d.get("kind") in vm.WORKLOAD_KINDS]


def image_pinned(image: str) -> bool:
    _, tag, digest = split_image(image)
    return bool(digest) or bool(tag and tag != "latest" and re.search(r"\d", tag))


def is_worker(c: dict) -> bool:
    return is_blogharvest_image(c["image"]) and (c.get("args") or [])[:1] == ["worker"]


# ---------------------------------------------------------------------- references

def check_references(docs: list[dict]) -> list[str]:
    """Names that one object uses exist in the rendering: ConfigMaps, Secrets and their
    keys, claims, volumes, named ports, selectors, scale targets, headless Services."""
    objs = {(d["kind"], d["metadata"]["name"]): d for d in docs}
    errors, pods = [], templates(docs)

    def ref(where, kind, r, key=None):
        d = objs.get((kind, r["name"]))
        if r.get("optional"):
            return
        if d is None:
            errors.append(f"{where}: {kind} {r['name']} does not exist")
        elif key is not None and key not in set(d.get("data") or {}) | set(d.get("stringData") or {}):
            errors.append(f"{where}: {kind} {r['name']} has no key {key}")

    for d, labels in pods:
        where, spec = name_of(d), pod_spec(d)
        if not matches(d["spec"].get("selector") or {}, labels):
            errors.append(f"{where}: selector does not match its pod template labels")
        volumes = {v["name"]: v for v in spec.get("volumes") or []}
        volumes |= {t["metadata"]["name"]: t for t in d["spec"].get("volumeClaimTemplates") or []}
        for v in volumes.values():
            claim = (v.get("persistentVolumeClaim") or {}).get("claimName")
            if claim and ("PersistentVolumeClaim", claim) not in objs:
                errors.append(f"{where}: PersistentVolumeClaim {claim} does not exist")
        for c in containers(d):
            cw, ports = f"{where}[{c['name']}]", {p.get("name") for p in c.get("ports") or []}
            for field, kind in (("configMapRef", "ConfigMap"), ("secretRef", "Secret")):
                for ef in c.get("envFrom") or []:
                    if field in ef:
                        ref(cw, kind, ef[field])
            for field, kind in (("configMapKeyRef", "ConfigMap"), ("secretKeyRef", "Secret")):
                for e in c.get("env") or []:
                    if field in (e.get("valueFrom") or {}):
                        ref(cw, kind, e["valueFrom"][field], e["valueFrom"][field]["key"])
            errors += [f"{cw}: volumeMount {m['name']} has no volume"
                       for m in c.get("volumeMounts") or [] if m["name"] not in volumes]
            for probe in PROBES:
                for h in ("httpGet", "tcpSocket"):
                    port = ((c.get(probe) or {}).get(h) or {}).get("port")
                    if isinstance(port, str) and port not in ports:
                        errors.append(f"{cw}: {probe} port {port} is not a named container port")
        headless = objs.get(("Service", d["spec"].get("serviceName")), {"spec": {}})["spec"].get("clusterIP") == "None"
        if d["kind"] == "StatefulSet" and not headless:
            errors.append(f"{where}: serviceName must name a headless Service")
    for d in docs:
        kind, spec, where = d["kind"], d.get("spec") or {}, name_of(d)
        if kind == "Service":
            sel = spec.get("selector") or {}
            matched = [w for w, labels in pods if sel and all(labels.get(k) == v for k, v in sel.items())]
            if not matched:
                errors.append(f"{where}: selector matches no pod template")
            names = {p.get("name") for w in matched for c in containers(w) for p in c.get("ports") or []}
            errors += [f"{where}: targetPort {p['targetPort']} is not a port of its pods"
                       for p in spec.get("ports") or [] if isinstance(p.get("targetPort"), str)
                       and p["targetPort"] not in names]
        elif kind in ("PodDisruptionBudget", "NetworkPolicy"):
            sel = spec["selector" if kind == "PodDisruptionBudget" else "podSelector"]
            if sel and not any(matches(sel, labels) for _, labels in pods):
                errors.append(f"{where}: selector matches no pod template")
        elif kind in ("ScaledObject", "HorizontalPodAutoscaler"):
            target = spec["scaleTargetRef"]
            if (target.get("kind", "Deployment"), target["name"]) not in objs:
                errors.append(f"{where}: scale target {target.get('kind')}/{target['name']} does not exist")
            for t in spec.get("triggers") or []:
                auth = (t.get("authenticationRef") or {}).get("name")
                if auth and ("TriggerAuthentication", auth) not in objs:
                    errors.append(f"{where}: TriggerAuthentication {auth} does not exist")
        elif kind == "TriggerAuthentication":
            for r in spec.get("secretTargetRef") or []:
                ref(where, "Secret", r, r["key"])
    return errors


# ------------------------------------------------------------------------ security

def check_pod_security(docs: list[dict]) -> list[str]:
    """Every pod meets Pod Security "restricted"; blogharvest containers also run with a
    read-only root file system and a writable /tmp; every image is pinned; resources set;
    the private-address guard is never switched off on a cluster."""
    errors = [f"{name_of(d)}: BLOGHARVEST_ALLOW_PRIVATE must not be set on a cluster"
              for d in docs if d["kind"] == "ConfigMap" and "BLOGHARVEST_ALLOW_PRIVATE" in (d.get("data") or {})]
    for d, _ in templates(docs):
        spec, where = pod_spec(d), name_of(d)
        psc = spec.get("securityContext") or {}
        if spec.get("automountServiceAccountToken") is not False:
            errors.append(f"{where}: automountServiceAccountToken should be false (no API access needed)")
        if spec.get("enableServiceLinks") is not False:
            errors.append(f"{where}: enableServiceLinks should be false (FLOWER_PORT/REDIS_PORT-style env)")
        if (psc.get("seccompProfile") or {}).get("type") != "RuntimeDefault":
            errors.append(f"{where}: pod seccompProfile must be RuntimeDefault")
        tmp_volumes = {v["name"] for v in spec.get("volumes") or [] if "emptyDir" in v}
        for c in containers(d):
            cw, sc, res = f"{where}[{c['name']}]", c.get("securityContext") or {}, c.get("resources") or {}
            errors += [f"{cw}: {msg}" for bad, msg in (
                (not sc.get("runAsNonRoot", psc.get("runAsNonRoot")), "runAsNonRoot must be true"),
                (sc.get("runAsUser", psc.get("runAsUser")) == 0, "runs as uid 0"),
                (sc.get("allowPrivilegeEscalation") is not False, "allowPrivilegeEscalation must be false"),
                ("ALL" not in ((sc.get("capabilities") or {}).get("drop") or []), "capabilities must drop ALL"),
                (not image_pinned(c["image"]), f"image {c['image']} is not pinned to a version"),
                (any(e["name"] == "BLOGHARVEST_ALLOW_PRIVATE" for e in c.get("env") or []),
                 "BLOGHARVEST_ALLOW_PRIVATE must not be set on a cluster"),
            ) if bad]
            errors += [f"{cw}: resources.{a}.{b} missing" for a, b in
                       (("requests", "cpu"), ("requests", "memory"), ("limits", "memory")) if b not in res.get(a, {})]
            if is_blogharvest_image(c["image"]):
                if sc.get("readOnlyRootFilesystem") is not True:
                    errors.append(f"{cw}: readOnlyRootFilesystem must be true")
                if not any(m["mountPath"] == "/tmp" and m["name"] in tmp_volumes for m in c.get("volumeMounts") or []):
                    errors.append(f"{cw}: /tmp must be an emptyDir mount")
    return errors


# ------------------------------------------------------------------------- workers

def shutdown_errors(where: str, env: dict, grace: float) -> list[str]:
    """A worker told to stop gets to finish: the grace period exceeds the soft shutdown plus
    the longest task (its hard time limit, as workers/settings.py reads it from this
    environment), and the broker's visibility timeout exceeds the grace period (or a
    draining worker's task would be handed to a second worker)."""
    from workers.settings import Settings

    soft = env.get("BLOGHARVEST_WORKER_SOFT_SHUTDOWN")
    if soft is None:
        return [f"{where}: BLOGHARVEST_WORKER_SOFT_SHUTDOWN not set"]
    with mock.patch.dict(os.environ, {k: str(v) for k, v in env.items() if v is not None}):
        s = Settings()
    return [f"{where}: {msg}" for bad, msg in (
        (s.soft_time_limit >= s.hard_time_limit, f"soft time limit {s.soft_time_limit} >= hard time limit "
                                                 f"{s.hard_time_limit}"),
        (grace <= float(soft) + s.hard_time_limit, f"grace period {grace} s <= soft shutdown {soft} s + hard "
                                                   f"time limit {s.hard_time_limit} s"),
        (grace >= s.visibility_timeout, f"grace period {grace} s >= visibility timeout {s.visibility_timeout} s"),
    ) if bad]


def check_workers(docs: list[dict]) -> list[str]:
    """Worker pods stop gracefully, probe with `blogharvest health --worker`, and are
    autoscaled on the queues they consume; Redis keeps an append-only file on a volume."""
    errors, workers = [], {}
    for d, _ in templates(docs):
        for c in filter(is_worker, containers(d)):
            argv, where = c["args"], f"{name_of(d)}[{c['name']}]"
            queues = argv[argv.index("--queues") + 1] if "--queues" in argv else "celery"
            workers[d["metadata"]["name"]] = queues.split(",")
            grace = pod_spec(d).get("terminationGracePeriodSeconds", 30)
            errors += shutdown_errors(where, container_env(docs, c), grace)
            errors += [f"{where}: {probe} must run `blogharvest health --worker`" for probe in PROBES[1:]
                       if (((c.get(probe) or {}).get("exec") or {}).get("command") or [])[:3]
                       != ["blogharvest", "health", "--worker"]]
    scaled, hpas = {}, {d["spec"]["scaleTargetRef"]["name"] for d in docs if d["kind"] == "HorizontalPodAutoscaler"}
    for so in (d for d in docs if d["kind"] == "ScaledObject"):  # scaled on a Redis list, that is
        for t in (t for t in so["spec"]["triggers"] if t["type"] in ("redis", "redis-cluster")):
            scaled.setdefault(so["spec"]["scaleTargetRef"]["name"], []).append(t["metadata"].get("listName"))
    if not workers:
        errors.append("no worker Deployment found")
    for name, queues in workers.items():
        errors += [f"ScaledObject for {name} watches list {q} but the worker consumes {queues}"
                   for q in scaled.get(name, []) if q not in queues]
        if name in scaled and name in hpas:
            errors.append(f"{name} has both a ScaledObject and an HPA")
        elif name not in scaled and name not in hpas:
            errors.append(f"worker {name} is not autoscaled")
    if not hpas and "celery" not in {q for qs in scaled.values() for q in qs}:
        errors.append("no ScaledObject watches the Redis list of queue 'celery'")
    for d in (d for d in docs if d["kind"] == "StatefulSet"):
        claims = {t["metadata"]["name"] for t in d["spec"].get("volumeClaimTemplates") or []}
        for c in (c for c in containers(d) if split_image(c["image"])[0].rsplit("/", 1)[-1] == "redis"):
            line = " ".join((c.get("command") or []) + (c.get("args") or []))
            errors += [f"{name_of(d)}: redis-server needs {flag}"
                       for flag in ("--appendonly yes", "--maxmemory-policy noeviction") if flag not in line]
            if not any(m["mountPath"] == "/data" and m["name"] in claims for m in c.get("volumeMounts") or []):
                errors.append(f"{name_of(d)}: /data must be on a volumeClaimTemplate")
    return errors


# ------------------------------------------------------------------------- network

def _policies(docs: list[dict], labels: dict, direction: str) -> list[dict]:
    return [d for d in docs if d["kind"] == "NetworkPolicy" and direction in (d["spec"].get("policyTypes") or [])
            and matches(d["spec"]["podSelector"], labels)]


def _block_leaks(block: dict) -> list[str]:
    """Forbidden ranges an ipBlock (cidr minus except) still covers."""
    if not block:
        return []
    cidr, leaks = ipaddress.ip_network(block["cidr"]), []
    for bad in (b for b in FORBIDDEN_EGRESS if b.version == cidr.version and b.overlaps(cidr)):
        rest = [bad]
        for hole in map(ipaddress.ip_network, block.get("except") or []):
            rest = [piece for n in rest for piece in (
                [n] if n.version != hole.version or not n.overlaps(hole) else
                [] if n.subnet_of(hole) else list(n.address_exclude(hole)))]
        if any(r.overlaps(cidr) for r in rest):
            leaks.append(f"{bad} via {block['cidr']}")
    return leaks


def reachable_forbidden(docs: list[dict], labels: dict) -> list[str]:
    """Forbidden ranges that the egress rules selecting these pods let them reach."""
    return [leak for p in _policies(docs, labels, "Egress") for r in p["spec"].get("egress") or []
            for peer in r.get("to") or [{}]  # no `to`, or an empty peer: everywhere
            for leak in _block_leaks(peer.get("ipBlock") if peer else {"cidr": "0.0.0.0/0"})]


def _peer_admits(peer: dict, labels: dict, namespace: str | None) -> bool:
    if "ipBlock" in peer:  # pod addresses are private: an ipBlock reaches pods if it keeps one
        return bool(_block_leaks(peer["ipBlock"]))
    ns_sel = peer.get("namespaceSelector")
    if ns_sel and (ns_sel.get("matchLabels") or {}).get("kubernetes.io/metadata.name") != namespace:
        return False
    return matches(peer.get("podSelector") or {}, labels)


def connection_allowed(docs: list[dict], src: dict, dst: dict, port: int) -> bool:
    """Whether the NetworkPolicies let a pod labelled `src` open TCP `port` on a pod labelled
    `dst` (both in the rendering's namespace): the source's egress and the target's ingress."""
    ns = next((d["metadata"].get("namespace") for d in docs if d["kind"] == "NetworkPolicy"), None)
    for labels, other, direction, side in ((src, dst, "Egress", "to"), (dst, src, "Ingress", "from")):
        policies = _policies(docs, labels, direction)
        rules = [r for p in policies for r in p["spec"].get(direction.lower()) or []]
        if policies and not any(
                (not r.get("ports") or any(p.get("port") == port or isinstance(p.get("port"), int)
                                           and p["port"] <= port <= p.get("endPort", p["port"]) for p in r["ports"]))
                and (not r.get(side) or any(_peer_admits(p, other, ns) for p in r[side])) for r in rules):
            return False
    return True


def grid_errors(docs: list[dict]) -> list[str]:
    """The Grid renders only through the guard (tasks/fetch/grid.py): every worker with
    SELENIUM_REMOTE_URL tells the Grid where its proxy is (BLOGHARVEST_PROXY_ADVERTISE) in a
    named port range, is not let render unguarded, and the Selenium pods reach that range
    on it; the Selenium pods reach no internet themselves (everything goes through a proxy)."""
    errors, pods = [], templates(docs)
    selenium = [labels for _, labels in pods if labels.get("app.kubernetes.io/component") == "selenium"]
    for d, labels in pods:
        if labels.get("app.kubernetes.io/component") == "selenium":
            errors += [f"{name_of(d)}: the Selenium browser may reach {leak} (it must go through a worker's proxy)"
                       for leak in reachable_forbidden(docs, labels)]
            if any("ipBlock" in p for pol in _policies(docs, labels, "Egress")
                   for r in pol["spec"].get("egress") or [] for p in r.get("to") or []):
                errors.append(f"{name_of(d)}: the Selenium browser has internet egress of its own")
        for c in (c for c in containers(d) if is_worker(c)):
            env, where = container_env(docs, c), f"{name_of(d)}[{c['name']}]"
            if "SELENIUM_REMOTE_URL" not in env:
                continue
            ports = re.fullmatch(r"(\d+)(?:-(\d+))?", str(env.get("BLOGHARVEST_PROXY_PORTS") or ""))
            errors += [f"{where}: {msg}" for bad, msg in (
                ("BLOGHARVEST_PROXY_ADVERTISE" not in env, "SELENIUM_REMOTE_URL without BLOGHARVEST_PROXY_ADVERTISE "
                                                           "(the Grid would render nothing)"),
                (env.get("BLOGHARVEST_UNGUARDED_GRID") == "1", "BLOGHARVEST_UNGUARDED_GRID lets the Grid render "
                                                               "unguarded"),
                (ports is None, "BLOGHARVEST_PROXY_PORTS must name the proxy's port range for the NetworkPolicy"),
            ) if bad]
            ends = [int(x) for x in ports.groups() if x] if ports else []
            errors += [f"{where}: the Selenium browser cannot reach its proxy on port {port}"
                       for port in ends for s in selenium if not connection_allowed(docs, s, labels, port)]
    return errors


def check_network(docs: list[dict]) -> list[str]:
    """Default deny; crawling pods reach the public internet but no private, CGNAT or
    link-local (metadata) address; whoever has REDIS_URL reaches Redis and nobody else does;
    workers with SELENIUM_REMOTE_URL reach Selenium and nobody else does, and the Selenium
    browser reaches their guarding proxies only (grid_errors); DNS for all."""
    errors = []
    if not any(d["kind"] == "NetworkPolicy" and d["spec"]["podSelector"] == {}
               and {"Ingress", "Egress"} <= set(d["spec"].get("policyTypes") or []) for d in docs):
        errors.append("no default-deny NetworkPolicy (podSelector {} with Ingress and Egress)")
    pods = templates(docs)
    component = lambda labels: labels.get("app.kubernetes.io/component")  # noqa: E731
    redis = [labels for _, labels in pods if component(labels) == "redis"]
    selenium = [labels for _, labels in pods if component(labels) == "selenium"]
    for d, labels in pods:
        where = name_of(d)
        peers = [(p, r) for pol in _policies(docs, labels, "Egress") for r in pol["spec"].get("egress") or []
                 for p in r.get("to") or []]
        errors += [f"{where}: egress reaches forbidden range {leak}" for leak in reachable_forbidden(docs, labels)]
        if not any(p.get("namespaceSelector") and any(pt.get("port") == 53 for pt in r.get("ports") or [])
                   for p, r in peers):
            errors.append(f"{where}: no DNS egress")
        envs = [container_env(docs, c) for c in containers(d)]
        crawls = any(is_worker(c) for c in containers(d))
        if crawls:
            if not any((p.get("ipBlock") or {}).get("cidr") == "0.0.0.0/0" for p, _ in peers):
                errors.append(f"{where}: crawling pod has no internet egress")
        elif any("ipBlock" in p for p, _ in peers) and component(labels) != "selenium":  # see grid_errors
            errors.append(f"{where}: only crawling pods may have ipBlock egress")
        if component(labels) in ("redis", "selenium"):
            continue
        for targets, port, what, needed in (
                (redis, 6379, "Redis", any("REDIS_URL" in e for e in envs)),
                (selenium, 4444, "Selenium", crawls and any("SELENIUM_REMOTE_URL" in e for e in envs))):
            errors += [f"{where}: {'cannot reach' if needed else 'may reach'} {what}"
                       for t in targets if connection_allowed(docs, labels, t, port) != needed]
    if any(connection_allowed(docs, s, t, 6379) for s in selenium for t in redis):
        errors.append("the Selenium browser (it runs blogs' JavaScript) may reach Redis")
    return errors + grid_errors(docs)


# ------------------------------------------------------------------ compose, Dockerfile

def compose_duration(text) -> float:
    """Compose's duration ("390s", "6m30s", "1h", "1m30.5s") in seconds."""
    parts = re.findall(r"(\d+(?:\.\d+)?)(h|ms|m|s|us)", str(text))
    if not parts or "".join(n + u for n, u in parts) != str(text):
        raise ValueError(f"not a compose duration: {text!r}")
    return sum(float(n) * {"h": 3600, "m": 60, "s": 1, "ms": 1e-3, "us": 1e-6}[u] for n, u in parts)


def check_compose(path: Path = vm.COMPOSE_FILE) -> list[str]:
    """compose.yaml: its schema and defaults (the validator's), then what a schema cannot say."""
    errors = vm.validate_compose(path)
    if errors:
        return errors
    c = vm.interpolate_defaults(vm.load_compose(path))
    services, volumes = c["services"], set(c.get("volumes") or {})
    errors += [f"compose: service {need} missing" for need in
               ("redis", "worker", "render-worker", "beat", "flower", "selenium") if need not in services]
    for name, s in services.items():
        env, bh = s.get("environment") or {}, is_blogharvest_image(s["image"])
        errors += [f"compose {name}: {msg}" for bad, msg in (
            (not image_pinned(s["image"]), f"image {s['image']} is not pinned to a version"),
            (bh and "REDIS_URL" not in env, "REDIS_URL not set"),
            (bh and "BLOGHARVEST_ALLOW_PRIVATE" in env, "BLOGHARVEST_ALLOW_PRIVATE must not be set"),
            (bh and s.get("read_only") is not True, "read_only should be true"),
            (bh and "build" in s and not (vm.COMPOSE_FILE.parent / s["build"]["context"]
                                          / s["build"]["dockerfile"]).is_file(), "build.dockerfile not found"),
        ) if bad]
        errors += [f"compose {name}: depends_on unknown service {dep}" for dep in s.get("depends_on") or {}
                   if dep not in services]
        errors += [f"compose {name}: volume {v.split(':', 1)[0]} is not declared" for v in s.get("volumes") or []
                   if not v.startswith((".", "/")) and v.split(":", 1)[0] not in volumes]
        if bh and (s.get("command") or [])[:1] == ["worker"]:
            errors += shutdown_errors(f"compose {name}", dict(env), compose_duration(s.get("stop_grace_period", "10s")))
            if ((s.get("healthcheck") or {}).get("test") or [])[:4] != ["CMD", "blogharvest", "health", "--worker"]:
                errors.append(f"compose {name}: healthcheck must run `blogharvest health --worker`")
    if errors:
        return errors
    redis, flower = services["redis"], services["flower"].get("command") or []
    errors += [f"compose redis: command needs {flag}" for flag in ("--appendonly yes", "--maxmemory-policy noeviction")
               if flag not in " ".join(redis.get("command") or [])]
    if not any(v.endswith(":/data") for v in redis.get("volumes") or []):
        errors.append("compose redis: /data needs a volume")
    if (services["worker"].get("deploy") or {}).get("replicas") != 2:
        errors.append("compose worker: deploy.replicas should be 2")
    if flower[:1] != ["celery"] or "flower" not in flower or not any(a.startswith("--broker=redis") for a in flower):
        errors.append("compose flower: command should be `celery --broker=$REDIS_URL flower`")
    if services["render-worker"]["build"].get("target") != "render":
        errors.append("compose render-worker: build target should be render")
    return errors + compose_grid_errors(c)


def compose_grid_errors(c: dict) -> list[str]:
    """The Grid renders only through the guard: the selenium service is on internal networks
    only (no internet, no Redis), every worker driving it tells it where its proxy is
    (BLOGHARVEST_PROXY_ADVERTISE), is not let render unguarded, and shares a network with it."""
    services, networks = c["services"], c.get("networks") or {}
    on = lambda s: set(s.get("networks") or ["default"])  # noqa: E731  (no networks: the default one)
    grid = on(services["selenium"])
    errors = [f"compose selenium: network {n} is not internal (the browser would reach more than the proxies)"
              for n in sorted(grid) if not (networks.get(n) or {}).get("internal")]
    for name, s in services.items():
        env = s.get("environment") or {}
        if not (is_blogharvest_image(s["image"]) and (s.get("command") or [])[:1] == ["worker"]
                and "SELENIUM_REMOTE_URL" in env):
            continue
        errors += [f"compose {name}: {msg}" for bad, msg in (
            (not env.get("BLOGHARVEST_PROXY_ADVERTISE"), "SELENIUM_REMOTE_URL without BLOGHARVEST_PROXY_ADVERTISE "
                                                         "(the Grid would render nothing)"),
            (str(env.get("BLOGHARVEST_UNGUARDED_GRID")) == "1", "BLOGHARVEST_UNGUARDED_GRID lets the Grid render "
                                                               "unguarded"),
            (not on(s) & grid, "shares no network with selenium (its browser cannot reach the proxy)"),
        ) if bad]
    return errors


def check_dockerfile(path: Path = vm.DOCKERFILE) -> list[str]:
    """A version-pinned python:3.11.N-slim base; runtime, render and the default stage run as
    non-root with ENTRYPOINT blogharvest and a `blogharvest health` HEALTHCHECK; render adds
    Chromium and its driver; every COPY source exists."""
    stages, errors = vm.dockerfile_stages(path), []
    errors += [f"Dockerfile stage {name}: base {st['image']} is not a version-pinned python:3.11.N-slim"
               for name, st in stages.items() if st["parent"] is None and name != "__final__" and not
               re.fullmatch(r"python:3\.11\.\d+-slim(-[a-z]+)?(@sha256:[0-9a-f]{64})?", st["image"])]
    for name in ("runtime", "render", "__final__"):
        st = stages.get(name)
        if st is None:
            errors.append(f"Dockerfile: stage {name} missing")
            continue
        errors += [f"Dockerfile stage {name}: {msg}" for bad, msg in (
            (st["user"].split(":")[0] in ("root", "0", ""), "runs as root"),
            (st["entrypoint"] != ["blogharvest"], 'ENTRYPOINT should be ["blogharvest"]'),
            (not (isinstance(st["healthcheck"], list) and st["healthcheck"][:2] == ["blogharvest", "health"]),
             "HEALTHCHECK should run blogharvest health")) if bad]
    render = stages.get("render") or {"parent": "runtime", "runs": []}  # a missing one is reported above
    if render["parent"] != "runtime":
        errors.append("Dockerfile: render should build on runtime")
    errors += [f"Dockerfile render: does not apt-get install {pkg}" for pkg in ("chromium", "chromium-driver")
               if not re.search(rf"apt-get install[^&;]*\s{re.escape(pkg)}(\s|$)", " ".join(render["runs"]))]
    if stages["__final__"] is not stages.get("runtime") and stages["__final__"]["parent"] != "runtime":
        errors.append("Dockerfile: the default (last) stage should be the slim runtime")
    if not re.search(r"pip install (\S+ )*\.(\s|$)", " ".join(r for s in stages.values() for r in s["runs"])):
        errors.append("Dockerfile: no `pip install .`")
    errors += [f"Dockerfile: COPY source {src} does not exist" for st in stages.values() for cp in st["copies"]
               if not cp.startswith("--from") for src in cp.split()[:-1]
               if not src.startswith("--") and "*" not in src and not list(ROOT.glob(src))]
    return list(dict.fromkeys(errors))  # stages inherit their parent's COPYs: each error once


# ----------------------------------------------------------------------- commands

def check_celery_argv(where: str, argv: list[str], env: dict | None = None) -> list[str]:
    """A `celery ...` command line against the installed celery's own (click) parser, and
    Flower's options and FLOWER_* variables when the subcommand is flower."""
    import click
    from celery import Celery
    from celery.app.utils import find_app
    from celery.bin.base import CLIContext
    from celery.bin.celery import celery

    try:
        ctx = celery.make_context("celery", list(argv[1:]))
        # what the `celery` group's callback does before a subcommand parses: load the app
        app = find_app(ctx.params["app"]) if ctx.params.get("app") else Celery(broker=ctx.params.get("broker"))
        ctx.obj = CLIContext(app=app, no_color=True, workdir=None, quiet=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            rest = list(ctx.protected_args) + list(ctx.args)
        sub = celery.get_command(ctx, rest[0]) if rest else None
        if sub is None:
            raise ValueError(f"no celery subcommand {rest[0]!r}" if rest else "no subcommand")
        sub = sub.make_context(rest[0], rest[1:], parent=ctx)
    except (click.ClickException, ValueError) as e:
        return [f"{where}: `{shlex.join(argv)}`: {e}"]
    if rest[0] != "flower":
        return []
    import flower.options  # noqa: F401  (defines Flower's options)
    from tornado.options import Error as OptionError, options

    targv = list(sub.params.get("tornado_argv") or ())
    # tornado prints its help on an unknown option (and Flower's help does not format): names first
    unknown = [a for a in targv if a.startswith("--")
               and a[2:].split("=", 1)[0].replace("_", "-") not in options._options]
    errors = [f"{where}: flower: unknown options {unknown}"] if unknown else []
    if not unknown:
        try:
            options.parse_command_line(["flower"] + targv, final=False)
        except (OptionError, ValueError) as e:
            errors.append(f"{where}: flower: {e}")
    for k, v in ((k, v) for k, v in (env or {}).items() if k.startswith("FLOWER_")):
        opt = options._options.get(k[len("FLOWER_"):].lower().replace("_", "-"))
        if opt is None:
            errors.append(f"{where}: {k} is not a Flower option")
        elif v is not None and opt.type is not bool:
            try:
                opt.type(v)
            except ValueError:
                errors.append(f"{where}: {k}={v!r} is not a valid {opt.type.__name__}")
    return errors


def check_blogharvest_argv(where: str, argv: list[str]) -> list[str]:
    """A `blogharvest ...` argument list against workers/cli.py's parser; for worker and
    beat, also the `celery` command line the CLI then executes."""
    from workers.cli import parser
    from workers.embedded import worker_command

    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            a = parser().parse_args(argv)
    except SystemExit:  # argparse's message is the last line it wrote
        return [f"{where}: `blogharvest {shlex.join(argv)}`: {(err.getvalue().strip().splitlines() or ['?'])[-1]}"]
    extra = [x for x in getattr(a, "extra", None) or [] if x != "--"]
    if a.command == "worker":
        return check_celery_argv(where, ["celery"] + worker_command(a.concurrency, a.hostname, a.pool, a.queues)[3:]
                                 + extra)
    if a.command == "beat":
        return check_celery_argv(where, ["celery", "-A", "workers.app", "beat", "--scheduler",
                                         "redbeat.RedBeatScheduler", "--loglevel", a.loglevel] + extra)
    return []


def check_commands(docs: list[dict]) -> list[str]:
    """Every command the Dockerfile, compose.yaml and k8s/ (`docs`) run is a real command line."""
    return [e for where, argv in vm.blogharvest_commands() for e in check_blogharvest_argv(where, argv)] + \
        [e for where, argv, env in vm.celery_commands(docs) for e in check_celery_argv(where, argv, env)]


def check_env_names(docs: list[dict]) -> list[str]:
    """Every BLOGHARVEST_* variable that k8s/ (`docs`), compose.yaml or the Dockerfile sets
    is one that the code in workers/ and tasks/ reads (a typo is otherwise silently ignored)."""
    known = {n for pkg in ("workers", "tasks") for py in (ROOT / pkg).rglob("*.py")
             for n in re.findall(r"BLOGHARVEST_[A-Z0-9_]+", py.read_text(encoding="utf-8"))}
    sets = [(name_of(d), k) for d in docs if d["kind"] == "ConfigMap" for k in d.get("data") or {}]
    sets += [(f"{name_of(d)}[{c['name']}]", e["name"]) for d in docs for c in containers(d) for e in c.get("env") or []]
    sets += [(f"compose {name}", k) for name, s in vm.interpolate_defaults(vm.load_compose())["services"].items()
             for k in s.get("environment") or {}]
    sets += [(f"Dockerfile {i['stage']}", k) for i in vm.parse_dockerfile() if i["instruction"] == "ENV"
             for k in re.findall(r"(\w+)=", i["value"])]
    return [f"{where}: {k} is not read by blogharvest" for where, k in sets
            if k.startswith("BLOGHARVEST_") and k not in known]
