"""Command line: `dra-webhook serve | review | certs | test`. argv -> options -> run() -> exit code."""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
from pathlib import Path

from webhook import __version__

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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dra-webhook",
        description="Admission webhook and offline checker for Kubernetes DRA objects (resource.k8s.io).",
    )
    parser.add_argument("--version", action="version", version=f"dra-webhook {__version__}")
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
    _add_serve_limits(serve)
    _add_cel_engine(serve)

    review = sub.add_parser("review", help="check manifests or AdmissionReview files offline",
                            description="Run the webhook's checks on files, directories (*.yaml, *.yml, *.json, "
                                        "recursively) or stdin ('-'). Exit code 0: all allowed; 1: something "
                                        "denied; 2: usage error or unreadable input.")
    review.add_argument("paths", nargs="+", metavar="PATH", help="file, directory, or - for stdin")
    review.add_argument("--output", "-o", choices=("text", "json"), default="text")
    review.add_argument("--no-defaults", action="store_true",
                        help="validate objects as written, without applying the API server's defaults first")
    review.add_argument("--warnings-as-errors", action="store_true", help="exit 1 when any object has warnings")
    _add_cel_engine(review)

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
    serve.add_argument("--workers", type=_positive_int, default=2,
                       help="worker processes that parse and review requests (default: %(default)s)")
    serve.add_argument("--max-requests-in-flight", type=_positive_int, default=64, metavar="N",
                       help="reviews accepted at once; more are answered 429 at once (default: %(default)s)")
    serve.add_argument("--max-bytes-in-flight", type=_positive_int, default=64 * 1024 * 1024, metavar="BYTES",
                       help="request and answer bytes being read, reviewed or sent at once; more requests are "
                            "answered 429 (default: %(default)s)")
    serve.add_argument("--header-read-timeout", type=_positive_seconds, default=32.0, metavar="SECONDS",
                       help="close a connection whose TLS handshake or request headers take longer "
                            "(default: %(default)s, kube-apiserver's)")
    serve.add_argument("--body-read-timeout", type=_positive_seconds, default=32.0, metavar="SECONDS",
                       help="answer 408 and close when a request body takes longer (or past the request's "
                            "deadline, if sooner) (default: %(default)s)")
    serve.add_argument("--idle-timeout", type=_positive_seconds, default=90.0, metavar="SECONDS",
                       help="close a keep-alive connection idle this long (default: %(default)s, kube-apiserver's)")
    serve.add_argument("--max-header-bytes", type=_positive_int, default=1024 * 1024, metavar="BYTES",
                       help="largest request head; larger ones get 400 (default: %(default)s, kube-apiserver's)")
    serve.add_argument("--max-connections", type=_positive_int, default=4096, metavar="N",
                       help="open connections; more are closed when accepted (default: %(default)s)")


def run_serve(args: argparse.Namespace) -> int:
    from webhook import certs, logs, serving

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
    settings = serving.ServerSettings(
        host=args.host, port=args.port, cert_file=cert_file, key_file=key_file, insecure_http=args.insecure_http,
        max_body_bytes=args.max_body_bytes, tls_min_version=args.tls_min_version,
        client_ca_file=args.client_ca_file, reload_interval_seconds=args.cert_reload_interval,
        graceful_shutdown_seconds=args.shutdown_grace_seconds, health_port=args.health_port,
        request_timeout_seconds=args.request_timeout, workers=args.workers,
        max_requests_in_flight=args.max_requests_in_flight, max_bytes_in_flight=args.max_bytes_in_flight,
        header_read_timeout_seconds=args.header_read_timeout, body_read_timeout_seconds=args.body_read_timeout,
        idle_timeout_seconds=args.idle_timeout, max_header_bytes=args.max_header_bytes,
        max_connections=args.max_connections, cel_engine=args.cel_engine)
    try:
        serving.run(settings, args.log_level)
    except (OSError, RuntimeError) as exc:
        print(f"dra-webhook serve: {exc}", file=sys.stderr)
        return 2
    return 0


def run_review(args: argparse.Namespace) -> int:
    from webhook import admit, loader, report
    from webhook.review import ReviewError, decode_review

    try:
        documents = list(loader.load(args.paths))
    except loader.InputError as exc:
        print(f"dra-webhook review: {exc}", file=sys.stderr)
        return report.EXIT_INPUT
    results: list[report.Result] = []
    for doc in documents:
        if doc.error is not None:
            results.append(report.Result(doc.source, error=doc.error))
            continue
        try:
            request = decode_review(doc.review)
        except ReviewError as exc:
            results.append(report.Result(doc.source, error=f"invalid AdmissionReview: {exc}"))
            continue
        response = admit.review(request, apply_defaults=not args.no_defaults)
        results.append(report.Result(doc.source, response.to_dict(), label=_label(request)))
    report.WRITERS[args.output](results, sys.stdout)
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


def run_test(args: argparse.Namespace) -> int:
    from webhook import suite, suite_report

    try:
        result = suite.run(args.paths, warnings_as_errors=args.warnings_as_errors)
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


COMMANDS = {"serve": run_serve, "review": run_review, "certs": run_certs, "test": run_test}


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
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
