"""Command line: `dra-webhook serve | review | certs | test`. argv -> options -> run() -> exit code."""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
from pathlib import Path

from webhook import __version__
from webhook.allocation import command as allocation_command

log = logging.getLogger("dra-webhook")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be greater than zero")
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

    parser.add_argument("--kubernetes-version", default=DEFAULT_VERSION, metavar="VERSION",
                        help=f"the Kubernetes version whose rules apply: {', '.join(SUPPORTED_VERSIONS)} "
                             f"(default: %(default)s)")
    parser.add_argument("--feature-gates", default="", metavar="GATES",
                        help="the cluster's DRA feature gates in kube-apiserver's syntax, e.g. "
                             "DRAListTypeAttributes=true,DRADeviceTaintRules=true; unset gates keep the "
                             "version's defaults")
    if namespace:
        parser.add_argument("--namespace", "-n", default="default", metavar="NS",
                            help="namespace of namespaced manifests that name none, as kubectl apply -n "
                                 "(default: %(default)s); AdmissionReview documents keep their own")
        parser.add_argument("--validate", choices=("strict", "warn", "ignore"), default="strict",
                            help="field validation of manifests, as kubectl apply --validate: strict refuses "
                                 "unknown fields (kubectl's default), warn reports them as warnings (the API "
                                 "server's own default), ignore drops them (default: %(default)s)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dra-webhook",
        description="Admission webhook and offline checker for Kubernetes DRA objects (resource.k8s.io).",
    )
    from webhook.profile import DEFAULT_VERSION, SUPPORTED_VERSIONS

    parser.add_argument("--version", action="version",
                        version=f"dra-webhook {__version__} (Kubernetes {', '.join(SUPPORTED_VERSIONS)}; "
                                f"default {DEFAULT_VERSION})")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

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
    _add_cel_engine(serve)
    _add_cluster(serve, namespace=False)

    review = sub.add_parser("review", help="check manifests or AdmissionReview files offline",
                            description="Run the webhook's checks on files, directories (*.yaml, *.yml, *.json, "
                                        "recursively) or stdin ('-'). Exit code 0: all allowed; 1: something "
                                        "denied; 2: usage error or unreadable input.")
    review.add_argument("paths", nargs="+", metavar="PATH", help="file, directory, or - for stdin")
    review.add_argument("--output", "-o", choices=("text", "json"), default="text")
    review.add_argument("--no-defaults", action="store_true",
                        help="validate objects as written, without applying the API server's defaults first")
    review.add_argument("--warnings-as-errors", action="store_true", help="exit 1 when any object has warnings")
    review.add_argument("--explain", action="store_true", help="also print what each ResourceSlice device takes "
                                                                "from its node per allocation (text output)")
    _add_cel_engine(review)
    _add_cluster(review, namespace=True)

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
    _add_test_command(sub)
    allocation_command.add_parser(sub)
    return parser


def run_serve(args: argparse.Namespace) -> int:
    from webhook import certs, logs, server

    logs.setup(args.log_level)
    cert_file, key_file = args.cert_file, args.key_file
    if args.insecure_http:
        log.warning("serving plain HTTP: for local debugging only")
    elif bool(cert_file) != bool(key_file):
        print("dra-webhook serve: --cert-file and --key-file go together", file=sys.stderr)
        return 2
    elif not cert_file:
        out = args.cert_dir or tempfile.mkdtemp(prefix="dra-webhook-certs-")
        files = certs.generate(out, hosts=[args.host] if args.host not in ("0.0.0.0", "::") else [])
        cert_file, key_file = str(files.cert), str(files.key)
        log.info("generated certificates", extra=logs.fields(caFile=str(files.ca_cert)))
    for path in (cert_file, key_file, args.client_ca_file):
        if path and not Path(path).is_file():
            print(f"dra-webhook serve: {path}: no such file", file=sys.stderr)
            return 2
    settings = server.ServerSettings(host=args.host, port=args.port, cert_file=cert_file, key_file=key_file,
                                     insecure_http=args.insecure_http, max_body_bytes=args.max_body_bytes,
                                     tls_min_version=args.tls_min_version, client_ca_file=args.client_ca_file,
                                     reload_interval_seconds=args.cert_reload_interval,
                                     graceful_shutdown_seconds=args.shutdown_grace_seconds, profile=args.profile)
    try:
        server.run(settings)
    except OSError as exc:
        print(f"dra-webhook serve: {exc}", file=sys.stderr)
        return 2
    return 0


def run_review(args: argparse.Namespace) -> int:
    from webhook import admit, loader, manifest, report
    from webhook.allocation import footprint, poolcheck
    from webhook.review import ReviewError, decode_review

    try:
        documents = list(loader.load(args.paths))
    except loader.InputError as exc:
        print(f"dra-webhook review: {exc}", file=sys.stderr)
        return report.EXIT_INPUT
    results: list[report.Result] = []
    namespaces = manifest.namespaces_in(doc.review["request"].get("object") for doc in documents if doc.manifest)
    for doc in documents:
        if doc.error is not None:
            results.append(report.Result(doc.source, error=doc.error))
            continue
        try:
            request = decode_review(doc.review)
        except ReviewError as exc:
            results.append(report.Result(doc.source, error=f"invalid AdmissionReview: {exc}"))
            continue
        if doc.manifest:
            response = admit.review_manifest(request, profile=args.profile, namespace=args.namespace,
                                             apply_defaults=not args.no_defaults,
                                             field_validation=args.validate.capitalize(), namespaces=namespaces)
        else:
            response = admit.review(request, profile=args.profile, apply_defaults=not args.no_defaults)
        results.append(report.Result(doc.source, response.to_dict(), label=_label(request)))
    poolcheck.add_warnings(results, documents)
    report.WRITERS[args.output](results, sys.stdout)
    if args.explain and args.output == "text":
        footprint.write_explanations(documents, sys.stdout, args.profile)
    if not results:
        print("dra-webhook review: no documents found", file=sys.stderr)
        return report.EXIT_INPUT
    return report.exit_code(results, args.warnings_as_errors)


def _label(request) -> str:
    obj = request.object if isinstance(request.object, dict) else {}
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    kind = request.kind.kind or obj.get("kind") or "object"
    name = meta.get("name") or meta.get("generateName") or request.name or "<unnamed>"
    operation = request.operation + (f" {request.sub_resource}" if request.sub_resource else "")
    return f"{kind}/{name} ({operation})"


def _add_test_command(sub) -> None:
    test = sub.add_parser("test", help="run test suites: manifests with expected verdicts",
                          description="Run TestSuite files (or the suites found in directories) and compare each "
                                      "verdict with its expectation. Exit code 0: all tests passed; 1: a test "
                                      "failed; 2: usage error, unreadable or invalid suite, or no test found.")
    test.add_argument("paths", nargs="+", metavar="SUITE", help="suite file, or directory searched for suite files")
    test.add_argument("--output", "-o", choices=("text", "json", "junit", "github"), default="text",
                      help="text, json, junit (JUnit XML) or github (workflow-command annotations)")
    test.add_argument("--warnings-as-errors", action="store_true",
                      help="fail a test whose response has warnings unless it expects them exactly")
    test.add_argument("--allow-empty", action="store_true", help="exit 0 rather than 2 when no test is found")
    _add_cel_engine(test)
    _add_cluster(test, namespace=True)


def run_test(args: argparse.Namespace) -> int:
    from webhook import suite, suite_report
    from webhook.profile import parse_feature_gates

    try:
        cluster = suite.Cluster(args.profile.version, parse_feature_gates(args.feature_gates), args.namespace,
                                args.validate.capitalize())
        result = suite.run(args.paths, warnings_as_errors=args.warnings_as_errors, cluster=cluster)
    except suite.SuiteInputError as exc:
        print(f"dra-webhook test: {exc}", file=sys.stderr)
        return suite.EXIT_INPUT
    suite_report.WRITERS[args.output](result, sys.stdout)
    if not result.tests and not result.suite_errors:
        print("dra-webhook test: no test found" + ("" if args.allow_empty else " (use --allow-empty to accept)"),
              file=sys.stderr)
    return suite.exit_code(result, allow_empty=args.allow_empty)


def run_certs(args: argparse.Namespace) -> int:
    from webhook import certs, kustomize

    hosts = [h for h in args.hosts.split(",") if h.strip()]
    try:
        files = certs.generate(args.out, service=args.service, namespace=args.namespace, hosts=hosts,
                               key_type=args.key_type, days=args.days)
        manifests = kustomize.write(args.kustomize, files, args.namespace) if args.kustomize else []
    except OSError as exc:
        print(f"dra-webhook certs: {exc}", file=sys.stderr)
        return 2
    for path in (files.ca_cert, files.ca_key, files.cert, files.key, *manifests):
        print(path)
    return 0


COMMANDS = {"serve": run_serve, "review": run_review, "certs": run_certs, "test": run_test,
            "allocate": allocation_command.run}


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if hasattr(args, "feature_gates"):
        from webhook.profile import ProfileError, make_profile

        try:
            # The allocator may ask what a differently configured scheduler would do: locked gates move too.
            args.profile = make_profile(args.kubernetes_version, args.feature_gates,
                                        allow_locked=getattr(args, "allow_locked_gates", False))
        except ProfileError as error:
            print(f"dra-webhook {args.command}: {error}", file=sys.stderr)
            return 2
    if getattr(args, "cel_engine", None):
        from webhook import cel

        try:
            cel.configure(args.cel_engine)
        except ValueError as error:
            print(f"dra-webhook: {error}", file=sys.stderr)
            return 2
    try:
        return COMMANDS[args.command](args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`... | head`): stop quietly, as command-line tools do.
        sys.stderr.close()
        return 1
