"""The offline commands' side of the command line: `review` and `test` parsers and runs, and what every
offline command shares (reporter, verbosity, clock, printing a run). `allocate` uses the same pieces.

The Kubernetes-version, feature-gate and CEL-engine flags are added by `webhook.cli`, as for `serve`.
"""

from __future__ import annotations

import argparse
import sys

EXIT_CODES = ("Exit code 1: {failed}; 2: nothing failed but an input could not be used (missing, unreadable "
              "or not parseable) or a usage error; 0: everything passed. Every readable input is reported.")


def _jobs(text: str) -> int:
    from webhook.numbers import parse_decimal

    jobs = parse_decimal(text, max_digits=6)
    if jobs is None or jobs < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of processes (1 to 999999)")
    return jobs


def _kind_list(text: str) -> frozenset[str]:
    """A --kinds/--skip-kinds value: resource.k8s.io kinds by name. A name that means nothing (a typo
    would otherwise skip every object and pass) and an empty list are usage errors."""
    from webhook.kinds import KINDS
    from webhook.offline.visible import visible  # the names are the user's: a typo may hold anything

    kinds = frozenset(k.strip() for k in text.split(",") if k.strip())
    if not kinds:
        raise argparse.ArgumentTypeError(f"no kind given; the kinds: {', '.join(KINDS)}")
    unknown = sorted(kinds - set(KINDS))
    if unknown:
        names = visible(", ".join(unknown))
        raise argparse.ArgumentTypeError(f"unknown kind{'s' if len(unknown) > 1 else ''} {names}; "
                                         f"the kinds: {', '.join(KINDS)}")
    return kinds


def _warning_code(text: str) -> str:
    from webhook.offline.visible import visible
    from webhook.offline.warningcodes import check

    try:
        return check([text.strip()])[0]
    except ValueError as error:
        raise argparse.ArgumentTypeError(visible(str(error))) from None


# kubectl's words (cli-runtime's resource builder, StdinMultiUseError)
STDIN_TWICE = "standard input cannot be used for multiple arguments"


def stdin_twice(paths: list[str]) -> bool:
    return paths.count("-") > 1


def _rfc3339(text: str):
    from datetime import datetime, timezone

    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an RFC 3339 time (e.g. 2026-01-02T03:04:05Z)") from None
    if value.tzinfo is None:
        raise argparse.ArgumentTypeError(f"{text!r} has no time zone (end it with Z or +00:00)")
    return value.astimezone(timezone.utc)


_UNITS = {"": 1, "ki": 2**10, "kib": 2**10, "mi": 2**20, "mib": 2**20, "gi": 2**30, "gib": 2**30}


def _byte_count(text: str) -> int:
    import re

    match = re.fullmatch(r"\s*([0-9]{1,12})\s*([A-Za-z]*)\s*", text)
    if not match or match[2].lower() not in _UNITS or int(match[1]) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size (bytes, or with Ki, Mi, Gi: e.g. 64Mi)")
    return int(match[1]) * _UNITS[match[2].lower()]


def add_input_limit(parser: argparse.ArgumentParser) -> None:
    """--max-input-bytes, for every offline command that reads manifests."""
    from webhook.offline.loading import DEFAULT_MAX_INPUT_BYTES

    parser.add_argument("--max-input-bytes", type=_byte_count, default=DEFAULT_MAX_INPUT_BYTES, metavar="SIZE",
                        help="refuse an input (file or stdin) larger than this, as an error for that input "
                             "(bytes, or with Ki, Mi, Gi; default: 64Mi)")


def add_offline_output(parser: argparse.ArgumentParser) -> None:
    """Flags every offline command shares (review, test, allocate): reporter, verbosity, clock."""
    from webhook.offline.reporters import NAMES

    parser.add_argument("--output", "-o", choices=NAMES, default="text",
                        help="text (failures only, -v for all), json (with a summary), junit, github "
                             "(workflow-command annotations), sarif (2.1.0), tap (default: %(default)s)")
    parser.add_argument("--verbose", "-v", action="store_true", help="text output: list every result")
    parser.add_argument("--now", type=_rfc3339, metavar="RFC3339",
                        help="the clock for defaults that need one (DeviceTaintRule timeAdded), for reproducible "
                             "output (default: $SOURCE_DATE_EPOCH if set, else the current time)")
    add_input_limit(parser)


def offline_now(args: argparse.Namespace):
    """--now, else SOURCE_DATE_EPOCH (the reproducible-builds convention), else the current time, in seconds."""
    import os
    from datetime import datetime, timezone

    if args.now is not None:
        return args.now
    from webhook.numbers import parse_decimal

    epoch = parse_decimal(os.environ.get("SOURCE_DATE_EPOCH", "").strip(), max_digits=11)  # to year 5138
    if epoch is not None:
        return datetime.fromtimestamp(epoch, timezone.utc)
    return datetime.now(timezone.utc).replace(microsecond=0)


def report(args: argparse.Namespace, run) -> int:
    """Prints a finished run with the chosen reporter; returns its exit code."""
    from webhook.offline.reporters import writer

    try:
        writer(args.output)(run, sys.stdout)
        sys.stdout.flush()
    except BrokenPipeError:  # `| head`: the reader has what it wanted; the verdict is still the run's
        reader_gone()
    sarif_file = getattr(args, "sarif_file", None)
    if sarif_file:  # the same run as SARIF too, for code scanning, without reviewing twice
        from webhook.offline.results import EXIT_FAILED, EXIT_INPUT
        from webhook.offline.visible import visible

        try:
            with open(sarif_file, "w", encoding="utf-8") as out:
                writer("sarif")(run, out)
        except OSError as exc:
            print(f"dra-webhook {run.command}: cannot write --sarif-file {visible(sarif_file)}: {exc.strerror}",
                  file=sys.stderr)
            return EXIT_FAILED if run.exit.code == EXIT_FAILED else EXIT_INPUT
    return run.exit.code


def reader_gone() -> None:
    """Standard output's reader went away: what is still buffered, and anything written later, goes nowhere,
    so that neither a later print nor the flush at exit fails (Python's documented way, `signal` docs)."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _settings(args: argparse.Namespace, now) -> dict:
    settings = {"kubernetesVersion": args.profile.version, "featureGates": dict(sorted(args.profile.gates.items()))}
    if args.profile.apis.text:  # only when given: the summary of a run without it stays as it was
        settings["runtimeConfig"] = args.profile.apis.text
    return settings | {"now": now.isoformat().replace("+00:00", "Z"), "celEngine": _cel_engine(args.cel_engine)}


def _cel_engine(choice: str) -> str:
    """The engine a run uses, without loading one: "auto" picks cel-expr where it is installed."""
    from importlib.util import find_spec

    from webhook.cel import engines

    if engines._active is not None:  # noqa: SLF001 - loaded already: say what was used
        return engines._active  # noqa: SLF001
    if choice != "auto":
        return choice
    return "cel-expr" if find_spec("cel_expr_python") and find_spec("google.protobuf") else "cel-python"


def run_review(args: argparse.Namespace) -> int:
    from webhook.allocation import poolcheck
    from webhook.offline import loading, parallel, reviewing
    from webhook.offline.results import Run, decide

    loading.markdown_in_directories = args.markdown
    loading.excluded = tuple(args.exclude)
    if stdin_twice(args.paths):
        print(f"dra-webhook review: {STDIN_TWICE}", file=sys.stderr)
        return 2
    now = offline_now(args)
    options = reviewing.Options(profile=args.profile, now=now, namespace=args.namespace,
                                apply_defaults=not args.no_defaults, kinds=args.kinds, skip_kinds=args.skip_kinds,
                                cel_engine=args.cel_engine, field_validation=args.validate.capitalize(),
                                explain=args.explain, from_cluster=args.from_cluster)
    progress = parallel.Progress.for_terminal()
    results = []
    jobs = args.jobs or reviewing.default_jobs(args.paths)
    for result in reviewing.run(args.paths, options, jobs=jobs, progress=progress):
        results.append(result)
        if progress is not None:
            progress.result()
    if progress is not None:
        progress.done()
    if not results:
        from webhook.offline.loading import searched

        print(f"dra-webhook review: no object found: {searched(args.paths)}", file=sys.stderr)
    notes = poolcheck.add_warnings(results)  # what no single object shows: slices of one pool, classes named
    if args.cluster_state:
        from webhook.clusterstate import offline as state_offline

        problem = state_offline.add_warnings(results, args.cluster_state, args.profile)
        if problem:
            from webhook.offline.visible import visible

            print(f"dra-webhook review: --cluster-state: {visible(problem)}", file=sys.stderr)
            return 2
    if args.ignore_warning:
        from webhook.offline.warningcodes import ignore

        ignore(results, args.ignore_warning)
    outcome = decide(results, noun="object", warnings_as_errors=args.warnings_as_errors)
    code = report(args, Run("review", "object", reviewing.VERDICTS, results, outcome, _settings(args, now),
                            verbose=args.verbose, notes=notes))
    if args.explain and args.output == "text":
        from webhook.offline.visible import visible

        for result in results:
            for note in result.notes:
                print(visible(f"{result.source}: {result.name.rsplit(' (', 1)[0]}: {note}"))  # name without (CREATE)
    return code


def run_test(args: argparse.Namespace) -> int:
    from webhook.offline import suites
    from webhook.offline.results import Run, decide
    from webhook.profile import parse_feature_gates

    if args.schema:
        from webhook.offline.suite_schema import json_schema

        print(json_schema())
        return 0
    now = offline_now(args)
    try:
        if getattr(args, "cluster_facts", None) is not None:  # --profile-from-cluster: the cluster's gates and APIs
            gates, apis = dict(args.profile.gates), args.profile.apis.text
        else:
            gates, apis = parse_feature_gates(args.feature_gates), args.runtime_config
        cluster = suites.Cluster(args.profile.version, gates, args.namespace, args.validate.capitalize(), apis,
                                 tuple(args.ignore_warning),
                                 args.profile.drivers, args.suite_root)
        results = suites.run(args.paths, warnings_as_errors=args.warnings_as_errors, cluster=cluster, now=now)
    except suites.SuiteInputError as exc:
        from webhook.offline.visible import visible

        print(f"dra-webhook test: {visible(str(exc))}", file=sys.stderr)
        return 2
    outcome = decide(results, noun="test", allow_empty=args.allow_empty)
    if not results and not args.allow_empty:
        print("dra-webhook test: no test found (use --allow-empty to accept)", file=sys.stderr)
    return report(args, Run("test", "test", suites.VERDICTS, results, outcome, _settings(args, now),
                            verbose=args.verbose))


def add_review(sub) -> argparse.ArgumentParser:
    review = sub.add_parser("review", help="check manifests or AdmissionReview files offline",
                            description="Run the webhook's checks on files, directories (*.yaml, *.yml, *.json, "
                                        "recursively) or stdin ('-'). Objects outside resource.k8s.io are skipped, "
                                        "and so are documents that are not Kubernetes objects (no apiVersion, no "
                                        "kind). "
                                        + EXIT_CODES.format(failed="an object was denied (or warned, with "
                                                                   "--warnings-as-errors)"))
    review.add_argument("paths", nargs="+", metavar="PATH", help="file, directory, or - for stdin")
    add_offline_output(review)
    review.add_argument("--no-defaults", action="store_true",
                        help="validate objects as written, without applying the API server's defaults first")
    review.add_argument("--warnings-as-errors", action="store_true",
                        help="exit 1 when a checked object has warnings (skipped objects never do)")
    _add_ignore_warning(review)
    review.add_argument("--kinds", type=_kind_list, metavar="KIND,...",
                        help="check only these resource.k8s.io kinds (e.g. ResourceSlice,DeviceClass); others are "
                             "skipped")
    review.add_argument("--skip-kinds", type=_kind_list, default=frozenset(), metavar="KIND,...",
                        help="skip these resource.k8s.io kinds")
    review.add_argument("--from-cluster", action="store_true",
                        help="the inputs were read back from a cluster (kubectl get -o yaml): drop the metadata the "
                             "API server sets (resourceVersion, uid, creationTimestamp, generation, managedFields) "
                             "and check the rest as a create of the cleaned object, as when it is restored into a "
                             "new cluster")
    review.add_argument("--cluster-state", action="append", default=[], metavar="FILE",
                        help="a dump of the cluster's DeviceClasses, ResourceSlices and DeviceTaintRules (kubectl get "
                             "deviceclasses,resourceslices,devicetaintrules -o yaml): warn about the claims, templates "
                             "and slices reviewed as serve --cluster-state does at admission; repeatable")
    review.add_argument("--explain", action="store_true",
                        help="text output: also print what each ResourceSlice device takes from its node per "
                             "allocation (nodeAllocatableResourceMappings)")
    review.add_argument("--markdown", action="store_true",
                        help="also check the manifests inside Markdown files (*.md, *.markdown) found in directories "
                             "(a Markdown file named on the command line is always read)")
    review.add_argument("--sarif-file", metavar="PATH",
                        help="also write the report as SARIF 2.1.0 to PATH (for code scanning), besides --output")
    review.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                        help="skip files whose path (as found, e.g. charts/gpu/templates/slice.yaml) or one of whose "
                             "directories matches GLOB (`*` also matches `/`): e.g. 'charts/*/templates', "
                             "'*.generated.yaml'; repeatable")
    review.add_argument("--jobs", "-j", type=_jobs, default=None, metavar="N",
                        help="check documents in N processes, results still in input order (default: the CPUs "
                             "available, for inputs of 128 KiB and more)")
    return review


def _add_ignore_warning(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ignore-warning", type=_warning_code, action="append", default=[], metavar="CODE",
                        help="drop the warnings with this code (shown in brackets before each warning) from the "
                             "report and from --warnings-as-errors; repeatable")


def add_test(sub) -> argparse.ArgumentParser:
    test = sub.add_parser("test", help="run test suites: manifests with expected verdicts",
                          description="Run TestSuite files (or the suites found in directories, default: the "
                                      "current directory) and compare each verdict with its expectation. "
                                      + EXIT_CODES.format(failed="a test failed") + " No test found is exit 2 "
                                      "unless --allow-empty.")
    test.add_argument("paths", nargs="*", default=["."], metavar="SUITE",
                      help="suite file, or directory searched for suite files (default: .)")
    add_offline_output(test)
    test.add_argument("--warnings-as-errors", action="store_true",
                      help="fail a test whose response has warnings unless it expects them exactly")
    _add_ignore_warning(test)
    test.add_argument("--allow-empty", action="store_true", help="exit 0 rather than 2 when no test is found")
    test.add_argument("--suite-root", metavar="DIR", default=None,
                      help="the directory that `object`, `oldObject` and `review` references may read from "
                           "(symbolic links resolved; default: each suite's own directory); a reference "
                           "leading outside it, absolute, or to anything but a regular file is refused")
    test.add_argument("--schema", action="store_true",
                      help="print the TestSuite JSON Schema (for editor completion) and exit")
    return test
