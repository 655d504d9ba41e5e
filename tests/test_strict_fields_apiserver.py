"""Unknown fields through the real kube-apiserver 1.36 (dry-run, no webhook registered) against our offline verdict:
with fieldValidation=Strict the 400's message word for word (the strict decoder's order, map keys after dots,
Go-quoted names, at most 100 of them), with Warn (the API server's default) the warnings in the same order, as the
server relays them (past 4 KiB each cut to 256 runes), and the object validated without its unknown fields.
"""

from __future__ import annotations

import copy

import pytest

import realserver
from support import review_body
from webhook import admit
from webhook.profile import make_profile
from webhook.review import decode_review, relayed_warnings

pytestmark = pytest.mark.upstream

RELEASE = "1.36"


def _slice() -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "strict-slice"},
            "spec": {"driver": "gpu.example.com", "zeta": 1,
                     "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1}, "nodeName": "node-1",
                     "devices": [{"name": "gpu-0",
                                  "capacity": {"cores": {"value": "8", "bogus": 1}},
                                  "attributes": {"dra.example.com/model": {"string": "a100", "extra": True}}}],
                     "alpha": {"nested": {"not": "reported"}}}}


def _class_with(keys: dict) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "strict-class"},
            "spec": {"selectors": [], **keys}}


OBJECTS = {
    "order and map keys": _slice(),
    "more than 100": _class_with({f"k{n}": n for n in range(130)}),
    "quotes, commas and control characters": _class_with({'we"ird, key': 1, "bell\x07": 2, "tab\there": 3,
                                                          "ü\u2028": 4, "back\\slash": 5}),
    "v1beta1 flat request": {
        "apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaim",
        "metadata": {"name": "strict-claim", "namespace": "default"},
        "spec": {"devices": {"requests": [{"name": "gpu", "first": 1, "deviceClassName": "gpu.example.com",
                                           "selectors": [{"cel": {"expression": "true", "x": 1}}], "last": 2}]}}},
}


@pytest.fixture(scope="module")
def plane(tmp_path_factory):
    if realserver.binaries(RELEASE) is None:
        realserver.skip_or_fail(f"kube-apiserver {RELEASE} and etcd are not built")
    plane = realserver.ControlPlane.start(tmp_path_factory.mktemp("strict"), RELEASE)
    yield plane
    plane.stop()


@pytest.fixture(scope="module")
def profile():
    from webhook.drivers.registry import DriverSource

    return make_profile(RELEASE, "", runtime_config=realserver.BETA_APIS, drivers=DriverSource(bundled=False))


def _ours(obj: dict, profile, field_validation: str, old: dict | None = None):
    body = review_body(obj, operation="UPDATE" if old else "CREATE", old=old)
    return admit.review_manifest(decode_review(body), profile=profile, namespace="default",
                                 field_validation=field_validation)


@pytest.mark.parametrize("name", OBJECTS)
def test_strict_refuses_with_the_servers_words(plane, profile, name):
    obj = OBJECTS[name]
    reply = plane.create(obj, dry_run=True, field_validation="Strict")
    assert reply.status_code == 400, reply.text
    ours = _ours(obj, profile, "Strict")
    assert not ours.allowed and ours.status["code"] == 400
    assert ours.status["message"] == reply.json()["message"]


@pytest.mark.parametrize("name", OBJECTS)
def test_warn_names_each_unknown_field_as_the_server_does(plane, profile, name):
    obj = OBJECTS[name]
    reply = plane.create(obj, dry_run=True, field_validation="Warn")
    ours = _ours(obj, profile, "Warn")
    assert ours.allowed == (reply.status_code == 201), reply.text
    server = [w for w in realserver.warnings(reply) if "unknown field" in w]
    assert server, reply.headers
    mine = [w for w in relayed_warnings([w for w in ours.warnings if not w.startswith("dra-webhook:")])
            if "unknown field" in w]
    assert mine == server


def test_warn_validates_an_update_without_its_unknown_fields(plane, profile):
    """The stored object has no unknown field; an update adding one changes nothing the strategy compares."""
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": "strict-update", "namespace": "default"},
             "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}}}
    created = plane.create(claim)
    assert created.status_code == 201, created.text
    stored = created.json()
    try:
        new = copy.deepcopy(stored)
        new["spec"]["devices"]["requests"][0]["exactly"]["bogus"] = 1
        reply = plane.update(new, dry_run=True, field_validation="Warn")
        ours = _ours(new, profile, "Warn", old=stored)
        assert reply.status_code == 200 and ours.allowed, (reply.text, ours.status)
        expected = ['unknown field "spec.devices.requests[0].exactly.bogus"']
        assert [w for w in realserver.warnings(reply) if "unknown field" in w] == expected
        assert [w for w in ours.warnings if "unknown field" in w] == expected
    finally:
        plane.delete("ResourceClaim", "strict-update", namespace="default")
