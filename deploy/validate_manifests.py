"""Offline checks of blogharvest's deployment files: `python deploy/validate_manifests.py`.

No cluster and no container engine are needed, but a kustomize is: k8s/ is rendered by
`kubectl kustomize` (the renderer `kubectl apply -k` runs) or a `kustomize` binary; without
either the check says so and fails. Every object is validated against the Kubernetes schemas
that `kubernetes-validate` ships (strict: unknown fields are errors), KEDA's objects
against k8s/schemas/, and compose.yaml against deploy/compose.schema.json.

The project's own checks across objects and files (references, pod security, graceful
worker shutdown, the network, the commands the files run) are in tests/deploy/checks.py,
run by `python -m pytest -q tests/deploy`; they use this module's renderings and parsers
and the `blogharvest` and `celery` commands it finds (`--list-commands` prints those).
"""
from __future__ import annotations

import argparse
import copy
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

#: Every object must satisfy the schemas of the oldest Kubernetes still common on managed
#: clusters and of the newest that kubernetes-validate ships ("latest").
K8S_VERSIONS = ("1.28", "latest")

#: Custom resources have no schema in kubernetes-validate: ours are kept in the repo.
CRD_SCHEMAS = {
    ("keda.sh/v1alpha1", "ScaledObject"): K8S_DIR / "schemas" / "keda-scaledobject.json",
    ("keda.sh/v1alpha1", "TriggerAuthentication"): K8S_DIR / "schemas" / "keda-triggerauthentication.json",
}

WORKLOAD_KINDS = {"Deployment", "StatefulSet", "DaemonSet", "Job", "ReplicaSet"}


class ManifestError(Exception):
    """A file cannot be rendered or parsed at all."""


def name_of(doc: dict) -> str:
    return f"{doc.get('kind')}/{(doc.get('metadata') or {}).get('name')}"


# --------------------------------------------------------------------------- rendering

def kustomize_command() -> list[str] | None:
    """The real kustomize on PATH: kubectl's own first (what `kubectl apply -k` runs)."""
    return next(([shutil.which(exe), sub] for exe, sub in (("kubectl", "kustomize"), ("kustomize", "build"))
                 if shutil.which(exe)), None)


NO_KUSTOMIZE = ("no kustomize: k8s/ cannot be rendered. Install kubectl (`kubectl kustomize`, what "
                "`kubectl apply -k` runs) or a `kustomize` binary and put it on PATH")


def render(directory: Path = K8S_DIR, components: list[Path] = ()) -> list[dict]:
    """The objects of a kustomization, rendered by kustomize. `components` are added the
    way an overlay adds them (how one uses k8s/hpa)."""
    cmd = kustomize_command()
    if cmd is None:
        raise ManifestError(NO_KUSTOMIZE)
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(directory)
        if components:  # kustomize wants relative paths and no parent-of-itself cycles
            rel = lambda p: os.path.relpath(Path(p).resolve(), tmp)  # noqa: E731
            (Path(tmp) / "kustomization.yaml").write_text(yaml.safe_dump(
                {"resources": [rel(directory)], "components": [rel(c) for c in components]}))
            target = Path(tmp)
        out = subprocess.run(cmd + [str(target)], capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise ManifestError(f"{' '.join(cmd[1:])} {directory}: {out.stderr.strip()}")
    return [d for d in yaml.safe_load_all(out.stdout) if d]


# ----------------------------------------------------------------------------- schemas

def _schema_errors(schema_path: Path, doc, where: str) -> list[str]:
    import jsonschema

    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    return [f"{where}: {'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in jsonschema.Draft202012Validator(schema).iter_errors(doc)]


def validate_schemas(docs: list[dict], versions=K8S_VERSIONS) -> list[str]:
    """Each object against Kubernetes' schemas (strict) or, for KEDA's, k8s/schemas/."""
    import kubernetes_validate

    errors = []
    for d in docs:
        crd = CRD_SCHEMAS.get((d.get("apiVersion"), d.get("kind")))
        if crd:
            errors += _schema_errors(crd, d, name_of(d))
            continue
        for v in versions:
            version = kubernetes_validate.latest_version() if v == "latest" else v
            try:
                kubernetes_validate.validate(d, version, strict=True)
            except kubernetes_validate.ValidationError as e:
                errors.append(f"{name_of(d)} (k8s {version}): {'/'.join(map(str, e.absolute_path))}: {e.message}")
            except kubernetes_validate.SchemaNotFoundError as e:
                errors.append(f"{name_of(d)}: {e.message}")
    return errors


_INTERPOLATION = re.compile(r"\$(\$|\{([^}]*)\}|[A-Za-z_][A-Za-z0-9_]*)")


def load_compose(path: Path = COMPOSE_FILE) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))  # SafeLoader resolves anchors and `<<`


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


def validate_compose(path: Path = COMPOSE_FILE, schema_path: Path = COMPOSE_SCHEMA) -> list[str]:
    """compose.yaml against the Compose schema kept in deploy/; every variable has a default."""
    errors = [f"compose: variable {m.group(0)} has no default (use ${{VAR:-default}}, or $$ for a literal $)"
              for m in _INTERPOLATION.finditer(path.read_text(encoding="utf-8"))
              if m.group(1) != "$" and not (m.group(2) and ":-" in m.group(2))]
    return errors + _schema_errors(schema_path, load_compose(path), "compose")


# ---------------------------------------------------------------------------- Dockerfile

def parse_dockerfile(path: Path = DOCKERFILE) -> list[dict]:
    """Instructions as {"stage", "instruction", "value"}: continuation lines joined, comments dropped."""
    out, stage, buf = [], None, ""
    for raw in path.read_text(encoding="utf-8").splitlines():
        s = raw.strip()
        if s.startswith("#") or not (s or buf):
            continue
        if s.endswith("\\"):
            buf += s[:-1].rstrip() + " "
            continue
        instr, _, value = (buf + s).partition(" ")
        buf = ""
        if instr.upper() == "FROM":
            parts = value.split()
            stage = parts[2] if len(parts) >= 3 and parts[1].lower() == "as" else parts[0]
        out.append({"stage": stage, "instruction": instr.upper(), "value": value.strip()})
    return out


def _exec_form(value: str) -> list[str] | str:
    try:
        v = json.loads(value)
    except ValueError:
        return value
    return v if isinstance(v, list) and all(isinstance(x, str) for x in v) else value


def dockerfile_stages(path: Path = DOCKERFILE) -> dict[str, dict]:
    """Per stage (and "__final__", the default target): image, parent stage, user,
    entrypoint, cmd, healthcheck, runs and copies, as inherited from the parent stage."""
    instrs = parse_dockerfile(path)
    args = {k: v for k, _, v in (i["value"].partition("=") for i in instrs
                                 if i["instruction"] == "ARG" and i["stage"] is None)}
    stages: dict[str, dict] = {}
    for i in instrs:
        kind, value = i["instruction"], i["value"]
        if i["stage"] is None:
            continue
        if kind == "FROM":
            base = re.sub(r"\$\{(\w+)\}", lambda m: args.get(m.group(1), ""), value.split()[0])
            parent = stages.get(base)
            st = copy.deepcopy(parent) if parent else {
                "image": base, "user": "root", "entrypoint": None, "cmd": None, "healthcheck": None,
                "runs": [], "copies": []}
            stages[i["stage"]] = {**st, "parent": base if parent else None}
            continue
        st = stages[i["stage"]]
        if kind == "USER":
            st["user"] = value
        elif kind == "ENTRYPOINT":
            st["entrypoint"], st["cmd"] = _exec_form(value), None
        elif kind == "CMD":
            st["cmd"] = _exec_form(value)
        elif kind == "HEALTHCHECK":
            m = re.search(r"\bCMD\s+(.*)$", value)
            st["healthcheck"] = _exec_form(m.group(1)) if m else value
        elif kind in ("RUN", "COPY"):
            st["runs" if kind == "RUN" else "copies"].append(value)
    stages["__final__"] = stages[[i["stage"] for i in instrs if i["instruction"] == "FROM"][-1]]
    return stages


# ---------------------------------------------------------------- the commands the files run

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


def split_image(image: str) -> tuple[str, str | None, str | None]:
    """(name, tag, digest) of an image reference."""
    image, _, digest = image.partition("@")
    name, _, tag = image.rpartition(":") if ":" in image.rsplit("/", 1)[-1] else (image, "", "")
    return name, tag or None, digest or None


def is_blogharvest_image(image: str) -> bool:
    return split_image(image)[0].rsplit("/", 1)[-1].startswith("blogharvest")


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
        found, cur = [], None
        for t in shlex.split(argv[argv.index("-c") + 1]) + [";"]:
            if cur is not None and t in ("&&", "||", ";", "|", "&"):
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
    for name, s in interpolate_defaults(load_compose())["services"].items():
        if "entrypoint" in s:
            found += [(f"compose {name} entrypoint", a) for a in blogharvest_argv(s["entrypoint"], False)]
        if "command" in s:
            ep = is_blogharvest_image(s["image"]) and "entrypoint" not in s
            found += [(f"compose {name} command", a) for a in blogharvest_argv(s["command"], ep)]
        test = (s.get("healthcheck") or {}).get("test")
        if isinstance(test, list) and test[:1] in (["CMD"], ["CMD-SHELL"]):
            found += [(f"compose {name} healthcheck", a)
                      for a in blogharvest_argv(test[1:] if test[0] == "CMD" else test[1], False)]
    for label, comps in (("k8s", []), ("k8s+hpa", [HPA_COMPONENT])):
        for d in render(components=comps):
            for c in containers(d):
                where = f"{label} {name_of(d)}[{c['name']}]"
                cmd, args = c.get("command"), c.get("args") or []
                if cmd:
                    found += [(where, a) for a in blogharvest_argv(list(cmd) + list(args), False)]
                elif args:
                    found += [(where, a) for a in blogharvest_argv(list(args), is_blogharvest_image(c["image"]))]
                for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
                    pc = ((c.get(probe) or {}).get("exec") or {}).get("command")
                    found += [(f"{where} {probe}", a) for a in blogharvest_argv(pc or [], False)]
    return found


def container_env(docs: list[dict], c: dict) -> dict:
    """The literal environment of a container (ConfigMaps expanded; Secrets as None)."""
    cms = {d["metadata"]["name"]: d for d in docs if d["kind"] == "ConfigMap"}
    env = {}
    for ef in c.get("envFrom") or []:
        env.update((cms.get((ef.get("configMapRef") or {}).get("name")) or {}).get("data") or {})
    return env | {e["name"]: e.get("value") for e in c.get("env") or []}


def celery_commands(docs: list[dict] | None = None) -> list[tuple[str, list[str], dict]]:
    """(where, argv, environment) of every `celery ...` command compose.yaml and the k8s
    rendering run (Flower); the environment holds literal values, Secrets as None."""
    found = [(f"compose {name}", s["command"], dict(s.get("environment") or {}))
             for name, s in interpolate_defaults(load_compose())["services"].items()
             if isinstance(s.get("command"), list) and s["command"][:1] == ["celery"]]
    docs = render() if docs is None else docs
    for d in docs:
        for c in containers(d):
            argv, env = list(c.get("command") or []) + list(c.get("args") or []), container_env(docs, c)
            if argv[:1] == ["celery"]:  # $(VAR) is the kubelet's expansion of the container's env
                argv = [re.sub(r"\$\((\w+)\)", lambda m: env.get(m.group(1)) or "redis://x:6379/0", a) for a in argv]
                found.append((f"k8s {name_of(d)}[{c['name']}]", argv, env))
    return found


# ---------------------------------------------------------------------------------- main

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--list-commands", action="store_true", help="print the commands the files run and exit")
    a = ap.parse_args(argv)
    cmd = kustomize_command()
    if cmd is None:
        print(f"FAIL {NO_KUSTOMIZE}", file=sys.stderr)
        return 2
    if a.list_commands:
        for where, args in blogharvest_commands():
            print(f"{where}: blogharvest {shlex.join(args)}")
        for where, argv, _ in celery_commands():
            print(f"{where}: {shlex.join(argv)}")
        return 0
    print(f"rendering with {Path(cmd[0]).name} {cmd[1]}")
    results: dict[str, list[str]] = {}
    for label, comps in (("k8s", []), ("k8s+hpa", [HPA_COMPONENT])):
        try:
            results[f"{label} schemas"] = validate_schemas(render(components=comps))
        except ManifestError as e:
            results[f"{label} render"] = [str(e)]
    results["compose schema"] = validate_compose()
    try:  # parses the Dockerfile and compose.yaml, renders k8s/
        results["commands"] = [] if blogharvest_commands() and celery_commands() else ["no command found"]
    except (ManifestError, KeyError, IndexError, ValueError) as e:
        results["commands"] = [f"cannot collect the commands: {e!r}"]
    for name, errors in results.items():
        print(f"{'FAIL' if errors else 'ok  '} {name}" + "".join(f"\n     {e}" for e in errors))
    print("the project's own checks: python -m pytest -q tests/deploy")
    return 1 if any(results.values()) else 0

if __name__ == "__main__":
    sys.exit(main())
