"""A sample of objects through the real kube-apiserver of each release (dry-run creates, no webhook
registered), each verdict compared with our offline verdict for the same release and profile: allowed,
the multiset of (field, cause type), and warnings.

The sample: the project's own tables (tests/cases_1_3X.py, the create cases), the field corpus
(tests/data/field) and the examples (examples/), plus objects generated from the valid ones with a fixed
seed: one field each moved across a limit, a format, an enum, a list size, or dropped.

    .venv/bin/python tests/apiserver_sample.py [--releases 1.34,1.35,1.36,1.37] [--generated N] [--seed S]
        [--gates default|all] [--show-disagreements]

prints the counts per release and kind (needs the releases' kube-apiserver built: `make upstream`, with
UPSTREAM_SERVER_RELEASES for the releases other than 1.36). `make test` runs a small fixed-seed sample
of 1.36 (tests/test_apiserver_sample.py).
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import re
import sys
import tempfile
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import realserver  # noqa: E402
from realserver import BETA_APIS, GROUP, RESOURCES  # noqa: E402

ROOT = HERE.parent
NAMESPACE = "sample"
# Namespace labels both sides know: the sample's namespace exists, unlabelled (admin access is refused there).
NAMESPACES = {NAMESPACE: {}, "default": {}, "kube-system": {}, "kube-public": {}, "kube-node-lease": {}}


@dataclass
class Verdict:
    allowed: bool
    causes: Counter
    warnings: frozenset
    code: int = 0
    message: str = ""
    notes: frozenset = frozenset()  # ours only: the warnings addressed to the user of this tool

    def key(self) -> tuple:
        return self.allowed, tuple(sorted(self.causes.items())), tuple(sorted(self.warnings))


@dataclass
class Compared:
    source: str
    kind: str
    server: Verdict
    ours: Verdict
    obj: dict = field(repr=False, default_factory=dict)
    release: str = ""

    @property
    def agree(self) -> bool:
        return self.server.key() == self.ours.key() and self.server.allowed == (self.server.code in (200, 201))


# --- the sample ------------------------------------------------------------------------------------------

def _dra(obj) -> bool:
    return (isinstance(obj, dict) and isinstance(obj.get("apiVersion"), str)
            and obj["apiVersion"].startswith(GROUP + "/") and obj.get("kind") in RESOURCES)


def table_objects() -> list[tuple[str, dict]]:
    import cases_1_34
    import cases_1_35
    import cases_1_37

    out = []
    for module in (cases_1_34, cases_1_35, cases_1_37):
        for case in module.CASES:
            if getattr(case, "old", None) is None and not getattr(case, "sub_resource", "") and _dra(case.obj):
                out.append((f"{module.__name__}:{case.name}", case.obj))
    return out


def file_objects() -> list[tuple[str, dict]]:
    out = []
    for base in (ROOT / "tests" / "data" / "field", ROOT / "examples"):
        for path in sorted(base.rglob("*")):
            if path.suffix not in (".yaml", ".yml", ".json") or not path.is_file():
                continue
            try:
                docs = list(yaml.safe_load_all(path.read_text()))
            except (yaml.YAMLError, UnicodeDecodeError):
                continue
            for i, doc in enumerate(docs):
                if _dra(doc):
                    out.append((f"{path.relative_to(ROOT)}#{i}", doc))
    return out


# metav1.Time texts, well-formed and not (Go's time.Parse(time.RFC3339, ...) decides), for the timestamps; and values
# that are not text (the error of decoding a string, with the field's context).
TIMES = (5, True, {"seconds": 1},
         "1.2.3", "", "2020-13-01T00:00:00Z", "2020-02-30T00:00:00Z", "2020-02-29T00:00:00Z", "2021-02-29T00:00:00Z",
         "2020-01-01T24:00:00Z", "2020-01-01T00:60:00Z", "2020-01-01T00:00:60Z", "2020-01-01T00:00:00.5Z",
         "2020-01-01T00:00:00+25:00", "2020-01-01T00:00:00+01:61", "2020-01-01T00:00:00+01:00x",
         "2020-01-01 00:00:00Z", "2020-01-01T00:00:00", "20200-01-01T00:00:00Z", "2020-1-01T00:00:00Z",
         "2020-01-01T00:00:00,5Z", "2020-01-01T00:00:00-00:00", "2020-00-10T00:00:00Z", "2020-01-01T00:00:00z")


def time_objects() -> list[tuple[str, dict]]:
    """Each of TIMES as a DeviceClass's creationTimestamp and as a ResourceSlice device taint's timeAdded."""
    out = []
    for i, text in enumerate(TIMES):
        out.append((f"times: creationTimestamp {text!r}", {
            "apiVersion": f"{GROUP}/v1", "kind": "DeviceClass",
            "metadata": {"name": f"time-{i}", "creationTimestamp": text}, "spec": {}}))
        out.append((f"times: timeAdded {text!r}", {
            "apiVersion": f"{GROUP}/v1", "kind": "ResourceSlice", "metadata": {"name": f"time-{i}"},
            "spec": {"driver": "gpu.example.com", "nodeName": "node-1",
                     "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
                     "devices": [{"name": "gpu-0", "taints": [{"key": "example.com/broken", "effect": "NoSchedule",
                                                               "timeAdded": text}]}]}}))
    return out


def null_objects() -> list[tuple[str, dict]]:
    """JSON nulls as list elements and map values in each version, decoded by that version's own types (v1beta1:
    a request's flat fields, a device's `basic`): Go leaves zero values there, which validation then judges."""
    out = []
    for version in ("v1beta1", "v1beta2", "v1"):
        flat = version == "v1beta1"
        exact = {"deviceClassName": "gpu.example.com", "selectors": [None], "tolerations": [None],
                 "capacity": {"requests": {"memory": None}}}
        request = {"name": "gpu", **exact} if flat else {"name": "gpu", "exactly": exact}
        out.append((f"nulls: {version} claim requests", {
            "apiVersion": f"{GROUP}/{version}", "kind": "ResourceClaim", "metadata": {"name": f"nulls-{version}"},
            "spec": {"devices": {"requests": [request, None],
                                 "constraints": [{"requests": [None], "matchAttribute": "dra.example.com/numa"}]}}}))
        device = {"attributes": {"model": None, "index": {"int": 1}}, "capacity": {"memory": None},
                  "taints": [None]}
        out.append((f"nulls: {version} slice device", {
            "apiVersion": f"{GROUP}/{version}", "kind": "ResourceSlice", "metadata": {"name": f"nulls-{version}"},
            "spec": {"driver": "gpu.example.com", "nodeName": "node-1",
                     "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
                     "devices": [{"name": "gpu-0", "basic": device} if flat else {"name": "gpu-0", **device},
                                 None]}}))
        out.append((f"nulls: {version} class selectors and labels", {
            "apiVersion": f"{GROUP}/{version}", "kind": "DeviceClass",
            "metadata": {"name": f"nulls-{version}", "labels": {"app": None}},
            "spec": {"selectors": [None], "config": [None]}}))
    return out


# Values a generated object puts in place of one field, by the type found there.
_STRINGS = ("", "x" * 63, "x" * 64, "a" * 253, "a" * 254, "Bad_Name", "a/b/c", "-start", "ünïcode", "1Gi", "-1",
            "device.driver == ", "true", "NoExecute", "Exists", "ExactCount", "All", "1.2.3", "0" * 300)
_INTS = (-1, 0, 1, 2, 33, 64, 65, 128, 129, 2 ** 31, 2 ** 63 - 1)


def _leaves(value, path=()):
    if isinstance(value, dict):
        yield path, value
        for key, child in value.items():
            yield from _leaves(child, path + (key,))
    elif isinstance(value, list):
        yield path, value
        for i, child in enumerate(value):
            yield from _leaves(child, path + (i,))
    else:
        yield path, value


def _set(obj, path, value):
    target = obj
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value


def mutate(obj: dict, rng: random.Random, roots: tuple[str, ...] = ("spec", "metadata")) -> tuple[str, dict] | None:
    """One field of a copy of `obj` (under `roots`) moved: its value replaced, its list grown or emptied, or
    removed."""
    out = copy.deepcopy(obj)
    spots = [(p, v) for p, v in _leaves(out) if p and p[0] in roots and p not in (
        ("metadata",), ("metadata", "namespace"))]
    if not spots:
        return None
    path, value = rng.choice(spots)
    where = ".".join(map(str, path))
    if isinstance(value, bool):
        change, new = "flipped", not value
    elif isinstance(value, int):
        new = rng.choice(_INTS)
        change = f"= {new}"
    elif isinstance(value, str):
        new = rng.choice(_STRINGS)
        change = f"= {new[:20]!r}"
    elif isinstance(value, list):
        choice = rng.randrange(3)
        if choice == 0 or not value:
            new, change = [], "emptied"
        elif choice == 1:
            new, change = value + [copy.deepcopy(value[-1])], "last item repeated"
        else:
            count = rng.choice((9, 33, 65, 129, 257))
            new, change = (value * (count // len(value) + 1))[:count], f"grown to {count}"
    elif isinstance(value, dict):
        if value and rng.random() < 0.5:
            key = rng.choice(sorted(value))
            del value[key]
            return f"{where}.{key} removed", out
        new, change = {}, "emptied"
    else:
        new, change = "x", "= 'x'"
    _set(out, path, new)
    return f"{where} {change}", out


def sample(generated: int, seed: int) -> list[tuple[str, dict]]:
    """Every table and file object, the timestamps and nulls, then `generated` mutations of the valid-looking ones
    (fixed seed)."""
    base = table_objects() + file_objects()
    rng = random.Random(seed)
    out = base + time_objects() + null_objects()
    fixed = len(out)
    tries = 0
    while len(out) < fixed + generated and tries < generated * 10:
        tries += 1
        source, obj = rng.choice(base)
        moved = mutate(obj, rng)
        if moved is not None:
            out.append((f"{source} [{moved[0]}]", moved[1]))
    return out


# --- verdicts --------------------------------------------------------------------------------------------

def placed(obj: dict) -> dict:
    """Namespaced objects in the sample's namespace (the API server needs it to exist), without a
    resourceVersion: a dry-run create never reaches etcd3's Create, which refuses one (a real create is
    refused with a 500, which our verdict says; a dry run accepts it: DryRunnableStorage.Create)."""
    out = copy.deepcopy(obj)
    if isinstance(out.get("metadata"), dict):
        out["metadata"].pop("resourceVersion", None)
    if RESOURCES[out["kind"]][1] and isinstance(out.get("metadata"), dict):
        out["metadata"]["namespace"] = NAMESPACE
    return out


# What a request gets when the API server's handler panics: it recovers, and the connection is dropped
# (kube-apiserver 1.36.3 divides by zero on a consumable-capacity validRange with step 0).
DROPPED = "connection dropped without a response (the API server's handler panicked)"


def server_verdict(plane: realserver.ControlPlane, obj: dict) -> Verdict:
    try:
        reply = plane.create(obj, dry_run=True, namespace=NAMESPACE if RESOURCES[obj["kind"]][1] else "")
    except httpx.RemoteProtocolError:
        return Verdict(False, Counter(), frozenset(), 0, DROPPED)
    return _verdict_of(reply)


def _verdict_of(reply: httpx.Response) -> Verdict:
    texts = frozenset(realserver.warnings(reply))
    if reply.status_code in (200, 201):
        return Verdict(True, Counter(), texts, reply.status_code)
    try:
        status = reply.json()
    except ValueError:
        status = {"message": reply.text}
    causes = Counter((c.get("field", ""), c.get("reason", "")) for c in (status.get("details") or {}).get("causes") or [])
    return Verdict(False, causes, texts, reply.status_code, status.get("message", ""))


def our_verdict(obj: dict, profile, body: dict | None = None) -> Verdict:
    from support import review_body
    from webhook import admit
    from webhook.review import decode_review

    request = decode_review(body or review_body(obj))
    response = admit.review_manifest(request, profile=profile, namespace=NAMESPACE, namespaces=NAMESPACES)
    status = response.status or {}
    causes = Counter((c.get("field", ""), c.get("reason", ""))
                     for c in (status.get("details") or {}).get("causes") or [])
    # Notes addressed to the user of this tool ("dra-webhook: ...") are ours alone, never the API server's.
    texts = frozenset(w for w in response.warnings if not w.startswith("dra-webhook:"))
    return Verdict(response.allowed, causes, texts, status.get("code", 200), status.get("message", ""),
                   frozenset(response.warnings) - texts)


def compare(plane: realserver.ControlPlane, objects: list[tuple[str, dict]], profile) -> list[Compared]:
    out = []
    for source, obj in objects:
        if not isinstance(obj.get("metadata"), dict):
            continue
        obj = placed(obj)
        out.append(Compared(source, obj["kind"], server_verdict(plane, obj), our_verdict(obj, profile), obj,
                            profile.version))
    return out


def server_update(plane: realserver.ControlPlane, new: dict) -> Verdict:
    try:
        reply = plane.update(new, dry_run=True, namespace=NAMESPACE if RESOURCES[new["kind"]][1] else "")
    except httpx.RemoteProtocolError:
        return Verdict(False, Counter(), frozenset(), 0, DROPPED)
    return _verdict_of(reply)


def our_update(new: dict, old: dict, profile) -> Verdict:
    from support import review_body

    return our_verdict(new, profile, body=review_body(new, operation="UPDATE", old=old))


def compare_updates(plane: realserver.ControlPlane, results: list[Compared], profile, count: int,
                    seed: int) -> list[Compared]:
    """Updates: objects the API server accepted are stored (a real create), then a copy with one `spec` field
    moved is sent as a dry-run update, against our verdict for that UPDATE with the stored object as old."""
    rng = random.Random(seed)
    accepted = [r for r in results if r.server.allowed and r.server.code == 201 and not r.source.startswith("times:")]
    out = []
    for r in rng.sample(accepted, min(count, len(accepted))):
        namespace = NAMESPACE if RESOURCES[r.kind][1] else ""
        created = plane.create(r.obj, namespace=namespace)
        if created.status_code != 201:
            continue
        stored = created.json()
        stored["apiVersion"] = r.obj["apiVersion"]  # the API server answers in the version asked
        try:
            moved = mutate(stored, rng, roots=("spec",))
            if moved is None:
                continue
            change, new = moved
            out.append(Compared(f"update {r.source} [{change}]", r.kind, server_update(plane, new),
                                our_update(new, stored, profile), new, profile.version))
        finally:
            plane.delete(r.kind, stored["metadata"]["name"], namespace=namespace)
    return out


def gates_text(release: str, gates: str) -> str:
    from webhook.profile import GATES

    if gates == "all":
        return ",".join(f"{name}=true" for name in sorted(GATES[release]))
    return ""


def run(release: str, generated: int, seed: int, gates: str = "default", workdir: Path | None = None,
        updates: int | None = None) -> list[Compared]:
    """Creates of the sample, then `updates` updates (default: a tenth of the generated objects, at least 20)."""
    workdir = workdir or Path(tempfile.mkdtemp(prefix=f"sample-{release}-"))
    runtime = BETA_APIS + (",resource.k8s.io/v1alpha3=true" if gates == "all" else "")
    server_gates = gates_text(release, gates)
    if "DRAWorkloadResourceClaims=true" in server_gates:
        # kube-apiserver refuses to start with it and GenericWorkload (not a DRA gate, unknown to our profile) off,
        # and is never ready without the Workload API that gate serves
        server_gates += ",GenericWorkload=true"
        server_runtime = runtime + {"1.36": ",scheduling.k8s.io/v1alpha2=true"}.get(
            release, ",scheduling.k8s.io/v1alpha3=true,scheduling.k8s.io/v1beta1=true")
    else:
        server_runtime = runtime
    plane = realserver.ControlPlane.start(workdir, release, feature_gates=server_gates, runtime_config=server_runtime)
    try:
        plane.ensure_namespace(NAMESPACE)
        from webhook.drivers.registry import DriverSource
        from webhook.profile import make_profile

        # No driver profiles: the drivers' parameters are the webhook's own check, which the API server never makes.
        profile = make_profile(release, gates_text(release, gates), runtime_config=runtime,
                               drivers=DriverSource(bundled=False))
        results = compare(plane, sample(generated, seed), profile)
        wanted = max(20, generated // 10) if updates is None else updates
        return results + compare_updates(plane, results, profile, wanted, seed)
    finally:
        plane.stop()


DIFFERENCES = yaml.safe_load((HERE / "data" / "apiserver_differences.yaml").read_text())
_NODE_NOT_FOUND = re.compile(r'is forbidden: node "[^"]*" not found for device "')
_PANIC_FIELD = re.compile(r"\.requestPolicy\.validRange\.step$")


def explain(r: Compared) -> list[str] | None:
    """The differences of tests/data/apiserver_differences.yaml that account for a disagreement: with each
    one's part taken out, the verdicts agree. None: not accounted for."""
    server = copy.deepcopy(r.server)
    ours = copy.deepcopy(r.ours)
    tags = []
    if server.message == DROPPED and not ours.allowed and any(
            reason == "InternalError" and _PANIC_FIELD.search(f) for f, reason in ours.causes):
        tags.append("upstream-panic-step-zero")
        server = ours
    if server.code == 404 and "/v1alpha3" in r.obj.get("apiVersion", "") and r.kind in (
            "DeviceTaintRule", "ResourcePoolStatusRequest") and any(
            note.startswith(f"dra-webhook: {GROUP}/v1alpha3 {r.kind} is served only by clusters with ")
            for note in ours.notes):
        tags.append("unserved-kind")
        server = ours
    if server.code == 403 and _NODE_NOT_FOUND.search(server.message) and r.kind == "ResourceSlice" and ours.allowed:
        tags.append("node-declared-features-admission")
        server = ours
    dropped = {w for w in ours.warnings - server.warnings if " dropped: feature gate " in w}
    if dropped:
        tags.append("dropped-field-note")
        ours.warnings = ours.warnings - dropped
    if server.code == ours.code == 400 and server.message == ours.message and not server.causes:
        if ours.causes or ours.warnings - server.warnings:
            tags.append("decode-error-causes")
            ours.causes, ours.warnings = Counter(), server.warnings
    server.code = ours.code = 0  # 201 vs 200: created vs allowed
    return tags if tags and server.key() == ours.key() else None


def summary(release: str, results: list[Compared]) -> str:
    by_kind: dict[str, Counter] = {}
    for r in results:
        by_kind.setdefault(r.kind, Counter())["agree" if r.agree else "disagree"] += 1
        by_kind[r.kind]["allowed" if r.server.allowed else "denied"] += 1
    explained = Counter(tag for r in results if not r.agree for tag in (explain(r) or ["UNEXPLAINED"]))
    same_verdict = sum(r.server.allowed == r.ours.allowed and r.server.causes == r.ours.causes for r in results)
    lines = [f"{release}: {len(results)} objects, {same_verdict} with the same allowed and causes, "
             f"{sum(r.agree for r in results)} agree in everything (warnings too), "
             f"{sum(not r.agree for r in results)} disagree, {explained.pop('UNEXPLAINED', 0)} unexplained; "
             f"explained: {dict(sorted(explained.items()))}"]
    updates = [r for r in results if r.source.startswith("update ")]
    lines.append(f"  updates: {len(updates)} ({sum(not r.server.allowed for r in updates)} refused), "
                 f"{sum(r.agree for r in updates)} agree, {sum(not r.agree and explain(r) is None for r in updates)} "
                 f"unexplained")
    for kind in sorted(by_kind):
        c = by_kind[kind]
        lines.append(f"  {kind:28} {c['agree'] + c['disagree']:5} objects ({c['allowed']} allowed, {c['denied']} denied): "
                     f"{c['agree']} agree, {c['disagree']} disagree")
    return "\n".join(lines)


def describe(r: Compared) -> str:
    return json.dumps({"source": r.source, "kind": r.kind,
                       "server": {"allowed": r.server.allowed, "code": r.server.code, "causes": sorted(r.server.causes.items()),
                                  "warnings": sorted(r.server.warnings), "message": r.server.message[:400]},
                       "ours": {"allowed": r.ours.allowed, "code": r.ours.code, "causes": sorted(r.ours.causes.items()),
                                "warnings": sorted(r.ours.warnings), "message": r.ours.message[:400]}}, default=str)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--releases", default="1.34,1.35,1.36,1.37")
    parser.add_argument("--generated", type=int, default=1000, help="generated objects per release")
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--gates", choices=("default", "all"), default="default")
    parser.add_argument("--show-disagreements", action="store_true")
    args = parser.parse_args(argv)
    failed = False
    for release in args.releases.split(","):
        if realserver.binaries(release) is None:
            print(f"{release}: kube-apiserver not built ({realserver.HOW_TO_GET})")
            failed = True
            continue
        results = run(release, args.generated, args.seed, args.gates)
        print(summary(release, results), flush=True)
        if args.show_disagreements:
            for r in results:
                if not r.agree and explain(r) is None:
                    print("  " + describe(r))
        failed |= any(not r.agree and explain(r) is None for r in results)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
