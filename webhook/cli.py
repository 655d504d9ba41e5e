"""Command line: `dra-webhook serve | review | certs | test`. argv -> options -> run() -> exit code."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from webhook import __version__
from webhook.allocation import command as allocation_command
from webhook.offline.visible import visible  # what the user named (a file, a flag value), escaped


def _whole_number(text: str) -> int:
    from webhook.numbers import parse_decimal

    value = parse_decimal(text.strip(), signed=True, max_digits=18)
    if value is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number (at most 18 digits)")
    return value


def _positive_int(text: str) -> int:
    value = _whole_number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be greater than zero")
    return value


def _watch_seconds(text: str) -> int:
    value = _positive_int(text)
    if value > 86400:
        raise argparse.ArgumentTypeError(f"{text!r} is more than a day (86400): a silent watch would go unnoticed "
                                         "that long")
    return value


def _non_negative_int(text: str) -> int:
    value = _whole_number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must not be negative")
    return value


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be greater than zero")
    return value


def _port(text: str) -> int:
    value = _positive_int(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a TCP port")
    return value


def _add_cel_engine(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cel-engine", choices=("auto", "cel-expr", "cel-python"), default="auto",
                        help="CEL engine for selectors: cel-expr type-checks and estimates cost like Kubernetes; "
                             "cel-python checks syntax only and adds a warning; auto picks cel-expr where it is "
                             "installed (default: %(default)s)")


def _add_cluster(parser: argparse.ArgumentParser, *, namespace: bool) -> None:
    """The cluster the verdicts are for: Kubernetes version, feature gates and (offline) namespace."""
    from webhook.profile import DEFAULT_VERSION, SUPPORTED_VERSIONS

    parser.add_argument("--kubernetes-version", default=None, metavar="VERSION",
                        help=f"the Kubernetes version whose rules apply: {', '.join(SUPPORTED_VERSIONS)} "
                             f"(default: {DEFAULT_VERSION}, or the cluster's where it is read from the cluster)")
    parser.add_argument("--feature-gates", default="", metavar="GATES",
                        help="the cluster's DRA feature gates in kube-apiserver's syntax, e.g. "
                             "DRAListTypeAttributes=true,DRADeviceTaintRules=true; unset gates keep the "
                             "version's defaults")
    parser.add_argument("--runtime-config", default="", metavar="APIS",
                        help="the API versions the cluster serves, in kube-apiserver's syntax, e.g. "
                             "resource.k8s.io/v1beta2=true or api/all=true; =false turns one off")
    from webhook.drivers import command as drivers_command

    drivers_command.add_flags(parser)
    _add_kubeconfig(parser)
    if namespace:
        parser.add_argument("--namespace", "-n", default="default", metavar="NS",
                            help="namespace of namespaced manifests that name none, as kubectl apply -n "
                                 "(default: %(default)s); AdmissionReview documents keep their own")
        parser.add_argument("--validate", choices=("strict", "warn", "ignore"), default="strict",
                            help="field validation of manifests, as kubectl apply --validate: strict refuses "
                                 "unknown fields (kubectl's default), warn reports them as warnings (the API "
                                 "server's own default), ignore drops them (default: %(default)s)")


def _add_kubeconfig(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kubeconfig", metavar="FILE",
                        help="kubeconfig to reach the cluster with, where the cluster is read (default: the pod's "
                             "service account, else $KUBECONFIG or ~/.kube/config)")
    parser.add_argument("--context", metavar="NAME", help="the kubeconfig context (default: its current one)")


def _add_profile_from_cluster(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--profile-from-cluster", action="store_true",
                        help="take the Kubernetes version, served API versions and feature gates from the cluster "
                             "(/version, discovery, /metrics); --kubernetes-version, --feature-gates and "
                             "--runtime-config given too win over it")


class _CommandParser(argparse.ArgumentParser):
    """A subcommand's parser: an unknown flag is reported with this command's usage (and a close match),
    not the top-level usage that argparse shows by default."""

    def parse_known_args(self, args=None, namespace=None):
        namespace, extras = super().parse_known_args(args, namespace)
        if extras:
            import difflib

            known = [flag for action in self._actions for flag in action.option_strings]
            unknown = next((e.split("=", 1)[0] for e in extras if e.startswith("-")), "")
            close = difflib.get_close_matches(unknown, known, n=1) if unknown else []
            hint = f" (did you mean {close[0]}?)" if close else ""
            self.error(f"unrecognized arguments: {' '.join(extras)}{hint}")
        return namespace, extras


class _Version(argparse.Action):
    """--version: the program, the Kubernetes versions whose rules it holds, and the CEL engine."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(version_text())
        parser.exit()


def version_text() -> str:
    from importlib import metadata

    from webhook.cel.engines import configure
    from webhook.profile import DEFAULT_VERSION, SUPPORTED_VERSIONS

    lines = [f"dra-webhook {__version__}",
             f"Kubernetes rules: {DEFAULT_VERSION} (default); --kubernetes-version {', '.join(SUPPORTED_VERSIONS)}"]
    try:
        engine = configure("auto")
    except ValueError as error:
        lines.append(f"CEL engine: none ({error})")
    else:
        package = {"cel-expr": "cel-expr-python", "cel-python": "cel-python"}[engine]
        try:
            version = metadata.version(package)
        except metadata.PackageNotFoundError:
            version = "unknown version"
        lines.append(f"CEL engine: {engine} ({package} {version}; --cel-engine auto picks it)")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    from webhook.offline import command

    parser = argparse.ArgumentParser(
        prog="dra-webhook",
        description="Admission webhook and offline checker for Kubernetes DRA objects (resource.k8s.io).",
    )
    parser.add_argument("--version", action=_Version, help="show the version, the Kubernetes versions of the rules "
                                                           "and the CEL engine, then exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_CommandParser)

    serve = sub.add_parser("serve", help="serve /validate and /mutate over HTTPS",
                           description="Serve the admission webhook. Without --cert-file/--key-file a fresh CA "
                                       "and serving certificate are generated into --cert-dir.")
    serve.add_argument("--host", default="0.0.0.0", help="address to listen on (default: %(default)s)")
    serve.add_argument("--port", type=_port, default=8443, help="port to listen on (default: %(default)s)")
    serve.add_argument("--cert-file", help="PEM serving certificate (with --key-file); re-read when it changes, "
                                           "so a renewed certificate is used without a restart")
    serve.add_argument("--key-file", help="PEM private key of the serving certificate")
    serve.add_argument("--cert-reload-interval", type=_positive_seconds, default=10.0, metavar="SECONDS",
                       help="how often to check the certificate files for a new pair; a half-written or "
                            "mismatched pair is ignored and the last good one kept (default: %(default)s)")
    serve.add_argument("--client-ca-file", metavar="FILE",
                       help="require every client to present a certificate signed by a CA in this PEM file "
                            "(for API servers configured to authenticate to webhooks); also reloaded on change")
    serve.add_argument("--cert-dir", help="where to generate certificates when none are given "
                                          "(default: a new temporary directory)")
    serve.add_argument("--insecure-http", action="store_true",
                       help="serve plain HTTP instead of HTTPS; for local debugging only")
    serve.add_argument("--max-body-bytes", type=_positive_int, default=8 * 1024 * 1024,
                       help="largest accepted request body; larger ones get 413 (default: %(default)s)")
    serve.add_argument("--tls-min-version", choices=("1.2", "1.3"), default="1.2",
                       help="lowest TLS version accepted (default: %(default)s)")
    serve.add_argument("--shutdown-grace-seconds", type=_positive_seconds, default=10.0, metavar="SECONDS",
                       help="on SIGTERM, stop accepting connections and give requests in flight this long to "
                            "finish (default: %(default)s)")
    serve.add_argument("--log-level", choices=("debug", "info", "warning", "error"), default="info",
                       help="JSON log lines on stderr at this level and above (default: %(default)s)")
    _add_serve_limits(serve)
    _add_cel_engine(serve)
    _add_cluster(serve, namespace=False)
    serve.add_argument("--profile-from-cluster", choices=("auto", "never"), default="auto",
                       help="auto: with credentials (the pod's service account or a kubeconfig), read the "
                            "Kubernetes version, served API versions and feature gates from the cluster at start and "
                            "every --cluster-profile-interval; flags given win, and each that disagrees is logged "
                            "and counted. never: the flags alone (default: %(default)s)")
    serve.add_argument("--cluster-profile-interval", type=_positive_seconds, default=300.0, metavar="SECONDS",
                       help="how often to read the cluster's profile again (default: %(default)s)")
    serve.add_argument("--cluster-state", action="store_true",
                       help="list and watch the cluster's DeviceClasses, ResourceSlices and DeviceTaintRules, and warn "
                            "at the admission of ResourceClaims, ResourceClaimTemplates and ResourceSlices about what "
                            "they cannot get (docs/cluster-state.md); needs list and watch on them")
    serve.add_argument("--cluster-state-budget", type=_positive_seconds, default=0.05, metavar="SECONDS",
                       help="time the cluster-state checks of one request may take; what does not fit gives no "
                            "warning (default: %(default)s)")
    serve.add_argument("--cluster-state-watch-timeout", type=_watch_seconds, default=300, metavar="SECONDS",
                       help="with --cluster-state, the API server ends each watch after this long (timeoutSeconds) "
                            "and it is resumed; a watch or list that stays silent for this plus 10%% (at least 5 s) "
                            "is dropped and listed again; 1 to 86400 (default: %(default)s)")
    serve.add_argument("--deny-unsatisfiable", action="store_true",
                       help="with --cluster-state, deny a claim or template that no device in the cluster can ever "
                            "satisfy (the [unsatisfiable] warning) instead of warning")
    serve.add_argument("--enforce-builtin-rules", action="store_true",
                       help="deny objects that break a built-in rule of --kubernetes-version (which must be given), "
                            "for fleets that want objects valid on that release too; by default such a failure "
                            "is answered allowed with a [profile-mismatch] warning, since the API server has "
                            "accepted the object already")

    review = command.add_review(sub)
    _add_cel_engine(review)
    _add_cluster(review, namespace=True)
    _add_profile_from_cluster(review)

    certs = sub.add_parser("certs", help="generate a CA and a serving certificate",
                           description="Write ca.crt, ca.key, tls.crt and tls.key (keys mode 0600).")
    certs.add_argument("--kustomize", metavar="DIR",
                       help="also write the TLS Secret and the caBundle patches of the webhook configurations "
                            "into DIR (for deploy/overlays/self-signed; the Secret holds the key, mode 0600)")
    certs.add_argument("--out", required=True, help="output directory")
    certs.add_argument("--service", default="dra-webhook", help="Service name (default: %(default)s)")
    certs.add_argument("--namespace", default="dra-webhook", help="Service namespace (default: %(default)s)")
    certs.add_argument("--hosts", default="", help="extra comma-separated DNS names or IP addresses")
    certs.add_argument("--key-type", choices=("ecdsa", "rsa"), default="ecdsa",
                       help="ECDSA P-256 or RSA-2048 (default: %(default)s)")
    certs.add_argument("--days", type=_positive_int, default=365, help="serving certificate validity in days")
    certs.add_argument("--force", action="store_true",
                       help="replace the files already in --out (ca.crt, ca.key, tls.crt, tls.key); without it "
                            "none is ever overwritten, and the error names those there")
    certs.add_argument("--renew", action="store_true",
                       help="keep the CA already in --out (ca.crt, ca.key; made when there is none) and issue a new "
                            "serving certificate from it, so every caBundle built from that CA stays valid")
    test = command.add_test(sub)
    _add_cel_engine(test)
    _add_cluster(test, namespace=True)
    _add_profile_from_cluster(test)
    profile = sub.add_parser("profile", help="print the profile the verdicts are for (from the cluster with "
                                             "--from-cluster)",
                             description="Print the Kubernetes version, feature gates and served API versions the "
                                         "verdicts are for, and the flags that give them offline. With "
                                         "--from-cluster they are read from the cluster: /version, discovery of "
                                         "resource.k8s.io, kube-apiserver's kubernetes_feature_enabled metric.")
    profile.add_argument("--from-cluster", action="store_true", dest="profile_from_cluster",
                         help="read the profile from the cluster")
    profile.add_argument("--output", "-o", choices=("text", "json"), default="text",
                         help="output format (default: %(default)s)")
    _add_cluster(profile, namespace=False)
    completion = sub.add_parser("completion", help="print a shell completion script",
                                description='Print a completion script: eval "$(dra-webhook completion bash)" '
                                            "in ~/.bashrc (or zsh in ~/.zshrc).")
    completion.add_argument("shell", choices=("bash", "zsh"))
    allocation_command.add_parser(sub)
    from webhook.drivers import command as drivers_command

    drivers_command.add_parser(sub)
    return parser


def _add_serve_limits(serve: argparse.ArgumentParser) -> None:
    """Time, work and connection limits; defaults from kube-apiserver's server and webhook client."""
    serve.add_argument("--health-port", type=_port, metavar="PORT",
                       help="also serve plain-HTTP GET /healthz and /readyz on this port, on a thread of their own, "
                            "for the kubelet's probes (works when --client-ca-file is set)")
    serve.add_argument("--request-timeout", type=_positive_seconds, default=10.0, metavar="SECONDS",
                       help="deadline of a review when the API server sends no ?timeout= (default: %(default)s, "
                            "the API server's); a review that runs out of time is answered 504 Timeout, never "
                            "with a verdict")
    serve.add_argument("--max-request-timeout", type=_positive_seconds, default=30.0, metavar="SECONDS",
                       help="no review works longer, whatever the API server's ?timeout= says (default: "
                            "%(default)s, the longest timeoutSeconds a webhook configuration may have)")
    serve.add_argument("--workers", type=_positive_int, default=2,
                       help="worker processes that parse and review requests (default: %(default)s)")
    serve.add_argument("--inline-max-body-bytes", type=_non_negative_int, default=16 * 1024, metavar="BYTES",
                       help="review bodies up to this size in the server process itself when their CEL selectors "
                            "are compiled already (no hop to a worker); 0: always hand them to a worker "
                            "(default: %(default)s)")
    serve.add_argument("--max-requests-in-flight", type=_positive_int, default=64, metavar="N",
                       help="reviews under way at once (their body received); more are answered 429 at once "
                            "(default: %(default)s)")
    serve.add_argument("--max-bytes-in-flight", type=_positive_int, default=64 * 1024 * 1024, metavar="BYTES",
                       help="request bytes received and answer bytes not yet sent, at once; a request whose "
                            "bytes do not fit is answered 429 (default: %(default)s)")
    serve.add_argument("--header-read-timeout", type=_positive_seconds, default=32.0, metavar="SECONDS",
                       help="close a connection whose TLS handshake or request headers take longer "
                            "(default: %(default)s, kube-apiserver's)")
    serve.add_argument("--body-read-timeout", type=_positive_seconds, default=32.0, metavar="SECONDS",
                       help="answer 408 and close when a request body takes longer (or past the request's "
                            "deadline, if sooner) (default: %(default)s)")
    serve.add_argument("--idle-timeout", type=_positive_seconds, default=90.0, metavar="SECONDS",
                       help="close a keep-alive connection idle this long (default: %(default)s, kube-apiserver's)")
    serve.add_argument("--write-timeout", type=_positive_seconds, default=30.0, metavar="SECONDS",
                       help="abort a connection whose client reads none of its reply for this long, freeing the "
                            "reply (default: %(default)s)")
    serve.add_argument("--max-header-bytes", type=_positive_int, default=64 * 1024, metavar="BYTES",
                       help="largest request head; larger ones get 431 and the connection is closed (default: "
                            "%(default)s; the API server's webhook requests have heads of a few KiB at most, a bearer "
                            "token included)")
    serve.add_argument("--max-buffered-header-bytes", type=_positive_int, default=32 * 1024 * 1024,
                       metavar="BYTES",
                       help="request heads being received, over all connections; a connection that would go "
                            "over gets 431 and is closed (default: %(default)s)")
    serve.add_argument("--max-connections", type=_positive_int, default=4096, metavar="N",
                       help="open connections, counted from accept (TLS handshakes included); more are closed "
                            "when accepted (default: %(default)s)")


def run_serve(args: argparse.Namespace) -> int:
    import logging  # only serve logs: offline start-up stays short

    from webhook import certs, logs, serving

    log = logging.getLogger("dra-webhook")
    logs.setup(args.log_level)
    if args.deny_unsatisfiable and not args.cluster_state:
        print("dra-webhook serve: --deny-unsatisfiable needs --cluster-state", file=sys.stderr)
        return 2
    if args.enforce_builtin_rules and not args.kubernetes_version:
        print("dra-webhook serve: --enforce-builtin-rules needs an explicit --kubernetes-version (the release "
              "whose rules every object must pass)", file=sys.stderr)
        return 2
    cert_file, key_file = args.cert_file, args.key_file
    if args.insecure_http:
        log.warning("serving plain HTTP: for local debugging only")
    elif bool(cert_file) != bool(key_file):
        print("dra-webhook serve: --cert-file and --key-file go together", file=sys.stderr)
        return 2
    elif not cert_file:
        import tempfile  # only serve needs it: offline start-up stays short

        out = args.cert_dir or tempfile.mkdtemp(prefix="dra-webhook-certs-")
        files, reused = certs.ensure(out, hosts=[args.host] if args.host not in ("0.0.0.0", "::") else [])
        cert_file, key_file = str(files.cert), str(files.key)
        log.info("reused certificates" if reused else "generated certificates",
                 extra=logs.fields(caFile=str(files.ca_cert)))
    for path in (cert_file, key_file, args.client_ca_file):
        if path and not Path(path).is_file():
            print(f"dra-webhook serve: {visible(str(path))}: no such file", file=sys.stderr)
            return 2
    settings = serving.ServerSettings(
        host=args.host, port=args.port, cert_file=cert_file, key_file=key_file, insecure_http=args.insecure_http,
        max_body_bytes=args.max_body_bytes, tls_min_version=args.tls_min_version,
        client_ca_file=args.client_ca_file, reload_interval_seconds=args.cert_reload_interval,
        graceful_shutdown_seconds=args.shutdown_grace_seconds, health_port=args.health_port,
        request_timeout_seconds=args.request_timeout, max_request_timeout_seconds=args.max_request_timeout,
        write_timeout_seconds=args.write_timeout, workers=args.workers,
        inline_max_body_bytes=args.inline_max_body_bytes,
        max_requests_in_flight=args.max_requests_in_flight, max_bytes_in_flight=args.max_bytes_in_flight,
        header_read_timeout_seconds=args.header_read_timeout, body_read_timeout_seconds=args.body_read_timeout,
        idle_timeout_seconds=args.idle_timeout, max_header_bytes=args.max_header_bytes,
        max_buffered_header_bytes=args.max_buffered_header_bytes,
        max_connections=args.max_connections, cel_engine=args.cel_engine, profile=args.profile,
        enforce_builtin_rules=args.enforce_builtin_rules, profile_source=_profile_source(args),
        cluster_state=_cluster_state(args))
    try:
        serving.run(settings, args.log_level)
    except (OSError, RuntimeError) as exc:
        print(f"dra-webhook serve: {visible(str(exc))}", file=sys.stderr)
        return 2
    return 0


def _profile_source(args: argparse.Namespace):
    """serve's reading of the cluster's profile, or None (never, or no credentials to read it with)."""
    from webhook.clusterstate import connect, discovery, profilesource

    if args.profile_from_cluster == "never" or not connect.credentials_available(args.kubeconfig):
        return None
    return profilesource.Source(args.kubeconfig, args.context,
                                discovery.Flags(args.kubernetes_version, args.feature_gates, args.runtime_config),
                                interval_seconds=args.cluster_profile_interval)


def _cluster_state(args: argparse.Namespace):
    if not args.cluster_state:
        return None
    from webhook.clusterstate.cache import Settings

    return Settings(args.kubeconfig, args.context, args.cluster_state_budget, args.deny_unsatisfiable,
                    args.cluster_state_watch_timeout)


def run_review(args: argparse.Namespace) -> int:
    from webhook.offline import command

    return command.run_review(args)


def run_test(args: argparse.Namespace) -> int:
    from webhook.offline import command

    return command.run_test(args)


def run_certs(args: argparse.Namespace) -> int:
    import functools

    from webhook import certs, kustomize

    try:
        hosts = certs.parse_hosts(args.hosts)
        if args.renew and args.force:
            raise certs.CertError("--renew keeps the CA and --force replaces it: choose one")
        make = certs.renew if args.renew else functools.partial(certs.generate, force=args.force)
        files = make(args.out, service=args.service, namespace=args.namespace, hosts=hosts,
                     key_type=args.key_type, days=args.days)
        manifests = kustomize.write(args.kustomize, files, args.namespace) if args.kustomize else []
    except (certs.CertError, OSError) as exc:
        print(f"dra-webhook certs: {visible(str(exc))}", file=sys.stderr)
        return 2
    for path in (files.ca_cert, files.ca_key, files.cert, files.key, *manifests):
        print(visible(str(path)))  # one line each, whatever --out or --kustomize holds
    return 0


def run_profiles(args: argparse.Namespace) -> int:
    from webhook.drivers import command

    return command.run(args)


def run_completion(args: argparse.Namespace) -> int:
    from webhook.completion import script

    sys.stdout.write(script(build_parser(), args.shell))
    return 0


def run_profile(args: argparse.Namespace) -> int:
    import json

    from webhook.clusterstate import discovery

    facts = getattr(args, "cluster_facts", None)
    if args.output == "json":
        out = {"kubernetesVersion": args.profile.version, "featureGates": dict(sorted(args.profile.gates.items())),
               "runtimeConfig": args.profile.apis.text, "flags": discovery.flags_text(args.profile)}
        if facts is not None:
            out["cluster"] = facts.to_dict()
            out["disagreements"] = list(args.disagreements)
        print(json.dumps(out, indent=2))
        return 0
    if facts is not None:
        print(f"cluster: {visible(facts.git_version or '?')}")
        for version, plurals in sorted(facts.served.items()):
            print(f"  serves resource.k8s.io/{version}: {', '.join(plurals) or '(none of the DRA resources)'}")
        dra = {name: value for name, value in facts.gates.items() if name in args.profile.gates}
        print(f"  DRA feature gates: {', '.join(f'{n}={str(v).lower()}' for n, v in sorted(dra.items())) or '(none)'}")
        for problem in facts.problems:
            print(f"  not read: {visible(problem)}")
    print(f"profile: {args.profile.describe()}")
    print(f"flags: {discovery.flags_text(args.profile)}")
    for disagreement in getattr(args, "disagreements", []):
        print(f"disagreement: {visible(disagreement)}")
    return 0


def _profile_from_cluster(args: argparse.Namespace) -> int | None:
    """Reads the profile from the cluster into args.profile; an exit code when it cannot."""
    from webhook.clusterstate import discovery, profilesource

    source = profilesource.Source(args.kubeconfig, args.context,
                                  discovery.Flags(args.kubernetes_version, args.feature_gates, args.runtime_config),
                                  timeout_seconds=10.0)
    try:
        args.profile, args.cluster_facts, args.disagreements = profilesource.read_now(source)
    except Exception as error:  # noqa: BLE001 - no credentials, unreachable, forbidden, unknown release
        print(f"dra-webhook {args.command}: cannot read the profile from the cluster: "
              f"{visible(profilesource.describe_failure(error))}", file=sys.stderr)
        return 2
    if args.command != "profile":
        for disagreement in args.disagreements:
            print(f"dra-webhook {args.command}: warning: {visible(disagreement)} (the flag wins)", file=sys.stderr)
    return None


OFFLINE = ("review", "test")  # their "auto" CEL engine is loaded on first use
COMMANDS = {"serve": run_serve, "review": run_review, "certs": run_certs, "test": run_test, "profile": run_profile,
            "completion": run_completion, "profiles": run_profiles,
            "allocate": allocation_command.run}


def main(argv: list[str] | None = None) -> int:
    return run(build_parser().parse_args(argv))


def entry() -> None:
    """The `dra-webhook` command (and `python -m webhook`): main(), then the exit."""
    try:
        args = build_parser().parse_args()
    except BrokenPipeError:  # --help or --version into a reader that went away: quietly, as for a run
        from webhook.offline.command import reader_gone

        reader_gone()
        sys.exit(0)
    if args.command in OFFLINE or args.command == "allocate":
        # A short run that keeps every parsed document and result to the end: the collector's default
        # pace would walk them over and over (~9 ms of 500 typical objects), for garbage that reference
        # counting frees anyway. Cycles are still collected, every 50,000 allocations.
        import gc

        gc.set_threshold(50_000, 50, 100)
    code = run(args)
    if args.command in OFFLINE or args.command == "allocate":
        _exit_now(code)
    sys.exit(code)


def _exit_now(code: int) -> None:
    """Ends an offline run without tearing the interpreter down: freeing every module and object takes
    ~35 ms, a fifth of a short review. The output is flushed first; no offline command leaves work for
    exit handlers (worker processes are joined when their pool closes)."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):  # the reader went away, or stderr was closed for it: the usual exit
        sys.exit(code)
    os._exit(code)


def run(args: argparse.Namespace) -> int:
    if args.command in OFFLINE or args.command == "allocate":
        # pydantic's plugin discovery reads every installed package's metadata (~10 ms, a twentieth of a short
        # run); plugins only observe validation. A user who sets the variable decides.
        os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    if getattr(args, "max_input_bytes", None):
        from webhook.offline import loading

        loading.max_input_bytes = args.max_input_bytes
    if hasattr(args, "feature_gates"):
        from webhook.profile import DEFAULT_VERSION, ProfileError, make_profile

        try:
            # The allocator may ask what a differently configured scheduler would do: locked gates move too.
            args.profile = make_profile(args.kubernetes_version or DEFAULT_VERSION, args.feature_gates,
                                        allow_locked=getattr(args, "allow_locked_gates", False),
                                        runtime_config=getattr(args, "runtime_config", ""))
        except ProfileError as error:
            print(f"dra-webhook {args.command}: {visible(str(error))}", file=sys.stderr)
            return 2
        if getattr(args, "profile_from_cluster", None) is True:
            failed = _profile_from_cluster(args)
            if failed is not None:
                return failed
        if hasattr(args, "driver_profiles"):  # serve, review, test: the drivers' profiles, checked now
            from dataclasses import replace

            from webhook.drivers import command as drivers_command

            source = drivers_command.resolve(args, args.command)
            if source is None:
                return 2
            args.profile = replace(args.profile, drivers=source)
    if getattr(args, "cel_engine", None) and not (args.command in OFFLINE and args.cel_engine == "auto"):
        # offline, "auto" is resolved on first use: a run without CEL selectors never loads an engine
        from webhook import cel

        try:
            cel.configure(args.cel_engine)
        except ValueError as error:
            print(f"dra-webhook: {visible(str(error))}", file=sys.stderr)
            return 2
    try:
        return COMMANDS[args.command](args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`... | head`) before a verdict was reached: stop quietly, as command-line
        # tools do; a run that reached its verdict returns it (offline.command.report).
        from webhook.offline.command import reader_gone

        reader_gone()
        return 0
