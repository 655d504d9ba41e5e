"""The cluster profile: Kubernetes version and feature gates, as kube-apiserver parses them."""

import pytest

from webhook.profile import DEFAULT, GATES, ProfileError, check_version, make_profile, parse_feature_gates


def test_defaults_are_the_target_versions_defaults():
    assert DEFAULT.version == "1.36"
    assert {name: DEFAULT.enabled(name) for name in GATES["1.36"]} == {
        name: spec.default for name, spec in GATES["1.36"].items()}
    assert DEFAULT.enabled("DRAConsumableCapacity") and not DEFAULT.enabled("DRAListTypeAttributes")
    assert not DEFAULT.enabled("DRADeviceTaintRules")


def test_feature_gates_syntax_of_kube_apiserver():
    assert parse_feature_gates("DRAListTypeAttributes=true, DRAExtendedResource=False,") == {
        "DRAListTypeAttributes": True, "DRAExtendedResource": False}
    assert parse_feature_gates("") == {}


@pytest.mark.parametrize("text,message", [
    ("DRAListTypeAttributes", "want Name=true or Name=false"),
    ("DRAListTypeAttributes=yes", "want true or false"),
    ("=true", "want Name=true or Name=false"),
])
def test_malformed_gates_are_usage_errors(text, message):
    with pytest.raises(ProfileError, match=message):
        make_profile(gates=text)


def test_an_unknown_gate_lists_the_known_ones():
    with pytest.raises(ProfileError) as error:
        make_profile(gates="DRAListTypeAttribute=true")
    assert "unrecognized feature gate: DRAListTypeAttribute" in str(error.value)
    assert "DRAListTypeAttributes" in str(error.value) and "DRAConsumableCapacity" in str(error.value)


def test_a_locked_gate_cannot_move_unless_allowed():
    with pytest.raises(ProfileError, match="locked to true"):
        make_profile(gates="DRAAdminAccess=false")
    profile = make_profile(gates="DRAAdminAccess=false", allow_locked=True)
    assert not profile.enabled("DRAAdminAccess")
    assert profile.warnings == ("cannot set feature gate DRAAdminAccess to false, feature is locked to true "
                                "in Kubernetes 1.36",)
    # Setting a locked gate to its own value is fine, as in kube-apiserver.
    assert make_profile(gates="DRAAdminAccess=true") == DEFAULT


@pytest.mark.parametrize("text,want", [("1.36", "1.36"), ("v1.36", "1.36"), ("1.36.2", "1.36"), (" 1.36 ", "1.36")])
def test_versions(text, want):
    assert check_version(text) == want


@pytest.mark.parametrize("text", ["1.33", "2", "", "latest"])
def test_unsupported_versions(text):
    with pytest.raises(ProfileError, match="unsupported Kubernetes version"):
        check_version(text)


def test_profiles_key_caches_by_value():
    a = make_profile(gates={"DRAListTypeAttributes": True})
    b = make_profile(gates="DRAListTypeAttributes=true")
    assert a == b and hash(a) == hash(b) and len({a, b, DEFAULT}) == 2
    assert a.describe() == "1.36 (DRAListTypeAttributes=true)"
    assert DEFAULT.describe() == "1.36"
