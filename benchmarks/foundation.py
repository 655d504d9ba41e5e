"""Foundation benchmark, ratios measured side by side in one run.

(a) Validation of a max-size ResourceSlice (128 devices, 32 attributes each) through the whole
    admission path (decode, type check, rules, response), against `json.loads` of the same body.
(b) Requests per second of `dra-webhook serve` (HTTPS) against the same stack (Starlette + uvicorn,
    same TLS certificate) answering a constant AdmissionReview, with the same client and body.

Usage: python benchmarks/foundation.py [--requests N]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _timing import best_of  # noqa: E402


def max_slice() -> dict:
    devices = []
    for i in range(128):
        attributes = {f"gpu.example.com/attr{j}": {"string": f"value-{j}"} for j in range(31)}
        attributes["model"] = {"string": "a100"}
        devices.append({"name": f"gpu-{i}", "attributes": attributes})
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "big"},
            "spec": {"driver": "gpu.example.com", "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
                     "nodeName": "node-1", "devices": devices}}


def review_of(obj: dict) -> dict:
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
            "request": {"uid": "bench", "kind": {"group": "resource.k8s.io", "version": "v1", "kind": obj["kind"]},
                        "operation": "CREATE", "object": obj}}


def bench_validation(repeat: int) -> None:
    from webhook import admit
    from webhook.review import decode_review

    body = json.dumps(review_of(max_slice())).encode()

    def ours():
        response = admit.validate(decode_review(json.loads(body)))
        assert response.allowed, response.status

    ours()  # warm caches as a long-running server would have them
    t_json = best_of(lambda: json.loads(body), rounds=repeat, number=1)
    t_ours = best_of(ours, rounds=repeat, number=1)
    print(f"(a) max-size ResourceSlice, {len(body)} bytes: json.loads {t_json * 1e3:.2f} ms, "
          f"parse+validate {t_ours * 1e3:.2f} ms -> ratio {t_ours / t_json:.1f}x json.loads")


CONSTANT_APP = '''
import sys, uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
BODY = b'{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"bench","allowed":true}}'
async def validate(request: Request) -> Response:
    await request.body()
    return Response(BODY, media_type="application/json")
app = Starlette(routes=[Route("/validate", validate, methods=["POST"])])
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), ssl_certfile=sys.argv[2], ssl_keyfile=sys.argv[3],
            log_level="warning", access_log=False)
'''


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait(url: str, context: ssl.SSLContext, client) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            client.post(url, content=b"{}", headers={"content-type": "application/json"})
            return
        except Exception:
            time.sleep(0.1)
    raise RuntimeError(f"{url} did not come up")


def bench_server(requests: int) -> None:
    import httpx

    from webhook import certs

    tmp = Path(tempfile.mkdtemp(prefix="dra-bench-"))
    files = certs.generate(tmp)
    context = ssl.create_default_context(cafile=str(files.ca_cert))
    ours_port, constant_port = _free_port(), _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen([sys.executable, "-m", "webhook", "serve", "--host", "127.0.0.1", "--port", str(ours_port),
                          "--cert-file", str(files.cert), "--key-file", str(files.key), "--log-level", "warning"],
                         env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
        subprocess.Popen([sys.executable, "-c", CONSTANT_APP, str(constant_port), str(files.cert), str(files.key)],
                         env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
    ]
    small_slice = max_slice()
    small_slice["spec"]["devices"] = small_slice["spec"]["devices"][:4]
    body = json.dumps(review_of(small_slice)).encode()
    headers = {"content-type": "application/json"}
    try:
        results = {}
        with httpx.Client(verify=context, timeout=30) as client:
            for port in (ours_port, constant_port):
                _wait(f"https://127.0.0.1:{port}/validate", context, client)
            rounds: dict[str, list[float]] = {"dra-webhook": [], "constant": []}
            for _ in range(3):  # interleave, so that machine noise hits both alike
                for name, port in (("dra-webhook", ours_port), ("constant", constant_port)):
                    url = f"https://127.0.0.1:{port}/validate"
                    start = time.perf_counter()
                    for _ in range(requests):
                        reply = client.post(url, content=body, headers=headers)
                        assert reply.status_code == 200
                    rounds[name].append(requests / (time.perf_counter() - start))
            for name, values in rounds.items():
                results[name] = statistics.median(values)
        print(f"(b) requests/s over HTTPS keep-alive (4-device slice): dra-webhook {results['dra-webhook']:.0f}, "
              f"constant response {results['constant']:.0f} -> dra-webhook at "
              f"{results['dra-webhook'] / results['constant']:.2f}x the constant server's rate")
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    bench_validation(args.repeat)
    bench_server(args.requests)


if __name__ == "__main__":
    main()
