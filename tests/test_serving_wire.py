"""The bytes between the server process and its workers: every field of a job, a cancel and a reply
comes back as it was sent (the real server's behaviour over these pipes is in test_serving.py)."""

from __future__ import annotations

import multiprocessing
import pickle
import threading

from webhook.serving import worker
from webhook.serving.worker import Cancel, Job, Reply


def test_job_round_trip_keeps_path_body_deadline_sequence_and_verdict_sharing():
    body = bytes(range(256)) * 3 + b'{"kind":"AdmissionReview"}'
    for share in (False, True):
        job = Job("/mutate", body, deadline=12345.678901234, sequence=2**40 + 7, share_verdicts=share)
        assert worker.decode_message(worker.encode_job(job)) == job


def test_empty_body_and_unicode_path_round_trip():
    job = Job("/validate/é", b"", deadline=0.0, sequence=0)
    assert worker.decode_message(worker.encode_job(job)) == job


def test_cancel_round_trip():
    assert worker.decode_message(worker.encode_cancel(99)) == Cancel(99)


def test_reply_round_trip_and_ready_message():
    from webhook.cel.verdict import Verdict

    verdicts = ((("device.driver == 'x'", False, (True, False)), Verdict("ok", cost=3), False),
                (("bad(", True, (True, True)), Verdict("invalid", "compilation failed: ..."), True))
    reply = Reply(200, b'{"response":{}}', review={"uid": "u", "allowed": True, "workMs": 0.5},
                  metric=("ResourceClaim", "CREATE", True, False), verdicts=verdicts)
    decoded = worker.decode_reply(worker.encode_reply(reply))
    assert decoded == reply
    # The "ready" a new worker sends with Connection.send reads back through the same path.
    assert worker.decode_reply(pickle.dumps(("ready", 42))) == ("ready", 42)


def test_messages_cross_a_real_pipe_whole():
    parent, child = multiprocessing.Pipe()
    big = Job("/validate", b"x" * (3 * 1024 * 1024), deadline=1.5, sequence=3)
    received = []
    reader = threading.Thread(target=lambda: received.extend(child.recv_bytes() for _ in range(2)))
    reader.start()  # a pipe holds far less than 3 MiB: someone must read while it is written
    parent.send_bytes(worker.encode_job(big))
    parent.send_bytes(worker.encode_cancel(3))
    reader.join(60)
    assert [worker.decode_message(m) for m in received] == [big, Cancel(3)]
