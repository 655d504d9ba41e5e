"""The RFC 6902 JSON Patch that turns the received object into its defaulted copy."""

from __future__ import annotations

import jsonpatch


def make_patch(before: dict, after: dict) -> list[dict]:
    # A diff of the two documents, so the pointers always match the object the API server holds.
    return list(jsonpatch.make_patch(before, after))
