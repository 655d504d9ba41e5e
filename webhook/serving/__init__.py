"""The HTTPS admission server (`dra-webhook serve`).

settings (flags and defaults), app (the main port's routes), timeouts (deadlines), budget (bytes
in flight), writes (the write timeout), pool and worker (reviews run in worker processes, under a
deadline), health (the probe port), limits (connection limits), run (wiring). `run(settings)` serves until SIGTERM.
"""

from webhook.serving.run import run
from webhook.serving.settings import DEFAULT_MAX_BODY_BYTES, ServerSettings

__all__ = ["DEFAULT_MAX_BODY_BYTES", "ServerSettings", "run"]
