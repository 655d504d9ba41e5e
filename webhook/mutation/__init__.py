"""Defaults the API server applies, and the JSON Patch that brings an object to its defaulted form.

Each defaulter defaults one copied object in place: `(obj, old or None, operation, now)`. Defaults
work on the raw versioned object, because the patch has to address the object as the client sent it.
Which defaulter serves which (kind, version) is `webhook.kinds`'s to say; `patch.make_patch` gives
the RFC 6902 operations.
"""
