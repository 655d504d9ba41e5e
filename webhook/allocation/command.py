"""`dra-webhook allocate`: would the scheduler allocate these claims, on which devices, and if not, why."""

from __future__ import annotations

import argparse
import sys
import time

from webhook.allocation.deadline import DEFAULT_TIMEOUT_SECONDS, DEFAULT_TOTAL_TIMEOUT_SECONDS, Deadline, seconds_text
from webhook.profile import DEFAULT_VERSION

EXIT_ALLOCATED, EXIT_NOT_ALLOCATED, EXIT_USAGE, EXIT_GAVE_UP = 0, 1, 2, 3


def duration(text: str) -> float:
    """A Go duration ("10s", "500ms", "1m30s") or plain seconds ("2.5"); 0 means no limit."""
    from webhook.serving.timeouts import parse_go_duration

    try:
        seconds = float(text)
    except ValueError:
        try:
            seconds = parse_go_duration(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a duration: {text!r} (e.g. 10s, 500ms, 1m, or seconds)") from None
    if not seconds >= 0 or seconds == float("inf"):
        raise argparse.ArgumentTypeError(f"must be 0 (no limit) or a positive duration, not {text!r}")
    return seconds


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "allocate", help="allocate claims offline as the scheduler would, and explain why not",
        description="Allocate ResourceClaims (and claim templates) on a node the way the Kubernetes scheduler "
                    "does, from DeviceClasses, ResourceSlices, claims already in use and Node objects; when it "
                    "cannot, say per request which devices were removed and why. Exit code 0: allocated; "
                    "1: not allocatable (or, with DRANodeAllocatableResources, the footprint does not fit); 2: usage "
                    "error or unreadable input; 3: no node fits and the search gave up on some node (--timeout, "
                    "--total-timeout).")
    parser.add_argument("paths", nargs="+", metavar="PATH", help="file, directory, or - for stdin")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--node", metavar="NAME", help="the node to allocate on (its Node object from the inputs "
                                                      "if present); the default with exactly one Node object")
    where.add_argument("--all-nodes", action="store_true",
                       help="try every node the inputs name (Node objects, slice nodeNames)")
    parser.add_argument("--feature-gates", default="", metavar="GATES",
                        help="kube-scheduler feature gates, e.g. DRAPrioritizedList=false; every DRA gate may be "
                             "set, even a locked one (with a warning)")
    parser.add_argument("--kubernetes-version", default=DEFAULT_VERSION, metavar="VERSION",
                        help="Kubernetes version of the scheduler (default: %(default)s)" + _not_ported_help())
    parser.add_argument("--output", "-o", choices=("text", "json"), default="text")
    parser.add_argument("--timeout", type=duration, default=DEFAULT_TIMEOUT_SECONDS, metavar="DURATION",
                        help="give up on a node after this long, as the scheduler's DRA filter does (its "
                             "filterTimeout, default %s; 0: no limit)" % seconds_text(DEFAULT_TIMEOUT_SECONDS))
    parser.add_argument("--total-timeout", type=duration, default=DEFAULT_TOTAL_TIMEOUT_SECONDS, metavar="DURATION",
                        help="with --all-nodes, give up on the nodes not done after this long in all "
                             "(default %s; 0: no limit)" % seconds_text(DEFAULT_TOTAL_TIMEOUT_SECONDS))
    from webhook.offline.command import add_input_limit

    add_input_limit(parser)
    parser.set_defaults(allow_locked_gates=True)
    return parser


def _not_ported_help() -> str:
    from webhook.behaviours import BEHAVIOURS

    versions = [version for version, behaviours in BEHAVIOURS.items() if not behaviours.allocator_ported]
    if not versions:
        return ""
    text = (f". Under {', '.join(versions)} a later release's allocator runs with that version's gates (which "
            f"pick its implementation) and the differences ported so far, not a full port; a note on stderr says so")
    return text


def _fail(message: str) -> int:
    from webhook.offline.visible import visible

    print(f"dra-webhook allocate: {visible(message)}", file=sys.stderr)
    return EXIT_USAGE


def run(args: argparse.Namespace) -> int:
    from webhook.allocation import inputs as read_inputs
    from webhook.allocation import outcome, render
    from webhook.offline.visible import visible
    from webhook.profile import ProfileError, make_profile

    try:  # the command line has built it already (with locked gates allowed); direct callers have not
        profile = getattr(args, "profile", None) or make_profile(args.kubernetes_version, args.feature_gates,
                                                                 allow_locked=True)
    except ProfileError as error:
        return _fail(str(error))
    for warning in profile.warnings:
        print(f"dra-webhook allocate: warning: {warning}", file=sys.stderr)
    if not profile.behaviours.allocator_ported:
        print(f"dra-webhook allocate: note: Kubernetes {profile.version}'s allocator is not ported in full; this "
              f"is a later release's allocator with {profile.version}'s feature gates and the differences ported "
              f"so far", file=sys.stderr)
    inputs = read_inputs.read(args.paths, profile)
    if inputs.problems:
        for source, problem in inputs.problems:
            print(f"dra-webhook allocate: {visible(f'{source}: {problem}')}", file=sys.stderr)
        return EXIT_USAGE
    if args.all_nodes:
        names = read_inputs.node_names(inputs)
        if not names:
            return _fail("--all-nodes: the inputs name no node (no Node object, no slice with nodeName)")
    elif args.node:
        names = [args.node]
    elif len(inputs.nodes) == 1:
        names = [(inputs.nodes[0][0].get("metadata") or {}).get("name") or ""]
    else:
        found = f"{len(inputs.nodes)} Node objects" if inputs.nodes else "no Node object"
        return _fail(f"which node? The inputs hold {found}: give --node NAME or --all-nodes")
    timeout = getattr(args, "timeout", DEFAULT_TIMEOUT_SECONDS)
    total = getattr(args, "total_timeout", DEFAULT_TOTAL_TIMEOUT_SECONDS) if args.all_nodes else 0
    total_end = time.monotonic() + total if total else None
    try:
        allocator = outcome.build_allocator(inputs, profile)
        results = [outcome.allocate_on(allocator, read_inputs.node_object(inputs, name), inputs,
                                       deadline=Deadline(timeout, total_end, total))
                   for name in names]
    except (TypeError, AttributeError, KeyError, ValueError) as error:
        return _fail(f"malformed input: {type(error).__name__}: {error}")
    writer = render.write_json if args.output == "json" else render.write_text
    writer(results, args.all_nodes, sys.stdout)
    if any(r.fits for r in results):
        return EXIT_ALLOCATED
    if any(r.gave_up for r in results):
        if not profile.enabled("DRASchedulerFilterTimeout") and timeout:
            print("dra-webhook allocate: note: with DRASchedulerFilterTimeout off the scheduler has no time limit "
                  "and keeps searching", file=sys.stderr)
        return EXIT_GAVE_UP
    return EXIT_NOT_ALLOCATED
