"""Offline checks of blogharvest's deployment files: `python deploy/validate_manifests.py`,
and the tests in tests/deploy/ (so CI runs them with the test suite).

No cluster and no container engine are needed: the kustomization is rendered here in
Python (a deliberately small subset of kustomize, which refuses anything it does not
implement), every object is checked against the Kubernetes JSON schemas that the
`kubernetes-validate` package ships (KEDA objects against k8s/schemas/), and the
compose file and Dockerfile are parsed and checked. On top of the schemas come the
checks schemas cannot make: references between objects, pod security, the
NetworkPolicy's private ranges, and which `blogharvest` commands the files run.

Every check returns a list of error strings; an empty list means it passed.
"""
from __future__ import annotations

import argparse
import copy
import ipaddress
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
K8S_DIR = REPO / "k8s"
HPA_COMPONENT = K8S_DIR / "hpa"
COMPOSE_FILE = REPO / "deploy" / "compose.yaml"
COMPOSE_SCHEMA = REPO / "deploy" / "compose.schema.json"
DOCKERFILE = REPO / "deploy" / "Dockerfile"

#: Kubernetes versions whose schemas every object must satisfy: the oldest still
#: common on managed clusters, and the newest kubernetes-validate ships ("latest").
K8S_VERSIONS = ("1.28", "latest")

#: Custom resources have no schema in kubernetes-validate: ours are kept in the repo.
CRD_SCHEMAS = {
    ("keda.sh/v1alpha1", "ScaledObject"): K8S_DIR / "schemas" / "keda-scaledobject.json",
    ("keda.sh/v1alpha1", "TriggerAuthentication"): K8S_DIR / "schemas" / "keda-triggerauthentication.json",
}

CLUSTER_SCOPED = {
    "Namespace", "PersistentVolume", "StorageClass", "ClusterRole", "ClusterRoleBinding",
    "CustomResourceDefinition", "PriorityClass", "IngressClass", "ClusterTriggerAuthentication",
}

#: Addresses a crawling pod must never reach: RFC 1918, link-local (cloud metadata at
#: 169.254.169.254), shared CGNAT space; and their IPv6 counterparts.
FORBIDDEN_EGRESS = (
    "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "100.64.0.0/10",
    "fc00::/7", "fe80::/10",
)

sys.path.insert(0, str(REPO))  # workers/ (settings, the CLI parser) when run as a script

WORKLOAD_KINDS = {"Deployment", "StatefulSet", "DaemonSet", "Job", "ReplicaSet"}


class ManifestError(Exception):
    """A file cannot be rendered or parsed at all."""


# --------------------------------------------------------------------------- kustomize

def load_yaml_docs(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        docs = [d for d in yaml.safe_load_all(f) if d is not None]
    for d in docs:
        if not isinstance(d, dict):
            raise ManifestError(f"{path}: a document is not a mapping")
    return docs


def _kustomization_file(directory: Path) -> Path:
    for name in ("kustomization.yaml", "kustomization.yml", "Kustomization"):
        if (directory / name).is_file():
            return directory / name
    raise ManifestError(f"{directory}: no kustomization.yaml")


_KUSTOMIZATION_KEYS = {"apiVersion", "kind", "resources", "components", "namespace", "images", "patches"}


def _read_kustomization(directory: Path, kind: str) -> dict:
    path = _kustomization_file(directory)
    k = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    unknown = set(k) - _KUSTOMIZATION_KEYS
    if unknown:
        raise ManifestError(f"{path}: keys this renderer does not implement: {sorted(unknown)}")
    if k.get("kind", "Kustomization") != kind:
        raise ManifestError(f"{path}: expected kind {kind}, found {k.get('kind')}")
    return k


def _ident(doc: dict) -> tuple:
    md = doc.get("metadata") or {}
    return (doc.get("apiVersion"), doc.get("kind"), md.get("namespace"), md.get("name"))


def _apply_patches(docs: list[dict], patches: list, base: Path) -> list[dict]:
    for p in patches or []:
        if set(p) - {"patch", "path"}:
            raise ManifestError(f"{base}: only `patch`/`path` delete patches are implemented, got {sorted(p)}")
        text = p["patch"] if "patch" in p else (base / p["path"]).read_text(encoding="utf-8")
        patch = yaml.safe_load(text)
        if not isinstance(patch, dict) or patch.get("$patch") != "delete":
            raise ManifestError(f"{base}: only `$patch: delete` patches are implemented")
        key = (patch.get("apiVersion"), patch.get("kind"), (patch.get("metadata") or {}).get("name"))
        kept = [d for d in docs if (d.get("apiVersion"), d.get("kind"), d["metadata"].get("name")) != key]
        if len(kept) == len(docs):
            raise ManifestError(f"{base}: delete patch matches nothing: {key}")
        docs = kept
    return docs


def _split_image(image: str) -> tuple[str, str | None, str | None]:
    digest = None
    if "@" in image:
        image, digest = image.split("@", 1)
    tag = None
    last = image.rsplit("/", 1)[-1]
    if ":" in last:
        image, tag = image.rsplit(":", 1)
    return image, tag, digest


def pod_spec(doc: dict) -> dict | None:
    """The pod spec of a workload (or Pod), else None."""
    if doc.get("kind") == "Pod":
        return doc.get("spec")
    if doc.get("kind") in WORKLOAD_KINDS:
        return ((doc.get("spec") or {}).get("template") or {}).get("spec")
    if doc.get("kind") == "CronJob":
        return doc["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    return None


def containers(doc: dict) -> list[dict]:
    spec = pod_spec(doc) or {}
    return list(spec.get("initContainers") or []) + list(spec.get("containers") or [])


def _apply_images(docs: list[dict], images: list) -> None:
    for rule in images or []:
        for d in docs:
            for c in containers(d):
                name, tag, digest = _split_image(c["image"])
                if name != rule["name"]:
                    continue
                name = rule.get("newName", name)
                tag = str(rule["newTag"]) if "newTag" in rule else tag
                digest = rule.get("digest", digest)
                c["image"] = name + (f":{tag}" if tag else "") + (f"@{digest}" if digest else "")


def render_kustomization(directory: Path = K8S_DIR, components: list[Path] = ()) -> list[dict]:
    """Render a kustomization (resources, components, namespace, images, delete patches).

    `components` adds components as if listed in the kustomization (how an overlay
    would use k8s/hpa)."""
    directory = Path(directory)
    k = _read_kustomization(directory, "Kustomization")
    docs: list[dict] = []
    for res in k.get("resources") or []:
        target = (directory / res).resolve()
        if target.is_dir():
            docs.extend(render_kustomization(target))
        elif target.is_file():
            docs.extend(copy.deepcopy(load_yaml_docs(target)))
        else:
            raise ManifestError(f"{directory}: resource {res} not found")
    for comp in [directory / c for c in k.get("components") or []] + [Path(c) for c in components]:
        ck = _read_kustomization(comp.resolve(), "Component")
        if set(ck) & {"namespace", "images", "components"}:
            raise ManifestError(f"{comp}: component keys beyond resources/patches are not implemented")
        for res in ck.get("resources") or []:
            docs.extend(copy.deepcopy(load_yaml_docs(comp / res)))
        docs = _apply_patches(docs, ck.get("patches"), comp)
    docs = _apply_patches(docs, k.get("patches"), directory)
    if k.get("namespace"):
        for d in docs:
            if d.get("kind") not in CLUSTER_SCOPED:
                d.setdefault("metadata", {})["namespace"] = k["namespace"]
    _apply_images(docs, k.get("images"))
    seen = set()
    for d in docs:
        if _ident(d) in seen:
            raise ManifestError(f"{directory}: duplicate object {_ident(d)}")
        seen.add(_ident(d))
    return docs


def render_with_kubectl(directory: Path = K8S_DIR, components: list[Path] = ()) -> list[dict] | None:
    """The same rendering by the real kustomize (`kubectl kustomize`), or None without kubectl."""
    kubectl = shutil.which("kubectl")
    if not kubectl:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(directory)
        if components:
            # kustomize wants relative paths and no parent-of-itself cycles: an overlay in a temp dir.
            rel = lambda p: os.path.relpath(Path(p).resolve(), tmp)  # noqa: E731
            (Path(tmp) / "kustomization.yaml").write_text(yaml.safe_dump(
                {"resources": [rel(directory)], "components": [rel(c) for c in components]}))
            target = Path(tmp)
        out = subprocess.run([kubectl, "kustomize", str(target)], capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise ManifestError(f"kubectl kustomize {directory}: {out.stderr.strip()}")
    return [d for d in yaml.safe_load_all(out.stdout) if d]


def same_objects(a: list[dict], b: list[dict]) -> list[str]:
    """Differences between two renderings, compared as sets of objects."""
    key = lambda d: json.dumps(d, sort_keys=True)  # noqa: E731
    ka, kb = {_ident(d): key(d) for d in a}, {_ident(d): key(d) for d in b}
    errors = [f"only in python rendering: {i}" for i in ka.keys() - kb.keys()]
    errors += [f"only in kustomize rendering: {i}" for i in kb.keys() - ka.keys()]
    errors += [f"renderings differ for {i}" for i in ka.keys() & kb.keys() if ka[i] != kb[i]]
    return errors


# ------------------------------------------------------------------------ schemas

def _name(doc: dict) -> str:
    return f"{doc.get('kind')}/{(doc.get('metadata') or {}).get('name')}"


def validate_schemas(docs: list[dict], versions=K8S_VERSIONS) -> list[str]:
    """Each object against Kubernetes' schemas (strict: unknown fields are errors) or,
    for custom resources, against k8s/schemas/."""
    import jsonschema
    import kubernetes_validate

    errors = []
    for d in docs:
        crd = CRD_SCHEMAS.get((d.get("apiVersion"), d.get("kind")))
        if crd:
            schema = json.loads(crd.read_text(encoding="utf-8"))
            for e in jsonschema.Draft202012Validator(schema).iter_errors(d):
                errors.append(f"{_name(d)}: {'/'.join(map(str, e.absolute_path))}: {e.message}")
            continue
        for v in versions:
            version = kubernetes_validate.latest_version() if v == "latest" else v
            try:
                kubernetes_validate.validate(d, version, strict=True)
            except kubernetes_validate.ValidationError as e:
                errors.append(f"{_name(d)} (k8s {version}): {'/'.join(map(str, e.absolute_path))}: {e.message}")
            except kubernetes_validate.SchemaNotFoundError as e:
                errors.append(f"{_name(d)}: {e.message}")
    return errors


# --------------------------------------------------------------------- references

def _matches(selector: dict, labels: dict) -> bool:
    """A LabelSelector (matchLabels, matchExpressions) against a pod's labels."""
    if set(selector) - {"matchLabels", "matchExpressions"}:
        raise ManifestError(f"not a LabelSelector: {selector}")
    if not all(labels.get(k) == v for k, v in (selector.get("matchLabels") or {}).items()):
        return False
    for e in selector.get("matchExpressions") or []:
        op, key, values = e["operator"], e["key"], e.get("values") or []
        if op == "In" and labels.get(key) not in values:
            return False
        if op == "NotIn" and key in labels and labels[key] in values:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
    return True


def _service_selects(selector: dict, labels: dict) -> bool:
    """A Service's selector: a plain label map (empty selects nothing here)."""
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def pod_templates(docs: list[dict]) -> list[tuple[dict, dict]]:
    """(workload, pod template labels) for every object that runs pods."""
    out = []
    for d in docs:
        if d.get("kind") in WORKLOAD_KINDS:
            out.append((d, ((d["spec"].get("template") or {}).get("metadata") or {}).get("labels") or {}))
    return out


def check_references(docs: list[dict]) -> list[str]:
    """Names that one object uses must exist in the rendering: ConfigMaps, Secrets and
    their keys, claims, selectors, scale targets, named ports, volumes."""
    errors = []
    by_kind: dict[str, dict[str, dict]] = {}
    for d in docs:
        by_kind.setdefault(d["kind"], {})[d["metadata"]["name"]] = d
    cms, secrets = by_kind.get("ConfigMap", {}), by_kind.get("Secret", {})

    def secret_keys(name):
        s = secrets[name]
        return set(s.get("data") or {}) | set(s.get("stringData") or {})

    def check_ref(where, kind, ref, key=None, optional=False):
        pool = cms if kind == "ConfigMap" else secrets
        if ref not in pool:
            if not optional:
                errors.append(f"{where}: {kind} {ref} does not exist")
            return
        keys = set(pool[ref].get("data") or {}) if kind == "ConfigMap" else secret_keys(ref)
        if key is not None and key not in keys and not optional:
            errors.append(f"{where}: {kind} {ref} has no key {key}")

    templates = pod_templates(docs)
    for d, labels in templates:
        where = _name(d)
        spec = pod_spec(d)
        sel = (d["spec"].get("selector") or {})
        if not _matches(sel, labels):
            errors.append(f"{where}: selector {sel} does not match its pod template labels")
        volumes = {v["name"]: v for v in spec.get("volumes") or []}
        for t in d["spec"].get("volumeClaimTemplates") or []:
            volumes[t["metadata"]["name"]] = t
        for v in volumes.values():
            claim = (v.get("persistentVolumeClaim") or {}).get("claimName")
            if claim and claim not in by_kind.get("PersistentVolumeClaim", {}):
                errors.append(f"{where}: PersistentVolumeClaim {claim} does not exist")
        for c in containers(d):
            cw = f"{where}[{c['name']}]"
            ports = {p.get("name") for p in c.get("ports") or []}
            for ef in c.get("envFrom") or []:
                if "configMapRef" in ef:
                    check_ref(cw, "ConfigMap", ef["configMapRef"]["name"], optional=ef["configMapRef"].get("optional"))
                if "secretRef" in ef:
                    check_ref(cw, "Secret", ef["secretRef"]["name"], optional=ef["secretRef"].get("optional"))
            for e in c.get("env") or []:
                vf = e.get("valueFrom") or {}
                if "secretKeyRef" in vf:
                    r = vf["secretKeyRef"]
                    check_ref(cw, "Secret", r["name"], r["key"], r.get("optional"))
                if "configMapKeyRef" in vf:
                    r = vf["configMapKeyRef"]
                    check_ref(cw, "ConfigMap", r["name"], r["key"], r.get("optional"))
            for m in c.get("volumeMounts") or []:
                if m["name"] not in volumes:
                    errors.append(f"{cw}: volumeMount {m['name']} has no volume")
            for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
                p = c.get(probe) or {}
                for h in ("httpGet", "tcpSocket"):
                    port = (p.get(h) or {}).get("port")
                    if isinstance(port, str) and port not in ports:
                        errors.append(f"{cw}: {probe} port {port} is not a named container port")
        if d["kind"] == "StatefulSet":
            svc = by_kind.get("Service", {}).get(d["spec"].get("serviceName"))
            if svc is None or svc["spec"].get("clusterIP") != "None":
                errors.append(f"{where}: serviceName must name a headless Service")

    for svc in by_kind.get("Service", {}).values():
        matched = [(d, l) for d, l in templates if _service_selects(svc["spec"].get("selector") or {}, l)]
        if not matched:
            errors.append(f"{_name(svc)}: selector matches no pod template")
        names = {p.get("name") for d, _ in matched for c in containers(d) for p in c.get("ports") or []}
        for p in svc["spec"].get("ports") or []:
            if isinstance(p.get("targetPort"), str) and p["targetPort"] not in names:
                errors.append(f"{_name(svc)}: targetPort {p['targetPort']} is not a port of its pods")
    for pdb in by_kind.get("PodDisruptionBudget", {}).values():
        if not any(_matches(pdb["spec"]["selector"], l) for _, l in templates):
            errors.append(f"{_name(pdb)}: selector matches no pod template")
    for kind in ("ScaledObject", "HorizontalPodAutoscaler"):
        for so in by_kind.get(kind, {}).values():
            ref = so["spec"]["scaleTargetRef"]
            if ref["name"] not in by_kind.get(ref.get("kind", "Deployment"), {}):
                errors.append(f"{_name(so)}: scale target {ref.get('kind')}/{ref['name']} does not exist")
            for t in so["spec"].get("triggers") or []:
                auth = (t.get("authenticationRef") or {}).get("name")
                if auth and auth not in by_kind.get("TriggerAuthentication", {}):
                    errors.append(f"{_name(so)}: TriggerAuthentication {auth} does not exist")
    for ta in by_kind.get("TriggerAuthentication", {}).values():
        for r in ta["spec"].get("secretTargetRef") or []:
            check_ref(_name(ta), "Secret", r["name"], r["key"])
    for np in by_kind.get("NetworkPolicy", {}).values():
        sel = np["spec"]["podSelector"]
        if sel and not any(_matches(sel, l) for _, l in templates):
            errors.append(f"{_name(np)}: podSelector matches no pod template")
    return errors


# ----------------------------------------------------------------------- security

def is_blogharvest_image(image: str) -> bool:
    return _split_image(image)[0].rsplit("/", 1)[-1].startswith("blogharvest")


def image_pinned(image: str) -> bool:
    _, tag, digest = _split_image(image)
    return bool(digest) or bool(tag and tag != "latest" and re.search(r"\d", tag))


def check_pod_security(docs: list[dict]) -> list[str]:
    """Every pod meets Pod Security "restricted"; blogharvest containers also run with a
    read-only root file system and a writable /tmp; every image is pinned; resources set."""
    errors = []
    for d, _ in pod_templates(docs):
        spec = pod_spec(d)
        psc = spec.get("securityContext") or {}
        where = _name(d)
        if spec.get("automountServiceAccountToken") is not False:
            errors.append(f"{where}: automountServiceAccountToken should be false (no API access needed)")
        if spec.get("enableServiceLinks") is not False:
            errors.append(f"{where}: enableServiceLinks should be false (FLOWER_PORT/REDIS_PORT-style env)")
        if (psc.get("seccompProfile") or {}).get("type") != "RuntimeDefault":
            errors.append(f"{where}: pod seccompProfile must be RuntimeDefault")
        tmp_volumes = {v["name"] for v in spec.get("volumes") or [] if "emptyDir" in v}
        for c in containers(d):
            cw = f"{where}[{c['name']}]"
            sc = c.get("securityContext") or {}
            if not (sc.get("runAsNonRoot", psc.get("runAsNonRoot"))):
                errors.append(f"{cw}: runAsNonRoot must be true")
            if sc.get("runAsUser", psc.get("runAsUser")) == 0:
                errors.append(f"{cw}: runs as uid 0")
            if sc.get("allowPrivilegeEscalation") is not False:
                errors.append(f"{cw}: allowPrivilegeEscalation must be false")
            if "ALL" not in ((sc.get("capabilities") or {}).get("drop") or []):
                errors.append(f"{cw}: capabilities must drop ALL")
            if not image_pinned(c["image"]):
                errors.append(f"{cw}: image {c['image']} is not pinned to a version")
            res = c.get("resources") or {}
            for need in ("requests.cpu", "requests.memory", "limits.memory"):
                a, b = need.split(".")
                if b not in (res.get(a) or {}):
                    errors.append(f"{cw}: resources.{need} missing")
            if is_blogharvest_image(c["image"]):
                if sc.get("readOnlyRootFilesystem") is not True:
                    errors.append(f"{cw}: readOnlyRootFilesystem must be true")
                if not any(m["mountPath"] == "/tmp" and m["name"] in tmp_volumes for m in c.get("volumeMounts") or []):
                    errors.append(f"{cw}: /tmp must be an emptyDir mount")
            for e in c.get("env") or []:
                if e["name"] == "BLOGHARVEST_ALLOW_PRIVATE":
                    errors.append(f"{cw}: BLOGHARVEST_ALLOW_PRIVATE must not be set on a cluster")
    for d in docs:
        if d.get("kind") == "ConfigMap" and "BLOGHARVEST_ALLOW_PRIVATE" in (d.get("data") or {}):
            errors.append(f"{_name(d)}: BLOGHARVEST_ALLOW_PRIVATE must not be set on a cluster")
    return errors


def _env_value(docs: list[dict], c: dict, name: str) -> str | None:
    for e in c.get("env") or []:
        if e["name"] == name and "value" in e:
            return e["value"]
    cms = {d["metadata"]["name"]: d for d in docs if d["kind"] == "ConfigMap"}
    for ef in c.get("envFrom") or []:
        cm = cms.get((ef.get("configMapRef") or {}).get("name"))
        if cm and name in (cm.get("data") or {}):
            return cm["data"][name]
    return None


def worker_settings(env: dict):
    """workers/settings.py's Settings as a worker with this environment sees them."""
    from unittest import mock

    from workers.settings import Settings

    with mock.patch.dict(os.environ, {k: str(v) for k, v in env.items() if v is not None}):
        return Settings()


def shutdown_errors(where: str, env: dict, grace: float) -> list[str]:
    """A worker told to stop must get to finish: the grace period exceeds the soft shutdown
    plus the longest task (its hard time limit), and the broker's visibility timeout exceeds
    the grace period (or a draining worker's task would be handed to a second worker)."""
    errors = []
    soft = env.get("BLOGHARVEST_WORKER_SOFT_SHUTDOWN")
    if soft is None:
        return [f"{where}: BLOGHARVEST_WORKER_SOFT_SHUTDOWN not set"]
    s = worker_settings(env)
    if s.soft_time_limit >= s.hard_time_limit:
        errors.append(f"{where}: soft time limit {s.soft_time_limit} >= hard time limit {s.hard_time_limit}")
    if grace <= float(soft) + s.hard_time_limit:
        errors.append(f"{where}: grace period {grace} s <= soft shutdown {soft} s"
                      f" + hard time limit {s.hard_time_limit} s")
    if grace >= s.visibility_timeout:
        errors.append(f"{where}: grace period {grace} s >= visibility timeout {s.visibility_timeout} s")
    return errors


def container_env(docs: list[dict], c: dict) -> dict:
    """The literal environment of a container (ConfigMaps expanded; Secrets as None)."""
    env = {}
    cms = {d["metadata"]["name"]: d for d in docs if d["kind"] == "ConfigMap"}
    for ef in c.get("envFrom") or []:
        cm = cms.get((ef.get("configMapRef") or {}).get("name"))
        if cm:
            env.update(cm.get("data") or {})
    for e in c.get("env") or []:
        env[e["name"]] = e.get("value")
    return env


def is_worker(c: dict) -> bool:
    return is_blogharvest_image(c["image"]) and (c.get("args") or [])[:1] == ["worker"]


def check_workers(docs: list[dict]) -> list[str]:
    """Worker pods stop gracefully, probe with `blogharvest health`, and are autoscaled on
    the Celery queue they consume; Redis keeps an append-only file on a volume."""
    errors = []
    workers = {}
    for d, _ in pod_templates(docs):
        for c in containers(d):
            if not is_worker(c):
                continue
            argv = c["args"]
            where = f"{_name(d)}[{c['name']}]"
            queues = argv[argv.index("--queues") + 1].split(",") if "--queues" in argv else ["celery"]
            workers[d["metadata"]["name"]] = queues
            grace = pod_spec(d).get("terminationGracePeriodSeconds", 30)
            errors += shutdown_errors(where, container_env(docs, c), grace)
            for probe in ("readinessProbe", "livenessProbe"):
                cmd = ((c.get(probe) or {}).get("exec") or {}).get("command") or []
                if cmd[:3] != ["blogharvest", "health", "--worker"]:
                    errors.append(f"{where}: {probe} must run `blogharvest health --worker`")
    if not workers:
        errors.append("no worker Deployment found")
    scaled = {}
    for so in (d for d in docs if d["kind"] == "ScaledObject"):
        for t in so["spec"]["triggers"]:
            if t["type"] in ("redis", "redis-cluster"):
                scaled.setdefault(so["spec"]["scaleTargetRef"]["name"], []).append(t["metadata"].get("listName"))
    hpas = {d["spec"]["scaleTargetRef"]["name"] for d in docs if d["kind"] == "HorizontalPodAutoscaler"}
    for name, queues in workers.items():
        if name in scaled:
            for q in scaled[name]:
                if q not in queues:
                    errors.append(f"ScaledObject for {name} watches list {q} but the worker consumes {queues}")
            if name in hpas:
                errors.append(f"{name} has both a ScaledObject and an HPA")
        elif name not in hpas:
            errors.append(f"worker {name} is not autoscaled")
    if "celery" not in {q for qs in scaled.values() for q in qs} and not hpas:
        errors.append("no ScaledObject watches the Redis list of queue 'celery'")
    for d in docs:
        if d["kind"] != "StatefulSet":
            continue
        for c in containers(d):
            if _split_image(c["image"])[0].rsplit("/", 1)[-1] != "redis":
                continue
            line = " ".join((c.get("command") or []) + (c.get("args") or []))
            for flag in ("--appendonly yes", "--maxmemory-policy noeviction"):
                if flag not in line:
                    errors.append(f"{_name(d)}: redis-server needs {flag}")
            claims = {t["metadata"]["name"] for t in d["spec"].get("volumeClaimTemplates") or []}
            if not any(m["mountPath"] == "/data" and m["name"] in claims for m in c.get("volumeMounts") or []):
                errors.append(f"{_name(d)}: /data must be on a volumeClaimTemplate")
    return errors


# ----------------------------------------------------------------------- network

def _subtract(nets: list, hole) -> list:
    out = []
    for n in nets:
        if n.version != hole.version or not n.overlaps(hole):
            out.append(n)
        elif not n.subnet_of(hole):
            out.extend(n.address_exclude(hole) if hole.subnet_of(n) else [n])
    return out


def egress_rules_for(docs: list[dict], labels: dict) -> list[dict]:
    """Egress rules of every NetworkPolicy that selects a pod with these labels."""
    rules = []
    for np in (d for d in docs if d["kind"] == "NetworkPolicy"):
        spec = np["spec"]
        if "Egress" in (spec.get("policyTypes") or []) and _matches(spec["podSelector"], labels):
            rules.extend(spec.get("egress") or [])
    return rules


def reachable_forbidden(docs: list[dict], labels: dict) -> list[str]:
    """Forbidden ranges (FORBIDDEN_EGRESS) that an ipBlock lets these pods reach."""
    leaks = []
    for rule in egress_rules_for(docs, labels):
        for peer in rule.get("to") or [{}]:  # no `to` means every destination
            block = peer.get("ipBlock") if peer else {"cidr": "0.0.0.0/0"}
            if not block:
                continue
            cidr = ipaddress.ip_network(block["cidr"])
            for bad in map(ipaddress.ip_network, FORBIDDEN_EGRESS):
                if bad.version != cidr.version or not bad.overlaps(cidr):
                    continue
                rest = [bad]
                for ex in block.get("except") or []:
                    rest = _subtract(rest, ipaddress.ip_network(ex))
                if any(r.overlaps(cidr) for r in rest):
                    leaks.append(f"{bad} via {block['cidr']}")
    return leaks


def _policies(docs: list[dict], labels: dict, direction: str) -> list[dict]:
    return [d for d in docs if d["kind"] == "NetworkPolicy" and direction in (d["spec"].get("policyTypes") or [])
            and _matches(d["spec"]["podSelector"], labels)]


def _peer_admits(peer: dict, labels: dict, namespace: str | None) -> bool:
    """Does a policy peer match a pod of this namespace with these labels?"""
    if "ipBlock" in peer:
        # Pod addresses are private: an ipBlock reaches pods only if it keeps a private range.
        return bool(reachable_forbidden([{"kind": "NetworkPolicy", "spec": {
            "podSelector": {}, "policyTypes": ["Egress"], "egress": [{"to": [peer]}]}}], {}))
    if "namespaceSelector" in peer:
        ns = (peer["namespaceSelector"].get("matchLabels") or {}).get("kubernetes.io/metadata.name")
        if peer["namespaceSelector"] and ns != namespace:
            return False
    return _matches(peer.get("podSelector") or {}, labels)


def _rule_admits(rule: dict, side: str, labels: dict, port: int, namespace: str | None) -> bool:
    ports = rule.get("ports") or []
    if ports and not any(p.get("port") == port for p in ports):
        return False
    peers = rule.get(side) or []
    return not peers or any(_peer_admits(p, labels, namespace) for p in peers)


def connection_allowed(docs: list[dict], src: dict, dst: dict, port: int) -> bool:
    """Whether the NetworkPolicies let a pod labelled `src` open TCP `port` on a pod labelled `dst`
    (both in the rendering's namespace): the source's egress and the target's ingress."""
    ns = next((d["metadata"].get("namespace") for d in docs if d["kind"] == "NetworkPolicy"), None)
    for labels, other, direction, side in ((src, dst, "Egress", "to"), (dst, src, "Ingress", "from")):
        policies = _policies(docs, labels, direction)
        if policies and not any(_rule_admits(r, side, other, port, ns)
                                for p in policies for r in p["spec"].get(direction.lower()) or []):
            return False
    return True


def check_network(docs: list[dict]) -> list[str]:
    """Default deny; crawling pods reach the public internet but no private, CGNAT or
    link-local (metadata) address; whoever has REDIS_URL reaches Redis and nobody else does;
    workers with SELENIUM_REMOTE_URL reach Selenium and nobody else does; DNS for all."""
    errors = []
    policies = [d for d in docs if d["kind"] == "NetworkPolicy"]
    if not any(p["spec"]["podSelector"] == {} and set(p["spec"].get("policyTypes") or []) >= {"Ingress", "Egress"}
               for p in policies):
        errors.append("no default-deny NetworkPolicy (podSelector {} with Ingress and Egress)")
    templates = pod_templates(docs)
    redis = [l for d, l in templates if l.get("app.kubernetes.io/component") == "redis"]
    selenium = [l for d, l in templates if l.get("app.kubernetes.io/component") == "selenium"]
    for d, labels in templates:
        where = _name(d)
        rules = egress_rules_for(docs, labels)
        for leak in reachable_forbidden(docs, labels):
            errors.append(f"{where}: egress reaches forbidden range {leak}")
        if not any(p.get("namespaceSelector") and any(pt.get("port") == 53 for pt in r.get("ports") or [])
                   for r in rules for p in r.get("to") or []):
            errors.append(f"{where}: no DNS egress")
        envs = [container_env(docs, c) for c in containers(d)]
        crawls = any(is_worker(c) for c in containers(d))
        component = labels.get("app.kubernetes.io/component")
        if crawls or component == "selenium":
            if not any("ipBlock" in p and p["ipBlock"]["cidr"] == "0.0.0.0/0"
                       for r in rules for p in r.get("to") or []):
                errors.append(f"{where}: crawling pod has no internet egress")
        elif any("ipBlock" in p for r in rules for p in r.get("to") or []):
            errors.append(f"{where}: only crawling pods may have ipBlock egress")
        if component in ("redis", "selenium"):
            continue
        needs_redis = any("REDIS_URL" in e for e in envs)
        for t in redis:
            if connection_allowed(docs, labels, t, 6379) != needs_redis:
                errors.append(f"{where}: {'cannot reach' if needs_redis else 'may reach'} Redis")
        needs_selenium = crawls and any("SELENIUM_REMOTE_URL" in e for e in envs)
        for t in selenium:
            if connection_allowed(docs, labels, t, 4444) != needs_selenium:
                errors.append(f"{where}: {'cannot reach' if needs_selenium else 'may reach'} Selenium")
    for s in selenium:
        for t in redis:
            if connection_allowed(docs, s, t, 6379):
                errors.append("the Selenium browser (it runs blogs' JavaScript) may reach Redis")
    return errors


# ------------------------------------------------------------------------ compose

_INTERPOLATION = re.compile(r"\$(\$|\{([^}]*)\}|[A-Za-z_][A-Za-z0-9_]*)")


def load_compose(path: Path = COMPOSE_FILE) -> dict:
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f)  # SafeLoader resolves anchors and `<<` merge keys


def interpolate_defaults(value):
    """Compose's ${VAR:-default} with no environment: every variable takes its default."""
    if isinstance(value, str):
        return _INTERPOLATION.sub(lambda m: "$" if m.group(1) == "$" else
                                  (m.group(2).split(":-", 1)[1] if m.group(2) and ":-" in m.group(2) else ""), value)
    if isinstance(value, list):
        return [interpolate_defaults(v) for v in value]
    if isinstance(value, dict):
        return {k: interpolate_defaults(v) for k, v in value.items()}
    return value


def compose_duration(text) -> float:
    """Compose's duration ("390s", "6m30s", "1h", "1m30.5s") in seconds."""
    parts = re.findall(r"(\d+(?:\.\d+)?)(h|ms|m|s|us)", str(text))
    if not parts or "".join(n + u for n, u in parts) != str(text):
        raise ManifestError(f"not a compose duration: {text!r}")
    unit = {"h": 3600, "m": 60, "s": 1, "ms": 1e-3, "us": 1e-6}
    return sum(float(n) * unit[u] for n, u in parts)


def check_compose(path: Path = COMPOSE_FILE, schema_path: Path = COMPOSE_SCHEMA) -> list[str]:
    """compose.yaml against deploy/compose.schema.json plus what a schema cannot say."""
    import jsonschema

    errors = []
    text = path.read_text(encoding="utf-8")
    for m in _INTERPOLATION.finditer(text):
        if m.group(1) != "$" and not (m.group(2) and ":-" in m.group(2)):
            errors.append(f"compose: variable {m.group(0)} has no default (use ${{VAR:-default}}, or $$ for a literal $)")
    raw = load_compose(path)
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    for e in jsonschema.Draft202012Validator(schema).iter_errors(raw):
        errors.append(f"compose: {'/'.join(map(str, e.absolute_path))}: {e.message}")
    if errors:
        return errors
    c = interpolate_defaults(raw)
    services, volumes = c["services"], set(c.get("volumes") or {})
    for name, s in services.items():
        if not image_pinned(s["image"]):
            errors.append(f"compose {name}: image {s['image']} is not pinned to a version")
        deps = s.get("depends_on") or {}
        for dep in deps:
            if dep not in services:
                errors.append(f"compose {name}: depends_on unknown service {dep}")
        for v in s.get("volumes") or []:
            src = v.split(":", 1)[0]
            if not src.startswith((".", "/")) and src not in volumes:
                errors.append(f"compose {name}: volume {src} is not declared")
        env = s.get("environment") or {}
        if is_blogharvest_image(s["image"]):
            if "REDIS_URL" not in env:
                errors.append(f"compose {name}: REDIS_URL not set")
            if "BLOGHARVEST_ALLOW_PRIVATE" in env:
                errors.append(f"compose {name}: BLOGHARVEST_ALLOW_PRIVATE must not be set")
            if s.get("read_only") is not True:
                errors.append(f"compose {name}: read_only should be true")
            if "build" in s and not (REPO / "deploy" / s["build"]["context"] / s["build"]["dockerfile"]).is_file():
                errors.append(f"compose {name}: build.dockerfile not found")
    for need in ("redis", "worker", "render-worker", "beat", "flower", "selenium"):
        if need not in services:
            errors.append(f"compose: service {need} missing")
    if errors:
        return errors
    redis_cmd = " ".join(services["redis"].get("command") or [])
    for flag in ("--appendonly yes", "--maxmemory-policy noeviction"):
        if flag not in redis_cmd:
            errors.append(f"compose redis: command needs {flag}")
    if not any(v.endswith(":/data") for v in services["redis"].get("volumes") or []):
        errors.append("compose redis: /data needs a volume")
    if (services["worker"].get("deploy") or {}).get("replicas") != 2:
        errors.append("compose worker: deploy.replicas should be 2")
    flower = services["flower"].get("command") or []
    if flower[:1] != ["celery"] or "flower" not in flower or not any(a.startswith("--broker=redis") for a in flower):
        errors.append("compose flower: command should be `celery --broker=$REDIS_URL flower`")
    for name, s in services.items():
        if is_blogharvest_image(s["image"]) and (s.get("command") or [])[:1] == ["worker"]:
            errors += shutdown_errors(f"compose {name}", dict(s.get("environment") or {}),
                                      compose_duration(s.get("stop_grace_period", "10s")))
            test = (s.get("healthcheck") or {}).get("test") or []
            if test[:4] != ["CMD", "blogharvest", "health", "--worker"]:
                errors.append(f"compose {name}: healthcheck must run `blogharvest health --worker`")
    if services["render-worker"]["build"].get("target") != "render":
        errors.append("compose render-worker: build target should be render")
    return errors


# ---------------------------------------------------------------------- Dockerfile

def parse_dockerfile(path: Path = DOCKERFILE) -> list[dict]:
    """Instructions as {"stage", "instruction", "value"}, continuation lines joined."""
    lines, buf = [], ""
    for raw in path.read_text(encoding="utf-8").splitlines():
        s = raw.strip()
        if not buf and (not s or s.startswith("#")):
            continue
        if buf and s.startswith("#"):
            continue
        if s.endswith("\\"):
            buf += s[:-1].rstrip() + " "
            continue
        lines.append(buf + s)
        buf = ""
    out, stage = [], None
    for line in lines:
        instr, _, value = line.partition(" ")
        instr = instr.upper()
        if instr == "FROM":
            parts = value.split()
            stage = parts[2] if len(parts) >= 3 and parts[1].lower() == "as" else parts[0]
        out.append({"stage": stage, "instruction": instr, "value": value.strip()})
    return out


def _exec_form(value: str) -> list[str] | None:
    try:
        v = json.loads(value)
    except ValueError:
        return None
    return v if isinstance(v, list) and all(isinstance(x, str) for x in v) else None


def dockerfile_stages(path: Path = DOCKERFILE) -> dict[str, dict]:
    """Per stage: base, user, entrypoint, cmd, healthcheck, runs, as inherited from parents."""
    instrs = parse_dockerfile(path)
    args = {}
    stages: dict[str, dict] = {}
    for i in instrs:
        if i["instruction"] == "ARG" and i["stage"] is None:
            k, _, v = i["value"].partition("=")
            args[k] = v
            continue
        if i["instruction"] == "FROM":
            parts = i["value"].split()
            base = re.sub(r"\$\{(\w+)\}", lambda m: args.get(m.group(1), ""), parts[0])
            parent = stages.get(base)
            st = copy.deepcopy(parent) if parent else {"image": base, "user": "root", "entrypoint": None,
                                                        "cmd": None, "healthcheck": None, "runs": [], "copies": []}
            st["parent"] = base if parent else None
            stages[i["stage"]] = st
            continue
        st = stages[i["stage"]]
        if i["instruction"] == "USER":
            st["user"] = i["value"]
        elif i["instruction"] == "ENTRYPOINT":
            st["entrypoint"], st["cmd"] = _exec_form(i["value"]) or i["value"], None
        elif i["instruction"] == "CMD":
            st["cmd"] = _exec_form(i["value"]) or i["value"]
        elif i["instruction"] == "HEALTHCHECK":
            m = re.search(r"\bCMD\s+(.*)$", i["value"])
            st["healthcheck"] = (_exec_form(m.group(1)) or m.group(1)) if m else i["value"]
        elif i["instruction"] == "RUN":
            st["runs"].append(i["value"])
        elif i["instruction"] == "COPY":
            st["copies"].append(i["value"])
    stages["__final__"] = stages[instrs[[j for j, x in enumerate(instrs) if x["instruction"] == "FROM"][-1]]["stage"]]
    return stages


def check_dockerfile(path: Path = DOCKERFILE) -> list[str]:
    errors = []
    stages = dockerfile_stages(path)
    for name, st in stages.items():
        if st.get("parent") is None and name != "__final__":
            if not re.fullmatch(r"python:3\.11\.\d+-slim(-[a-z]+)?(@sha256:[0-9a-f]{64})?", st["image"]):
                errors.append(f"Dockerfile stage {name}: base {st['image']} is not a version-pinned python:3.11.N-slim")
    for name in ("runtime", "render", "__final__"):
        st = stages.get(name)
        if st is None:
            errors.append(f"Dockerfile: stage {name} missing")
            continue
        user = st["user"].split(":")[0]
        if user in ("root", "0", ""):
            errors.append(f"Dockerfile stage {name}: runs as root")
        if st["entrypoint"] != ["blogharvest"]:
            errors.append(f"Dockerfile stage {name}: ENTRYPOINT should be [\"blogharvest\"]")
        if not (isinstance(st["healthcheck"], list) and st["healthcheck"][:2] == ["blogharvest", "health"]):
            errors.append(f"Dockerfile stage {name}: HEALTHCHECK should run blogharvest health")
    if stages.get("render") and stages["render"].get("parent") != "runtime":
        errors.append("Dockerfile: render should build on runtime")
    render_runs = " ".join(stages.get("render", {}).get("runs", []))
    for pkg in ("chromium", "chromium-driver"):
        if not re.search(rf"apt-get install[^&;]*\s{re.escape(pkg)}(\s|$)", render_runs):
            errors.append(f"Dockerfile render: does not apt-get install {pkg}")
    if stages.get("__final__") is not stages.get("runtime") and stages["__final__"].get("parent") != "runtime":
        errors.append("Dockerfile: the default (last) stage should be the slim runtime")
    all_runs = " ".join(r for s in stages.values() for r in s["runs"])
    if not re.search(r"pip install (\S+ )*\.(\s|$)", all_runs):
        errors.append("Dockerfile: no `pip install .`")
    for st in stages.values():
        for cp in st["copies"]:
            if cp.startswith("--from"):
                continue
            for src in cp.split()[:-1]:
                if not src.startswith("--") and not list(REPO.glob(src)) and "*" not in src:
                    errors.append(f"Dockerfile: COPY source {src} does not exist")
    return errors


# ------------------------------------------------------------ blogharvest commands

_SHELL_OPS = {"&&", "||", ";", "|", "&"}


def blogharvest_argv(argv, entrypoint_blogharvest: bool) -> list[list[str]]:
    """The `blogharvest` argument lists inside a command line: exec form, an image whose
    ENTRYPOINT is blogharvest (argv are its arguments), or `sh -c "... blogharvest ..."`."""
    if isinstance(argv, str):
        argv = ["sh", "-c", argv]
    if not argv:
        return []
    if Path(argv[0]).name == "blogharvest":
        return [list(argv[1:])]
    if Path(argv[0]).name in ("sh", "bash", "dash") and "-c" in argv:
        tokens = shlex.split(argv[argv.index("-c") + 1])
        found, cur = [], None
        for t in tokens + [";"]:
            if cur is not None and t in _SHELL_OPS:
                found.append(cur)
                cur = None
            elif cur is not None:
                cur.append(t)
            elif Path(t).name == "blogharvest":
                cur = []
        return found
    return [list(argv)] if entrypoint_blogharvest else []


def blogharvest_commands() -> list[tuple[str, list[str]]]:
    """(where, arguments) of every `blogharvest` command the Dockerfile, compose.yaml and
    the k8s renderings (base and with the hpa component) run."""
    found = []
    for name, st in dockerfile_stages().items():
        ep = st["entrypoint"] == ["blogharvest"]
        if st["cmd"] is not None:
            found += [(f"Dockerfile {name} CMD", a) for a in blogharvest_argv(st["cmd"], ep)]
        if st["healthcheck"] is not None:
            found += [(f"Dockerfile {name} HEALTHCHECK", a) for a in blogharvest_argv(st["healthcheck"], False)]
    compose = interpolate_defaults(load_compose())
    for name, s in compose["services"].items():
        ep = is_blogharvest_image(s["image"]) and "entrypoint" not in s
        if "entrypoint" in s:
            found += [(f"compose {name} entrypoint", a) for a in blogharvest_argv(s["entrypoint"], False)]
        if "command" in s:
            found += [(f"compose {name} command", a) for a in blogharvest_argv(s["command"], ep)]
        test = (s.get("healthcheck") or {}).get("test")
        if isinstance(test, list) and test[:1] == ["CMD"]:
            found += [(f"compose {name} healthcheck", a) for a in blogharvest_argv(test[1:], False)]
        elif isinstance(test, list) and test[:1] == ["CMD-SHELL"]:
            found += [(f"compose {name} healthcheck", a) for a in blogharvest_argv(test[1], False)]
    for label, docs in (("k8s", render_kustomization()), ("k8s+hpa", render_kustomization(components=[HPA_COMPONENT]))):
        for d in docs:
            for c in containers(d):
                where = f"{label} {_name(d)}[{c['name']}]"
                ep = is_blogharvest_image(c["image"])
                cmd, args = c.get("command"), c.get("args") or []
                if cmd:
                    found += [(where, a) for a in blogharvest_argv(list(cmd) + list(args), False)]
                elif args:
                    found += [(where, a) for a in blogharvest_argv(list(args), ep)]
                for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
                    pc = ((c.get(probe) or {}).get("exec") or {}).get("command")
                    if pc:
                        found += [(f"{where} {probe}", a) for a in blogharvest_argv(pc, False)]
    return found


def celery_commands() -> list[tuple[str, list[str], dict]]:
    """(where, argv, environment) of every `celery ...` command compose.yaml and the k8s
    renderings run (Flower); the environment holds literal values, Secrets as None."""
    found = []
    compose = interpolate_defaults(load_compose())
    for name, s in compose["services"].items():
        cmd = s.get("command")
        if isinstance(cmd, list) and cmd[:1] == ["celery"]:
            found.append((f"compose {name}", cmd, dict(s.get("environment") or {})))
    for label, docs in (("k8s", render_kustomization()),):
        for d in docs:
            for c in containers(d):
                argv = list(c.get("command") or []) + list(c.get("args") or [])
                if argv[:1] == ["celery"]:
                    env = container_env(docs, c)
                    # $(VAR) is the kubelet's expansion of the container's env
                    argv = [re.sub(r"\$\((\w+)\)", lambda m: env.get(m.group(1)) or "redis://x:6379/0", a)
                            for a in argv]
                    found.append((f"{label} {_name(d)}[{c['name']}]", argv, env))
    return found


def _click_parse(group, argv: list[str]):
    """Parse argv with a click group: (group context, subcommand, its context)."""
    import warnings

    from celery import Celery
    from celery.app.utils import find_app
    from celery.bin.base import CLIContext

    ctx = group.make_context(group.name or "celery", list(argv))
    # What the `celery` group's callback does before a subcommand parses: load the app.
    app = find_app(ctx.params["app"]) if ctx.params.get("app") else Celery(broker=ctx.params.get("broker"))
    ctx.obj = CLIContext(app=app, no_color=True, workdir=None, quiet=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        rest = list(ctx.protected_args) + list(ctx.args)
    if not rest:
        raise ValueError("no subcommand")
    sub = group.get_command(ctx, rest[0])
    if sub is None:
        raise ValueError(f"no celery subcommand {rest[0]!r}")
    return ctx, rest[0], sub.make_context(rest[0], rest[1:], parent=ctx)


def check_celery_argv(where: str, argv: list[str], env: dict | None = None) -> list[str]:
    """A `celery ...` command line against the installed celery's own parser (and Flower's
    options, with FLOWER_* variables, when the subcommand is flower)."""
    import click
    from celery.bin.celery import celery

    try:
        _, name, sub = _click_parse(celery, argv[1:])
    except (click.ClickException, ValueError) as e:
        return [f"{where}: `{shlex.join(argv)}`: {e}"]
    if name != "flower":
        return []
    from tornado.options import Error as OptionError, options

    import flower.options  # noqa: F401  (defines Flower's options)

    errors = []
    targv = list(sub.params.get("tornado_argv") or ())
    # tornado prints its help on an unknown option (and Flower's help does not format): check names first
    unknown = [a for a in targv if a.startswith("--")
               and a[2:].split("=", 1)[0].replace("_", "-") not in options._options]
    if unknown:
        errors.append(f"{where}: flower: unknown options {unknown}")
    else:
        try:
            options.parse_command_line(["flower"] + targv, final=False)
        except (OptionError, ValueError) as e:
            errors.append(f"{where}: flower: {e}")
    for k in env or {}:
        if k.startswith("FLOWER_"):
            opt = options._options.get(k[len("FLOWER_"):].lower().replace("_", "-"))
            if opt is None:
                errors.append(f"{where}: {k} is not a Flower option")
            elif env[k] is not None:
                try:
                    opt.type(env[k]) if opt.type is not bool else None
                except ValueError:
                    errors.append(f"{where}: {k}={env[k]!r} is not a valid {opt.type.__name__}")
    return errors


def check_blogharvest_argv(where: str, argv: list[str]) -> list[str]:
    """A `blogharvest ...` argument list against workers/cli.py's parser; for worker and
    beat, also the `celery` command line the CLI then executes."""
    import contextlib
    import io

    from workers.cli import parser

    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            a = parser().parse_args(argv)
    except SystemExit:
        msg = err.getvalue().strip().splitlines()[-1:] or ["invalid"]
        return [f"{where}: `blogharvest {shlex.join(argv)}`: {msg[0]}"]
    extra = [x for x in getattr(a, "extra", []) or [] if x != "--"]
    if a.command == "worker":
        from workers.embedded import worker_command

        cmd = worker_command(a.concurrency, a.hostname, a.pool, a.queues)
        return check_celery_argv(where, ["celery"] + cmd[3:] + extra)
    if a.command == "beat":
        return check_celery_argv(where, ["celery", "-A", "workers.app", "beat", "--scheduler",
                                         "redbeat.RedBeatScheduler", "--loglevel", a.loglevel] + extra)
    return []


def check_commands() -> list[str]:
    """Every command the Dockerfile, compose.yaml and k8s/ run is a real command line."""
    errors = []
    for where, argv in blogharvest_commands():
        errors += check_blogharvest_argv(where, argv)
    for where, argv, env in celery_commands():
        errors += check_celery_argv(where, argv, env)
    return errors


#: Environment variables the code reads that are not BLOGHARVEST_* (those are found in the source).
OTHER_ENV = {"REDIS_URL", "SELENIUM_REMOTE_URL", "XDG_CACHE_HOME", "PYTHONUNBUFFERED",
             "PYTHONDONTWRITEBYTECODE", "PATH", "REMAP_SIGTERM"}


def known_blogharvest_env() -> set[str]:
    names = set()
    for py in list((REPO / "workers").glob("*.py")) + list((REPO / "tasks").glob("*.py")):
        names |= set(re.findall(r"BLOGHARVEST_[A-Z0-9_]+", py.read_text(encoding="utf-8")))
    return names


def check_env_names(docs: list[dict] | None = None) -> list[str]:
    """Every BLOGHARVEST_* variable the deployment sets is one the code reads (typos)."""
    known = known_blogharvest_env()
    docs = render_kustomization() if docs is None else docs
    sets = []
    for d in docs:
        if d["kind"] == "ConfigMap":
            sets += [(_name(d), k) for k in d.get("data") or {}]
        for c in containers(d):
            sets += [(f"{_name(d)}[{c['name']}]", e["name"]) for e in c.get("env") or []]
    for name, s in interpolate_defaults(load_compose())["services"].items():
        sets += [(f"compose {name}", k) for k in s.get("environment") or {}]
    for i in parse_dockerfile():
        if i["instruction"] == "ENV":
            sets += [(f"Dockerfile {i['stage']}", k) for k in re.findall(r"(\w+)=", i["value"])]
    return [f"{where}: {k} is not read by blogharvest" for where, k in sets
            if k.startswith("BLOGHARVEST_") and k not in known]


# ---------------------------------------------------------------------------- main

def run_all(check_kubectl: bool = True) -> dict[str, list[str]]:
    """Every check; {check name: errors}."""
    results: dict[str, list[str]] = {}
    variants = {"k8s": [], "k8s+hpa": [HPA_COMPONENT]}
    for label, comps in variants.items():
        try:
            docs = render_kustomization(components=comps)
        except ManifestError as e:
            results[f"{label} render"] = [str(e)]
            continue
        results[f"{label} schemas"] = validate_schemas(docs)
        results[f"{label} references"] = check_references(docs)
        results[f"{label} pod security"] = check_pod_security(docs)
        results[f"{label} workers"] = check_workers(docs)
        results[f"{label} network"] = check_network(docs)
        if check_kubectl:
            try:
                other = render_with_kubectl(components=comps)
            except ManifestError as e:
                results[f"{label} kustomize"] = [str(e)]
            else:
                if other is not None:
                    results[f"{label} kustomize"] = same_objects(docs, other)
    results["compose"] = check_compose()
    results["Dockerfile"] = check_dockerfile()
    results["environment names"] = check_env_names()
    try:
        results["commands"] = check_commands() if blogharvest_commands() else ["no blogharvest command found"]
    except (ManifestError, KeyError) as e:
        results["commands"] = [f"cannot collect commands: {e!r}"]
    return results


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--no-kubectl", action="store_true", help="skip the cross-check with `kubectl kustomize`")
    ap.add_argument("--list-commands", action="store_true", help="print the blogharvest commands found and exit")
    a = ap.parse_args(argv)
    if a.list_commands:
        for where, args in blogharvest_commands():
            print(f"{where}: blogharvest {shlex.join(args)}")
        return 0
    failed = 0
    if shutil.which("kubectl") is None and not a.no_kubectl:
        print("note: kubectl not on PATH: rendered with the Python renderer only")
    for name, errors in run_all(check_kubectl=not a.no_kubectl).items():
        print(f"{'FAIL' if errors else 'ok  '} {name}")
        for e in errors:
            print(f"     {e}")
        failed += bool(errors)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
