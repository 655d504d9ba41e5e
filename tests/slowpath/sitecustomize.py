"""A controllable slow path for the server tests, so none depends on how fast the machine is.

Loaded by every Python process started with this directory on PYTHONPATH (the server and its spawned
workers) when DRA_WEBHOOK_TEST_STALL names a directory: then POST /validate of an object whose name
starts with `stall` keeps its worker (never the server process) busy, checking its deadline as real
work does, until the test creates a file of that name in the directory (the review then goes on as
usual) or the deadline passes (the usual 504). Everything else is the real server: TLS, workers,
deadlines, cancellation.
"""

import os

_directory = os.environ.get("DRA_WEBHOOK_TEST_STALL")

if _directory:
    import multiprocessing
    import time

    from webhook import admit, cel

    _validate = admit.validate

    def _stalling_validate(request, **kwargs):
        obj = request.object if isinstance(request.object, dict) else {}
        name = str((obj.get("metadata") or {}).get("name") or "")
        if name.startswith("stall") and multiprocessing.parent_process() is not None:  # in a worker
            release = os.path.join(_directory, name)
            while not os.path.exists(release):
                cel.check_deadline()  # raises when the deadline passes or the request is cancelled
                time.sleep(0.01)
        return _validate(request, **kwargs)

    admit.validate = _stalling_validate
