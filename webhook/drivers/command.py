"""The command line of driver profiles: the flags serve, review and test share, and `dra-webhook profiles`.

`--driver-profiles DIR` is the one flag a cluster needs: mount a ConfigMap of profile files there and
the server reloads them when the ConfigMap changes (at the certificate reload interval).
"""

from __future__ import annotations

import argparse
import sys

from webhook.drivers.profiles import ProfileFileError
from webhook.drivers.registry import DriverSource, parse_driver_gates


def add_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("driver profiles (the drivers' own checks of opaque.parameters)")
    group.add_argument("--driver-profiles", action="append", default=[], metavar="DIR",
                       help="a directory of driver profile files (*.yaml, *.yml, *.json), e.g. a mounted "
                            "ConfigMap; re-read when its files change; may be repeated")
    group.add_argument("--driver-profile", action="append", default=[], metavar="FILE",
                       help="one driver profile file; may be repeated. A profile for a driver name overrides "
                            "the bundled one")
    group.add_argument("--driver-feature-gates", default="", metavar="GATES",
                       help="the drivers' own feature gates, e.g. gpu.nvidia.com:MPSSupport=true,"
                            "gpu.nvidia.com:TimeSlicingSettings=true (unset gates keep the profile's defaults)")
    group.add_argument("--no-bundled-driver-profiles", action="store_true",
                       help="do not load the profiles that ship with dra-webhook (gpu.example.com, gpu.nvidia.com, "
                            "compute-domain.nvidia.com, dra.net, dra.cpu)")
    group.add_argument("--warn-unprofiled-drivers", action="store_true",
                       help="warn about opaque configurations for drivers without a profile (warning code "
                            "driver-profile-missing); they pass either way")


def source_from(args: argparse.Namespace, reload_seconds: float = 10.0) -> DriverSource:
    """The profiles the flags name; ValueError for a malformed --driver-feature-gates."""
    return DriverSource(bundled=not args.no_bundled_driver_profiles, directories=tuple(args.driver_profiles),
                        files=tuple(args.driver_profile), gates=parse_driver_gates(args.driver_feature_gates),
                        reload_seconds=reload_seconds, warn_without_profile=args.warn_unprofiled_drivers)


def resolve(args: argparse.Namespace, command: str) -> DriverSource | None:
    """The checked source for a command, or None after printing why it cannot be used (exit code 2)."""
    try:
        source = source_from(args, getattr(args, "cert_reload_interval", 10.0))
        if source.directories or source.files or source.gates:
            source.current()  # loads and checks the operator's files now: a broken profile is a start-up error
    except (ValueError, ProfileFileError) as error:
        print(f"dra-webhook {command}: driver profiles cannot be used:", file=sys.stderr)
        for line in _lines(error):
            print(line, file=sys.stderr)
        return None
    return source


def _lines(error: Exception) -> list[str]:
    """Each problem on a line of its own, escaped (a profile's text reaches the terminal)."""
    from webhook.offline.visible import visible

    problems = error.problems if isinstance(error, ProfileFileError) else [str(error)]
    return [visible(p) for p in problems]


def _shown(file: str) -> str:
    from pathlib import Path

    from webhook.drivers.registry import BUNDLED_DIR

    return f"(bundled) {Path(file).name}" if Path(file).parent == BUNDLED_DIR else file


def add_parser(sub) -> None:
    profiles = sub.add_parser("profiles", help="list or check driver profiles",
                              description="Driver profiles describe each DRA driver's opaque configuration "
                                          "(docs/drivers.md).")
    actions = profiles.add_subparsers(dest="profiles_command", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="the profiles in force, by driver name, with their sources")
    add_flags(listing)
    check = actions.add_parser("check", help="a profile file's own errors (schema, rules, cost), at file:line")
    check.add_argument("files", nargs="+", metavar="FILE")


def run(args: argparse.Namespace) -> int:
    from webhook.offline.visible import visible

    if args.profiles_command == "check":
        from webhook.drivers.profiles import MAX_PROFILE_BYTES, read_profile
        from webhook.regularfile import read_regular

        failed = False
        for path in args.files:
            try:
                profile = read_profile(read_regular(path, MAX_PROFILE_BYTES).decode("utf-8"), path)
            except ProfileFileError as error:
                for line in _lines(error):
                    print(line)
                failed = True
            except (OSError, UnicodeDecodeError) as error:
                print(f"{visible(path)}: cannot read: {visible(str(getattr(error, 'strerror', None) or error))}")
                failed = True
            else:
                kinds = ", ".join(f"{k.api_version} {k.kind}".strip() or "(untyped)" for k in profile.kinds)
                skipped = f"; CEL rules not checked: {profile.rules_skipped}" if profile.rules_skipped else ""
                print(visible(f"{path}: ok: {', '.join(profile.drivers)} ({kinds}){skipped}"))
        return 1 if failed else 0
    source = resolve(args, "profiles list")
    if source is None:
        return 2
    drivers = source.current()
    for name in sorted(drivers.profiles):
        profile = drivers.profiles[name]
        commit = profile.source.get("commit", "")
        gates = ", ".join(f"{g}={str(v).lower()}" for g, v in sorted(drivers.gates[name].items()))
        kinds = ", ".join(f"{k.api_version} {k.kind}".strip() or "(untyped)" for k in profile.kinds)
        fields = [name, f"kinds: {kinds}", f"source: {profile.source.get('repository', '')}"
                  f"{'@' + commit if commit else ''}", f"file: {_shown(profile.file)}",
                  f"deviceClassConfigs: {profile.device_class_configs}"] + ([f"gates: {gates}"] if gates else [])
        print("  ".join(visible(f) for f in fields))
    return 0
