"""Small reviews answered in the server process itself, without the round trip to a worker.

Handing a request to a worker costs more than reviewing a typical claim: on one CPU (the
Deployment's `cpu: 1`) the pipe, two context switches and the caches they cool cost about as much
as the review. So a review whose work is known to be small runs here, on the event loop:

- the body is at most `max_body_bytes` (the checks are linear in the body, so this bounds the time
  the event loop is busy: well under a millisecond at the default), and nests shallowly (bracket
  count), so that it runs with the stack headroom a worker has;
- every CEL selector in it has a cached verdict (`cel.cached_only`): compiling, whose cost grows
  with the expression rather than with the body, stays in the workers. A review that meets an
  uncompiled selector is handed to a worker, which sends the verdicts back with its reply
  (`share_verdicts`), so that the next request with those selectors is answered here.

The deadline is observed as in a worker (a 504 when it passes). The verdict is the same either way:
the same function reviews the same bytes.
"""

from __future__ import annotations

import logging
import time

from webhook import cel
from webhook.profile import Profile
from webhook.serving.statuses import status_body
from webhook.serving.worker import Job, Reply, handle

log = logging.getLogger("dra-webhook")

# A body with at most this many '[' and '{' nests at most this deep: the review's recursion (about two
# frames per level) stays far from the interpreter's limit even below the event loop's own frames.
MAX_BRACKETS = 256


class InlineReviewer:
    def __init__(self, profile: Profile, max_body_bytes: int, enforce_builtin: bool = True) -> None:
        self.profile = profile
        self.enforce_builtin = enforce_builtin
        self.max_body_bytes = max_body_bytes

    def eligible(self, body: bytes) -> bool:
        return (len(body) <= self.max_body_bytes
                and body.count(b"[") + body.count(b"{") <= MAX_BRACKETS)

    def review(self, job: Job, deadline: float) -> Reply | None:
        """The reply, or None when the review needs a worker (a selector to compile)."""
        started = time.monotonic()
        try:
            with cel.cached_only():
                reply = handle(job, lambda: deadline, self.profile, self.enforce_builtin)
        except cel.CompileNeeded:
            return None
        except Exception:  # a bug of ours: a clean 500, and the server lives on
            log.exception("internal error while reviewing in the server process")
            reply = Reply(500, status_body(500, "InternalError", "dra-webhook internal error"),
                          review={"reason": "internal error"})
        reply.review["workMs"] = round((time.monotonic() - started) * 1000, 3)
        return reply

    @staticmethod
    def learn(verdicts: tuple) -> None:
        """Caches the verdicts a worker compiled for a request that could not be answered here."""
        cel.learn_verdicts(verdicts)
