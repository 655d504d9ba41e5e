"""metav1.Status bodies for answers that are not a review: the call failed (timeout, overload).

The API server's client decodes a non-2xx body of kind Status into its error, applies the webhook's
failurePolicy, and (when failing closed) shows the user this message.
"""

from __future__ import annotations

import json


def status_body(code: int, reason: str, message: str) -> bytes:
    return json.dumps({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                       "message": message, "reason": reason, "code": code}).encode()
