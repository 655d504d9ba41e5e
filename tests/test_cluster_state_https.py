"""`serve --cluster-state` end to end: the webhook lists and watches the project's HTTPS test double of
kube-apiserver (tests/apiserver_double.py: real TLS, bearer token, list+watch with resourceVersion,
bookmarks and 410 Gone) through the real client library, and is called over verified TLS as the API
server calls it. No clock in any verdict: each wait polls for a state, bounded only against hanging."""

from __future__ import annotations

import time

import pytest

from apiserver_double import ApiServerDouble
from support import HANG_GUARD, cli, review_body, start_server, valid_slice
from tcprelay import Relay
from test_cluster_profile import GATES_1_34

WAIT = HANG_GUARD  # only a hang fails: no wait here is about speed


def gpu_class(name: str = "gpu") -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}}


def gpu_claim(class_name: str = "gpu", count: int = 1, selector: str | None = None, name: str = "train") -> dict:
    exactly = {"deviceClassName": class_name, "allocationMode": "ExactCount", "count": count}
    if selector:
        exactly["selectors"] = [{"cel": {"expression": selector}}]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"devices": {"requests": [{"name": "gpus", "exactly": exactly}]}}}


def state_warnings(server, obj: dict) -> list[str]:
    response = server.review("/validate", review_body(obj))
    return [w for w in response.get("warnings", []) if w.startswith("[") and not w.startswith("[profile-mismatch]")]


def wait_for(condition, what: str):
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"never: {what}")


def metric(server, name: str) -> float:
    for line in server.client.get(server.url + "/metrics").text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"no metric {name}")


def events_of(server, kind: str, event: str) -> float:
    """How many `event`s (relist: a list again after 410 Gone; bookmark) the watches of `kind` had (0 before the
    first)."""
    series = f'dra_webhook_cluster_state_events_total{{event="{event}",kind="{kind}"}} '
    lines = server.client.get(server.url + "/metrics").text.splitlines()
    return next((float(line.rsplit(" ", 1)[1]) for line in lines if line.startswith(series)), 0.0)


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    out = tmp_path_factory.mktemp("state-certs")
    assert cli("certs", "--out", str(out), "--hosts", "127.0.0.1").returncode == 0
    return out


@pytest.fixture(scope="module")
def cluster(certs, tmp_path_factory):
    """A 1.34 API server double with two GPUs published, and the webhook watching it."""
    workdir = tmp_path_factory.mktemp("state")
    double = ApiServerDouble(certs, git_version="v1.34.3", gates=dict(GATES_1_34)).start()
    double.put(valid_slice(devices=2))
    kubeconfig = double.kubeconfig(workdir / "kubeconfig")
    server = start_server(workdir, "--kubeconfig", str(kubeconfig), "--cluster-state", enforce=False)
    wait_for(lambda: "cluster state: synced" in server.client.get(server.url + "/readyz").text, "synced")
    yield double, server
    server.stop()
    double.stop()


def test_missing_class_warns_then_watch_events_remove_and_restore_it(cluster):
    double, server = cluster
    [warning] = state_warnings(server, gpu_claim("gpu"))
    assert warning.startswith("[missing-device-class] ResourceClaim request gpus: DeviceClass gpu does not exist")
    double.put(gpu_class())
    wait_for(lambda: not state_warnings(server, gpu_claim("gpu")), "the new class is seen")
    double.delete("DeviceClass", "gpu")
    wait_for(lambda: state_warnings(server, gpu_claim("gpu")), "the deleted class is missed again")
    double.put(gpu_class())
    wait_for(lambda: not state_warnings(server, gpu_claim("gpu")), "the class is back")


def test_three_gpus_on_a_cluster_with_two(cluster):
    double, server = cluster
    double.put(gpu_class())
    wait_for(lambda: not state_warnings(server, gpu_claim("gpu")), "the class is seen")
    [warning] = state_warnings(server, gpu_claim("gpu", count=3))
    assert warning.startswith("[count-above-devices] ResourceClaim request gpus (DeviceClass gpu): asks for 3 "
                              "devices, 2 in the whole cluster match: needs 3, 2 usable of 2 devices")


def test_unsatisfiable_and_unknown_attribute_with_the_allocators_reason(cluster):
    double, server = cluster
    double.put(gpu_class())
    wait_for(lambda: not state_warnings(server, gpu_claim("gpu")), "the class is seen")
    warnings = state_warnings(server, gpu_claim("gpu", selector='device.attributes["model"].name == "h100"'))
    assert any(w.startswith("[unsatisfiable] ResourceClaim request gpus: no device in the cluster can ever "
                            "satisfy it: gpus (DeviceClass gpu): needs 1, 0 usable of 2 devices:") for w in warnings)
    warnings = state_warnings(server, gpu_claim("gpu", selector='device.attributes["gpu.example.com"].modle == "a"'))
    assert any(w.startswith("[unknown-attribute] ResourceClaim request gpus: selectors[0] reads attribute "
                            "gpu.example.com/modle, which no device of DeviceClass gpu publishes (nearest "
                            "published: gpu.example.com/model") for w in warnings), warnings


def test_a_slice_change_is_seen_and_the_pool_checked(cluster):
    double, server = cluster
    double.put(gpu_class())
    bigger = valid_slice(devices=4)
    double.put(bigger)
    wait_for(lambda: not state_warnings(server, gpu_claim("gpu", count=3)), "the four GPUs are seen")
    other = valid_slice(devices=1, name="node-1-gpu-b")
    other["spec"]["pool"]["resourceSliceCount"] = 2
    other["spec"]["devices"][0]["name"] = "gpu-0"
    warnings = state_warnings(server, other)
    assert any(w.startswith("[pool] pool gpu.example.com/node-1: its slices disagree on resourceSliceCount")
               for w in warnings), warnings
    assert any(w.startswith("[pool] pool gpu.example.com/node-1: device name gpu-0 appears in") for w in warnings)
    double.put(valid_slice(devices=2))


def test_relist_after_410_keeps_the_cache_true(cluster):
    double, server = cluster
    double.put(gpu_class())
    wait_for(lambda: not state_warnings(server, gpu_claim("gpu")), "the class is seen")
    before = metric(server, "dra_webhook_cluster_state_relists")
    kinds = ("DeviceClass", "ResourceSlice", "DeviceTaintRule")
    relisted = {kind: events_of(server, kind, "relist") for kind in kinds}
    # Every watch has had a bookmark: none is a "very short watch" (ended at once, nothing received) when the
    # compaction ends it, which the webhook lists again at once, as client-go does, without asking for 410.
    bookmarks = {kind: events_of(server, kind, "bookmark") for kind in kinds}
    wait_for(lambda: all(events_of(server, kind, "bookmark") > bookmarks[kind] for kind in kinds),
             "a bookmark on every watch")
    double.compact()
    double.delete("DeviceClass", "gpu")  # an event after the compaction: seen only through the relist
    wait_for(lambda: metric(server, "dra_webhook_cluster_state_relists") >= before + len(kinds), "a relist of each")
    assert all(events_of(server, kind, "relist") == relisted[kind] + 1 for kind in kinds), "each watch got 410 once"
    wait_for(lambda: state_warnings(server, gpu_claim("gpu")), "the class deleted during the relist is missed")
    assert metric(server, "dra_webhook_cluster_state_synced") == 1.0
    assert metric(server, 'dra_webhook_cluster_state_objects{kind="ResourceSlice"}') == 1.0
    assert double.count("GET /apis/resource.k8s.io/v1/deviceclasses?") >= 2  # listed twice at least


def test_bookmarks_move_the_resource_version(cluster):
    double, server = cluster
    wait_for(lambda: metric(server, 'dra_webhook_cluster_state_events_total{event="bookmark",kind="DeviceClass"}')
             > 0, "a bookmark")
    watches = [r.lower() for r in double.requests if "watch=true" in r.lower()]
    assert watches and all("allowwatchbookmarks=true" in r and "resourceversion=" in r for r in watches)
    # Changes of other kinds move the revision; the DeviceClass watch hears of it only through bookmarks,
    # and resumes from there when its stream ends (not from its list's resourceVersion).
    double.put({"apiVersion": "resource.k8s.io/v1alpha3", "kind": "DeviceTaintRule", "metadata": {"name": "r"},
                "spec": {"deviceSelector": {"driver": "gpu.example.com"},
                         "taint": {"key": "example.com/t", "effect": "NoSchedule"}}})
    moved = double.revision
    seen = metric(server, 'dra_webhook_cluster_state_events_total{event="bookmark",kind="DeviceClass"}')
    wait_for(lambda: metric(server, 'dra_webhook_cluster_state_events_total{event="bookmark",kind="DeviceClass"}')
             > seen + 1, "a bookmark after the change")
    before = len(double.requests)
    double.end_watches()
    wait_for(lambda: [r for r in double.requests[before:] if "deviceclasses?" in r and "watch=True" in r],
             "the DeviceClass watch resumed")
    resumed = [r for r in double.requests[before:] if "deviceclasses?" in r and "watch=True" in r][0]
    version = int(resumed.split("resourceVersion=")[1].split("&")[0])
    assert version >= moved


def test_started_before_the_api_server_answers_on_time_then_warns(certs, tmp_path):
    double = ApiServerDouble(certs, git_version="v1.34.3", gates=dict(GATES_1_34))
    double.put(valid_slice(devices=2))
    kubeconfig = double.kubeconfig(tmp_path / "kubeconfig")
    server = start_server(tmp_path, "--kubeconfig", str(kubeconfig), "--cluster-state", "--kubernetes-version", "1.34",
                          enforce=False)
    try:
        for _ in range(5):
            response = server.review("/validate", review_body(gpu_claim("missing")))
            assert response["allowed"] is True
            assert not any(w.startswith("[missing-device-class]") for w in response.get("warnings", []))
        assert "cluster state: not synced" in server.client.get(server.url + "/readyz").text
        assert metric(server, "dra_webhook_cluster_state_synced") == 0.0
        double.start()
        wait_for(lambda: state_warnings(server, gpu_claim("missing")), "warnings once synced")
        assert "cluster state: synced" in server.client.get(server.url + "/readyz").text
    finally:
        server.stop()
        double.stop()


def test_deny_unsatisfiable(certs, tmp_path):
    double = ApiServerDouble(certs, git_version="v1.34.3", gates=dict(GATES_1_34)).start()
    double.put(valid_slice(devices=2))
    double.put(gpu_class())
    kubeconfig = double.kubeconfig(tmp_path / "kubeconfig")
    server = start_server(tmp_path, "--kubeconfig", str(kubeconfig), "--cluster-state", "--deny-unsatisfiable",
                          enforce=False)
    try:
        wait_for(lambda: "cluster state: synced" in server.client.get(server.url + "/readyz").text, "synced")
        response = server.review("/validate", review_body(gpu_claim("gpu", selector='device.attributes["model"]'
                                                                                    '.name == "h100"')))
        assert response["allowed"] is False and response["status"]["code"] == 403
        assert response["status"]["message"].startswith("dra-webhook: denied by --deny-unsatisfiable: ResourceClaim "
                                                        "request gpus: no device in the cluster can ever satisfy it")
        assert server.review("/validate", review_body(gpu_claim("gpu", count=2)))["allowed"] is True
    finally:
        server.stop()
        double.stop()


def test_a_silent_connection_is_dropped_and_listed_again(certs, tmp_path):
    """Between the webhook and the double, a TCP relay that goes silent (tests/tcprelay.py: the connections stay
    open and get no byte more, new ones are accepted and answered nothing). The watches ask the server to end
    them after 2 s and read with a timeout a bit longer (7 s): the silent watch is dropped, /readyz says why,
    and once the relay talks again the cache is listed afresh and sees what changed meanwhile."""
    double = ApiServerDouble(certs, git_version="v1.34.3", gates=dict(GATES_1_34)).start()
    double.put(valid_slice(devices=2))
    double.put(gpu_class())
    relay = Relay(double.port).open()
    kubeconfig = double.kubeconfig(tmp_path / "kubeconfig")
    kubeconfig.write_text(kubeconfig.read_text().replace(double.url, f"https://127.0.0.1:{relay.port}"))
    server = start_server(tmp_path, "--kubeconfig", str(kubeconfig), "--cluster-state",
                          "--cluster-state-watch-timeout", "2", enforce=False)

    def requests(kind: str, watch: bool) -> list[str]:
        return [r for r in list(double.requests) if f"/{kind}?" in r and ("watch=True" in r) == watch]

    def readyz() -> str:
        return server.client.get(server.url + "/readyz").text

    try:
        wait_for(lambda: "cluster state: synced" in readyz(), "synced")
        assert not state_warnings(server, gpu_claim("gpu"))
        lists = len(requests("deviceclasses", watch=False))
        # The server ends each watch at its timeoutSeconds; it is resumed from where it was, not listed again.
        wait_for(lambda: len(requests("deviceclasses", watch=True)) >= 3, "three watches of DeviceClasses")
        assert all("timeoutSeconds=2&" in r + "&" for r in requests("deviceclasses", watch=True))
        assert len(requests("deviceclasses", watch=False)) == lists
        assert metric(server, 'dra_webhook_cluster_state_events_total{event="resumed",kind="DeviceClass"}') >= 2
        assert 0 <= metric(server, "dra_webhook_cluster_state_silence_seconds")

        relay.freeze()
        double.delete("DeviceClass", "gpu")  # unheard while the relay is silent
        text = wait_for(lambda: (lambda t: t if "not synced" in t else None)(readyz()), "the silence noticed")
        assert "the watch was silent: nothing from the API server (an answer, an event, a bookmark, the end of " \
               "the watch) for 7 s; listing again" in text, text
        assert metric(server, "dra_webhook_cluster_state_synced") == 0.0
        assert metric(server, "dra_webhook_cluster_state_silence_seconds") >= 5  # 7 s less what parsing took
        assert sum(metric(server, f'dra_webhook_cluster_state_events_total{{event="silent",kind="{kind}"}}')
                   for kind in ("DeviceClass", "ResourceSlice")) >= 1
        assert not state_warnings(server, gpu_claim("gpu"))  # unsynced: no state warnings, stale or not

        relay.thaw()
        [warning] = wait_for(lambda: state_warnings(server, gpu_claim("gpu")), "the deletion seen through a list")
        assert warning.startswith("[missing-device-class] ResourceClaim request gpus: DeviceClass gpu does not exist")
        assert len(requests("deviceclasses", watch=False)) > lists
        wait_for(lambda: "cluster state: synced" in readyz(), "synced again")
    finally:
        server.stop()
        relay.close()
        double.stop()


def test_taints_from_the_watch_warn_as_the_allocator_judges_them(certs, tmp_path):
    """A 1.37 cluster (DRADeviceTaints and DRADeviceTaintRules on): a DeviceTaintRule created, a toleration, the
    rule deleted, a driver's own taint in a slice update: each seen through the watch. A claim kept from every
    device by a taint gets `[unsatisfiable]` naming the taint, and --deny-unsatisfiable does not deny it (a taint
    may be lifted); one no device can ever satisfy is still denied."""
    served = {"v1": ["deviceclasses", "resourceslices", "resourceclaims", "resourceclaimtemplates"],
              "v1beta2": ["deviceclasses", "resourceslices", "resourceclaims", "resourceclaimtemplates",
                          "devicetaintrules"]}
    double = ApiServerDouble(certs, git_version="v1.37.0", served=served,
                             gates={"DRADeviceTaints": True, "DRADeviceTaintRules": True}).start()
    double.put(valid_slice(devices=2))
    double.put(gpu_class())
    kubeconfig = double.kubeconfig(tmp_path / "kubeconfig")
    server = start_server(tmp_path, "--kubeconfig", str(kubeconfig), "--cluster-state", "--deny-unsatisfiable",
                          "--kubernetes-version", "1.37", enforce=False)
    tolerating = gpu_claim("gpu", name="tolerating")
    tolerating["spec"]["devices"]["requests"][0]["exactly"]["tolerations"] = [
        {"key": "example.com/maintenance", "operator": "Exists", "effect": "NoExecute"}]
    try:
        wait_for(lambda: "cluster state: synced" in server.client.get(server.url + "/readyz").text, "synced")
        assert not state_warnings(server, gpu_claim("gpu"))
        double.put({"apiVersion": "resource.k8s.io/v1beta2", "kind": "DeviceTaintRule", "metadata": {"name": "drain"},
                    "spec": {"deviceSelector": {"driver": "gpu.example.com", "pool": "node-1"},
                             "taint": {"key": "example.com/maintenance", "effect": "NoExecute"}}})
        [warning] = wait_for(lambda: state_warnings(server, gpu_claim("gpu")), "the rule's taint seen")
        assert warning.startswith(
            "[unsatisfiable] ResourceClaim request gpus: no device in the cluster can satisfy it while the taints "
            "stay: gpus (DeviceClass gpu): every device that matches is tainted (taint "
            "example.com/maintenance=:NoExecute from DeviceTaintRule drain on 2 devices): needs 1, 0 usable of 2 "
            "devices: tainted without a matching toleration: 2 (e.g. gpu.example.com/node-1/gpu-"), warning
        assert server.review("/validate", review_body(gpu_claim("gpu")))["allowed"] is True  # a warning only
        assert not state_warnings(server, tolerating)
        never = server.review("/validate", review_body(gpu_claim("gpu", selector='device.attributes["model"].name '
                                                                                  '== "h100"')))
        assert never["allowed"] is False and never["status"]["code"] == 403  # still denied: no device ever

        double.delete("DeviceTaintRule", "drain")
        wait_for(lambda: not state_warnings(server, gpu_claim("gpu")), "the rule's deletion seen")
        own = valid_slice(devices=2)
        for device in own["spec"]["devices"]:
            device["taints"] = [{"key": "example.com/broken", "value": "fan", "effect": "NoSchedule"}]
        double.put(own)
        [warning] = wait_for(lambda: state_warnings(server, tolerating), "the slice's own taints seen")
        assert "(taint example.com/broken=fan:NoSchedule on 2 devices)" in warning, warning
    finally:
        server.stop()
        double.stop()


@pytest.mark.parametrize("value", ["0", "86401", "1.5", "x"])
def test_the_watch_timeout_is_a_whole_number_of_seconds_up_to_a_day(value):
    result = cli("serve", "--cluster-state", "--cluster-state-watch-timeout", value)
    assert result.returncode == 2 and "--cluster-state-watch-timeout" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
