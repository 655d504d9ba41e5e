"""Issue 37, the new features attacked: hostile driver profile files, kubeconfigs, Helm values and the
upstream harness's inputs. Each test failed before its fix."""

from __future__ import annotations

import os
import textwrap

import pytest

from support import cli
from webhook.drivers.profiles import ProfileFileError, read_profile
from webhook.drivers.registry import DriverSource

HEAD = textwrap.dedent("""\
    apiVersion: dra-webhook/v1alpha1
    kind: DriverProfile
    drivers: [x.example.com]
    decoding: untyped
    kinds:
    - openAPIV3Schema:
    """)


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_special_file_in_the_profiles_directory_is_refused_not_read(tmp_path, kind):
    # A FIFO blocked the (locked) load forever; /dev/zero was read until the size check.
    directory = tmp_path / "profiles"
    directory.mkdir()
    if kind == "fifo":
        os.mkfifo(directory / "p.yaml")
    else:
        (directory / "p.yaml").symlink_to("/dev/zero")
    with pytest.raises(ProfileFileError, match="not a regular file"):
        DriverSource(bundled=False, directories=(str(directory),)).load()
    result = cli("profiles", "check", str(directory / "p.yaml"), timeout=30)
    assert result.returncode == 1 and "not a regular file" in result.stdout


def test_a_profile_that_contains_itself_is_a_problem_at_its_line_not_a_crash():
    text = HEAD + "    &a {type: object, properties: {x: *a}}\n"
    with pytest.raises(ProfileFileError) as caught:
        read_profile(text, "p.yaml")
    assert caught.value.problems == ["p.yaml:7: not YAML: an alias refers to a node it is inside "
                                     "(a schema that contains itself)"]


def test_a_profile_whose_aliases_expand_too_far_is_a_problem_not_a_crash():
    lines = ["    type: object", "    properties:", "      a0: &a0 {type: string}"]
    lines += [f"      a{i}: &a{i} {{type: object, properties: {{p: *a{i - 1}, q: *a{i - 1}}}}}" for i in range(1, 30)]
    with pytest.raises(ProfileFileError, match="aliases expand beyond"):
        read_profile(HEAD + "\n".join(lines) + "\n", "p.yaml")


@pytest.mark.parametrize("kind", ["device", "aliases"])
def test_a_kubeconfig_that_is_no_regular_file_or_explodes_is_refused_up_front(tmp_path, kind):
    # The client library's reader read /dev/zero (1 s, then a YAML error by luck: a device of spaces runs
    # on) and expanded aliases without a budget. A pipe (`--kubeconfig <(command)`) is still read.
    path = tmp_path / "kubeconfig"
    if kind == "device":
        path.symlink_to("/dev/zero")
    else:
        path.write_text("a0: &a0 [x]\n" + "".join(f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}]\n" for i in range(1, 40)))
    claim = tmp_path / "claim.yaml"
    claim.write_text("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: x}\nspec: {}\n")
    result = cli("review", "--profile-from-cluster", "--kubeconfig", str(path), str(claim), timeout=60)
    assert result.returncode == 2, result.stderr
    assert ("not a regular file" if kind != "aliases" else "aliases expand beyond") in result.stderr


def test_a_kubeconfig_from_a_pipe_is_read():
    from webhook.regularfile import read_regular

    read_end, write_end = os.pipe()
    os.write(write_end, b"apiVersion: v1\n")
    os.close(write_end)
    try:
        assert read_regular(f"/proc/self/fd/{read_end}", 1024, pipes=True) == b"apiVersion: v1\n"
        with pytest.raises(OSError, match="not a regular file"):
            read_regular("/dev/zero", 1024, pipes=True)
    finally:
        os.close(read_end)


def test_a_rule_that_could_cost_past_the_runtime_limit_runs_only_on_values_that_cannot():
    # Estimated within the static limit, the rule could build strings of gigabytes (five replaces: 1.2 GB,
    # 3.7 s); the API server stops an evaluation past 1,000,000 actual cost. Here it runs only when its
    # estimate for the value at hand stays under that, and says so otherwise.
    from webhook.drivers.check import validate_opaque_parameters
    from webhook.drivers.registry import DriverSet
    from webhook.field import Path

    grow = "'" + "a" * 66 + "'"
    profile = read_profile(HEAD + textwrap.indent(textwrap.dedent(f"""\
        type: object
        properties:
          s:
            type: string
            maxLength: 5000
            x-kubernetes-validations:
            - rule: "self.replace('a', {grow}).replace('a', {grow}).replace('a', {grow}).size() > 0"
        """), "    "), "p.yaml")
    drivers = DriverSet({"x.example.com": profile}, {"x.example.com": {}})
    path = Path("parameters")

    def check(value: str):
        errors = validate_opaque_parameters(profile, drivers, "x.example.com", {"s": value}, path)
        return [(e.field, e.type.value) for e in errors]

    assert check("b") == []
    assert check("a" * 200) == []  # 871,200 characters: the API server runs it too
    assert check("a" * 2000) == [("parameters.s", "InternalError")]


def test_parameters_over_the_api_servers_limit_are_not_given_to_the_drivers_rules(tmp_path):
    # The API server refuses parameters over 10 KiB before any driver sees them; the rules are priced for
    # 10 KiB. Run on a 20 MB string, one `replace` took 2.7 GB offline. Here the built-in error stands alone.
    profile = tmp_path / "p.yaml"
    profile.write_text(HEAD + textwrap.indent(textwrap.dedent("""\
        type: object
        properties:
          s:
            type: string
            x-kubernetes-validations:
            - rule: "self.size() < 5"
        """), "    "))
    claim = ("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: default}\n"
             "spec:\n  devices:\n    requests: [{name: r, exactly: {deviceClassName: x}}]\n"
             "    config: [{opaque: {driver: x.example.com, parameters: {s: %s}}}]\n")
    for size, want in ((10, ["parameters.s: Invalid value"]), (20_000, ["parameters: Too long"])):
        (tmp_path / "c.yaml").write_text(claim % ("a" * size))
        result = cli("review", "--driver-profile", str(profile), str(tmp_path / "c.yaml"), timeout=60)
        found = [line.split("opaque.", 1)[1].split(":", 2)[0] + ":" + line.split("opaque.", 1)[1].split(":", 2)[1]
                 for line in result.stdout.splitlines() if "opaque.parameters" in line]
        assert found == want, result.stdout
