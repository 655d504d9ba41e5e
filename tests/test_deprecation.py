"""The API server's deprecation warning (webhook/deprecation.py): the table against each release's own k8s.io/api
(zz_generated.prerelease-lifecycle.go) and k8s.io/apiserver (pkg/endpoints/deprecation), and where the offline
review gives it: every manifest in a deprecated version the release serves, first; never in served mode, where the
API server has given it already; never for a version the release does not serve.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import realserver
from support import review_body
from webhook import admit, deprecation
from webhook.behaviours import BEHAVIOURS
from webhook.kinds import KINDS
from webhook.profile import make_profile
from webhook.review import decode_review

UPSTREAM = Path(__file__).resolve().parent / "upstream"
GO = shutil.which("go")
_LIFECYCLE = re.compile(r"func \(in \*(\w+)\) APILifecycle(Deprecated|Removed)\(\) \(major, minor int\) \{\s*"
                        r"return (\d+), (\d+)\s*\}")


def _module_dir(release: str, module: str) -> Path:
    env = {**os.environ, "GOTOOLCHAIN": "local", "GOFLAGS": "-mod=readonly"}
    out = subprocess.run([GO, "mod", "download", "-json", module], cwd=UPSTREAM / f"kube-{release}",
                         capture_output=True, text=True, timeout=600, env=env)
    assert out.returncode == 0, out.stderr
    return Path(json.loads(out.stdout)["Dir"])


def _upstream_warnings(release: str) -> dict[tuple[str, str], str]:
    """What kube-apiserver `release` warns about, read from its k8s.io/api: IsDeprecated with the release's own
    major/minor (the build sets them, as hack/lib/version.sh does), WarningMessage's words."""
    api = _module_dir(release, "k8s.io/api")
    minor = int(release.split(".")[1])
    out = {}
    for version_dir in sorted((api / "resource").iterdir()):
        source = version_dir / "zz_generated.prerelease-lifecycle.go"
        if not source.is_file():
            continue
        lifecycle: dict[str, dict[str, tuple[int, int]]] = {}
        for kind, what, major_, minor_ in _LIFECYCLE.findall(source.read_text()):
            lifecycle.setdefault(kind, {})[what] = (int(major_), int(minor_))
        for kind, stages in lifecycle.items():
            if kind.endswith("List") or kind not in KINDS or "Deprecated" not in stages:
                continue
            deprecated, removed = stages["Deprecated"], stages.get("Removed")
            if deprecated == (0, 0) or deprecated > (1, minor):
                continue
            text = f"resource.k8s.io/{version_dir.name} {kind} is deprecated in v{deprecated[0]}.{deprecated[1]}+"
            if removed and removed != (0, 0):
                text += f", unavailable in v{removed[0]}.{removed[1]}+"
            out[(version_dir.name, kind)] = text
    return out


@pytest.mark.parametrize("release", sorted(BEHAVIOURS))
def test_the_table_is_each_releases_k8s_io_api(release):
    if GO is None:
        realserver.skip_or_fail("Go is not installed")
    apiserver = _module_dir(release, "k8s.io/apiserver") / "pkg" / "endpoints" / "deprecation" / "deprecation.go"
    words = apiserver.read_text()
    # The words the table's text is built from, unchanged in the release's apiserver.
    assert '"%s %s is deprecated in v%d.%d+"' in words and '", unavailable in v%d.%d+"' in words
    upstream = _upstream_warnings(release)
    ours = {key: deprecation.warning(make_profile(release), *key) for key in BEHAVIOURS[release].deprecated_apis}
    assert ours == upstream
    if release != "1.34":
        assert upstream  # the parse found the lifecycle functions


def _review(obj: dict, release: str, **kwargs):
    profile = make_profile(release, runtime_config="resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true,"
                                                   "resource.k8s.io/v1alpha3=true")
    return admit.review_manifest(decode_review(review_body(obj, **kwargs)), profile=profile)


def _class(version: str) -> dict:
    return {"apiVersion": f"resource.k8s.io/{version}", "kind": "DeviceClass", "metadata": {"name": "gpu"},
            "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}}


@pytest.mark.parametrize("release, version, expected", [
    ("1.34", "v1beta1", None),
    ("1.34", "v1beta2", None),
    ("1.35", "v1beta1", "resource.k8s.io/v1beta1 DeviceClass is deprecated in v1.35+, unavailable in v1.38+"),
    ("1.35", "v1beta2", None),
    ("1.36", "v1beta1", "resource.k8s.io/v1beta1 DeviceClass is deprecated in v1.35+, unavailable in v1.38+"),
    ("1.36", "v1beta2", "resource.k8s.io/v1beta2 DeviceClass is deprecated in v1.36+, unavailable in v1.39+"),
    ("1.37", "v1beta2", "resource.k8s.io/v1beta2 DeviceClass is deprecated in v1.36+, unavailable in v1.39+"),
    ("1.37", "v1", None),
])
def test_a_manifest_in_a_deprecated_version_is_warned_first(release, version, expected):
    response = _review(_class(version), release)
    assert response.allowed
    deprecated = [w for w in response.warnings if " is deprecated in " in w]
    assert deprecated == ([expected] if expected else [])
    if expected:
        assert response.warnings[0] == expected


def test_refused_requests_are_warned_too():
    """The route's handler adds it before decoding: a 400 (unknown field) and a 422 carry it as well."""
    expected = "resource.k8s.io/v1beta1 DeviceClass is deprecated in v1.35+, unavailable in v1.38+"
    unknown = _class("v1beta1")
    unknown["spec"]["bogus"] = 1
    invalid = _class("v1beta1")
    invalid["metadata"]["name"] = "Not_A_Name"
    for obj, code in ((unknown, 400), (invalid, 422)):
        response = _review(obj, "1.36")
        assert not response.allowed and response.status["code"] == code
        assert response.warnings[0] == expected


def test_an_update_and_a_taint_rule_in_v1alpha3_are_warned():
    rule = {"apiVersion": "resource.k8s.io/v1alpha3", "kind": "DeviceTaintRule", "metadata": {"name": "r"},
            "spec": {"deviceSelector": {"driver": "gpu.example.com"}, "taint": {"key": "k", "effect": "NoSchedule"}}}
    response = _review(rule, "1.36")
    assert response.warnings[0] == "resource.k8s.io/v1alpha3 DeviceTaintRule is deprecated in v1.36+, unavailable " \
                                   "in v1.39+"
    old = {**_class("v1beta2"), "metadata": {"name": "gpu", "resourceVersion": "1"}}
    response = _review(_class("v1beta2"), "1.37", operation="UPDATE", old=old)
    assert response.warnings[0] == "resource.k8s.io/v1beta2 DeviceClass is deprecated in v1.36+, unavailable in v1.39+"


def test_a_version_not_served_gets_no_deprecation_warning():
    """A 404 (the version turned off by --runtime-config, or retired) has no route, so no warning."""
    off = make_profile("1.36", runtime_config="resource.k8s.io/v1beta1=false")
    retired = {**_class("v1alpha3"), "kind": "ResourceClaim", "metadata": {"name": "c", "namespace": "default"},
               "spec": {}}
    for obj, profile in ((_class("v1beta1"), off), (retired, make_profile("1.36"))):
        response = admit.review_manifest(decode_review(review_body(obj)), profile=profile)
        assert not response.allowed and response.status["code"] == 404, response
        assert not [w for w in response.warnings if " is deprecated in " in w]


def test_served_mode_leaves_it_to_the_api_server():
    """In a cluster the API server has added it to the client's response before admission (and drops a webhook's
    copy of the same text): the webhook's own answer never repeats it."""
    body = review_body(_class("v1beta1"))
    body["request"]["kind"] = {"group": "resource.k8s.io", "version": "v1beta1", "kind": "DeviceClass"}
    request = decode_review(body)
    for response in (admit.validate(request, profile=make_profile("1.36")),
                     admit.mutate(request, profile=make_profile("1.36"))):
        assert not [w for w in response.warnings if " is deprecated in " in w]
