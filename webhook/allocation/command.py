"""`dra-webhook allocate`: would the scheduler allocate these claims, on which devices, and if not, why."""

from __future__ import annotations

import argparse
import sys
from webhook.allocation import deadline, pods, prefilter
from webhook.allocation.deadline import DEFAULT_TIMEOUT_SECONDS, DEFAULT_TOTAL_TIMEOUT_SECONDS, Deadline, seconds_text
from webhook.profile import DEFAULT_VERSION, SUPPORTED_VERSIONS

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
                    "1: not allocatable (or, with DRANodeAllocatableResources, the footprint does not fit or the "
                    "scheduler refuses the Pod for it); 2: usage error or unreadable input; 3: no node fits and the search gave up on some node (--timeout, "
                    "--total-timeout).")
    parser.add_argument("paths", nargs="+", metavar="PATH", help="file, directory, or - for stdin")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--node", metavar="NAME", help="the node to allocate on (its Node object from the inputs "
                                                      "if present); the default with exactly one Node object")
    where.add_argument("--all-nodes", action="store_true",
                       help="try every node the inputs name (Node objects, slice nodeNames)")
    focus = parser.add_mutually_exclusive_group()
    focus.add_argument("--pod", metavar="NS/NAME", help="answer for this Pod's claims only (default: every pending "
                                                        "pod of the inputs, and each claim no pod references)")
    focus.add_argument("--claim", metavar="NS/NAME", help="answer for this pending claim (or template) alone")
    parser.add_argument("--feature-gates", default="", metavar="GATES",
                        help="kube-scheduler feature gates, e.g. DRAPrioritizedList=false; every DRA gate may be "
                             "set, even a locked one (with a warning)")
    parser.add_argument("--kubernetes-version", default=DEFAULT_VERSION, metavar="VERSION",
                        help="Kubernetes version of the scheduler, whose own allocator runs: %s (default: "
                             "%%(default)s)" % ", ".join(SUPPORTED_VERSIONS))
    parser.add_argument("--output", "-o", choices=("text", "json"), default="text")
    parser.add_argument("--timeout", type=duration, default=DEFAULT_TIMEOUT_SECONDS, metavar="DURATION",
                        help="give up on a node after this long, as the scheduler's DRA filter does (its "
                             "filterTimeout, default %s; 0: no limit)" % seconds_text(DEFAULT_TIMEOUT_SECONDS))
    parser.add_argument("--total-timeout", type=duration, default=DEFAULT_TOTAL_TIMEOUT_SECONDS, metavar="DURATION",
                        help="with --all-nodes or several pods, give up on the nodes and pods not done "
                             "after this long in all (default %s; 0: no limit)"
                             % seconds_text(DEFAULT_TOTAL_TIMEOUT_SECONDS))
    from webhook.allocation.render import DEFAULT_MAX_REPORT_BYTES
    from webhook.offline.command import _byte_count, add_input_limit

    parser.add_argument("--max-report-bytes", type=_byte_count, default=DEFAULT_MAX_REPORT_BYTES, metavar="SIZE",
                        help="when --total-timeout cuts the run short, stop its report after about this much "
                             "and say in one line how many more answers were not shown, and how many of them fit "
                             "(default: 960Ki; e.g. 64Mi); the answers not tried are one line too")
    add_input_limit(parser)
    parser.set_defaults(allow_locked_gates=True)
    return parser


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
    inputs = read_inputs.read(args.paths, profile)
    if inputs.problems:
        for source, problem in inputs.problems:
            print(f"dra-webhook allocate: {visible(f'{source}: {problem}')}", file=sys.stderr)
        return EXIT_USAGE
    _notes(inputs)
    if profile.gate("DRAExtendedResource"):
        users = prefilter.extended_resource_users(inputs)
        for pod, resource, device_class in users[:10]:
            what = f"pod {pod} requests {resource}, which DeviceClass {device_class} provides"
            print(f"dra-webhook allocate: note: {visible(what)}: the scheduler allocates it through a claim of "
                  "its own (DRAExtendedResource), which allocate does not model", file=sys.stderr)
        if len(users) > 10:
            print(f"dra-webhook allocate: note: ... and {len(users) - 10} more such requests", file=sys.stderr)
    if inputs.taint_rules and not profile.enabled("DRADeviceTaints"):
        print("dra-webhook allocate: note: the DeviceTaintRules taint devices, but with DRADeviceTaints off the "
              "allocator checks no taint (enable it with --feature-gates DRADeviceTaints=true)", file=sys.stderr)
    if not read_inputs.used(inputs):
        ignored = f" ({len(inputs.ignored)} ignored)" if inputs.ignored else ""
        return _fail(f"no objects: the inputs hold no object allocate uses{ignored} (DeviceClass, ResourceSlice, "
                     "ResourceClaim, ResourceClaimTemplate, DeviceTaintRule, Pod, Node)")
    try:
        chosen = pods.focus(inputs, getattr(args, "pod", None), getattr(args, "claim", None), profile)
    except (pods.FocusError, pods.MalformedPod) as error:
        return _fail(str(error))
    except (TypeError, AttributeError, KeyError, ValueError) as error:  # a Pod is read as given, unchecked
        return _fail(f"malformed input: {type(error).__name__}: {error}")
    if chosen and all(unit.settled for unit in chosen):  # --pod of a pod the scheduler is done with
        return _settled(chosen[0], args.output)
    if not inputs.pods and not args.claim and len(inputs.claims) > 1:
        print(f"dra-webhook allocate: note: no Pod in the inputs: the {len(inputs.claims)} pending claims are "
              "allocated together, as one pod's (add the pods, e.g. kubectl get pods, or pick one with --claim)",
              file=sys.stderr)
    named = read_inputs.node_names(inputs)
    # A pod refused before the node search (PreEnqueue, PreFilter) is answered without any node.
    searched = [unit for unit in chosen if not unit.problem]
    if not searched and not args.all_nodes and not args.node:
        names = []
    elif args.all_nodes:
        names = named
        if not names:
            return _fail("--all-nodes: the inputs name no node (no Node object, no slice with nodeName)")
    elif args.node:
        if args.node not in named:
            return _fail(f"--node {args.node}: no input names this node (the inputs name "
                         f"{', '.join(named[:10]) + (' ...' if len(named) > 10 else '') if named else 'no node'})")
        names = [args.node]
    elif len(inputs.nodes) == 1:
        names = [(inputs.nodes[0][0].get("metadata") or {}).get("name") or ""]
    elif searched and all(unit.node for unit in searched):  # pods bound to their nodes: there
        names = list(dict.fromkeys(unit.node for unit in searched))
    else:
        found = f"{len(inputs.nodes)} Node objects" if inputs.nodes else "no Node object"
        return _fail(f"which node? The inputs hold {found}: give --node NAME or --all-nodes")
    timeout = getattr(args, "timeout", DEFAULT_TIMEOUT_SECONDS)
    # The total bounds every answer together: all nodes, and all pods.
    several = args.all_nodes or len(searched) > 1
    total = getattr(args, "total_timeout", DEFAULT_TOTAL_TIMEOUT_SECONDS) if several else 0
    total_end = deadline.clock() + total if total else None
    # What the total bounds, for its message: the nodes of one pod, the pods on one node, or both.
    scope = ("pods and nodes" if args.all_nodes and len(searched) > 1 else "nodes" if args.all_nodes else "pods")
    overall = Deadline(None, total_end, total, scope)
    skipped = outcome.NotTried(overall.why())
    try:
        try:  # the slices as the scheduler's tracker shows them: under the total, or the one node's time
            prepare = Deadline(None, total_end, total, scope) if total_end else Deadline(timeout)
            allocator = outcome.build_allocator(inputs, profile, prepare)
        except deadline.GaveUp as error:
            allocator, skipped.why = None, f"gave up applying the DeviceTaintRules before any node: {error.why}"
        answers = []
        for unit in chosen:
            if unit.problem:
                answers.append((unit, [prefilter.Refusal(unit.pod, unit.stage, unit.problem)]))
                continue
            nodes, outcomes = pods.nodes_of(unit, names, args.all_nodes), []
            for index, name in enumerate(nodes):
                if allocator is None or overall.expired():  # the rest in one line, not one each
                    skipped.add(unit.pod, nodes[index:])
                    break
                outcomes.append(pods.answer(allocator, inputs, unit, name, Deadline(timeout, total_end, total, scope)))
            if outcomes:
                answers.append((unit, outcomes))
    except (TypeError, AttributeError, KeyError, ValueError) as error:
        return _fail(f"malformed input: {type(error).__name__}: {error}")
    if not answers and not skipped.answers:  # Pods in the inputs, none waiting for a claim, and no claim of no pod
        sys.stdout.write("[]\n" if args.output == "json" else "nothing to allocate: no pending pod or claim\n")
        return EXIT_ALLOCATED
    # A run the total timeout cut short is a partial answer: its report is bounded too (a complete one is not).
    budget = getattr(args, "max_report_bytes", render.DEFAULT_MAX_REPORT_BYTES) if skipped.answers else 0
    report = render.Report(sys.stdout, budget, skipped)
    try:
        # One answer keeps the report of one pod (JSON: one entry, or one per node); text says whose it is.
        if len(answers) != 1 or skipped.answers or (answers[0][0].pod is not None and args.output == "text"):
            writer = render.write_units_json if args.output == "json" else render.write_units_text
            writer(answers, args.all_nodes, report)
        else:
            writer = render.write_json if args.output == "json" else render.write_text
            writer(answers[0][1], args.all_nodes, report)
        sys.stdout.flush()
    except BrokenPipeError:  # `| head`: the reader has what it wanted; the verdict is still the run's
        from webhook.offline.command import reader_gone

        reader_gone()
    if skipped.answers and not all(any(r.fits for r in outcomes) for _, outcomes in answers):
        return EXIT_GAVE_UP
    if skipped.answers and len(answers) < len(chosen):
        return EXIT_GAVE_UP  # a pod not tried at all: neither placed nor known not to be placeable
    unplaced = [outcomes for _, outcomes in answers if not any(r.fits for r in outcomes)]
    if not unplaced:
        return EXIT_ALLOCATED
    if any(r.gave_up for outcomes in unplaced for r in outcomes):
        if not profile.enabled("DRASchedulerFilterTimeout") and timeout:
            print("dra-webhook allocate: note: with DRASchedulerFilterTimeout off the scheduler has no time limit "
                  "and keeps searching", file=sys.stderr)
        return EXIT_GAVE_UP
    return EXIT_NOT_ALLOCATED


def _settled(unit, output: str) -> int:
    """A pod with nothing pending for DRA (bound with its claims allocated and reserved for it, or without
    claims): said, not answered as if it were being scheduled."""
    import json

    from webhook.offline.visible import visible

    if output == "json":
        sys.stdout.write(json.dumps({"pod": unit.pod, "node": unit.node or None, "pending": False,
                                     "reason": unit.settled}) + "\n")
    else:
        sys.stdout.write(f"nothing pending: {visible(unit.settled)}\n")
    return EXIT_ALLOCATED


def _notes(inputs) -> None:
    """What allocate does not use, once per kind: said, not dropped silently."""
    from collections import Counter

    from webhook.offline.visible import visible

    ignored = Counter(kind for _, kind in inputs.ignored)
    if ignored:
        kinds = ", ".join(f"{count} {kind}" if count > 1 else kind for kind, count in ignored.items())
        print(f"dra-webhook allocate: note: ignored (not used to allocate): {visible(kinds)}", file=sys.stderr)

