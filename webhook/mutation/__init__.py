"""Defaults the API server applies, and the JSON Patch that brings an object to its defaulted form.

Each defaulter defaults one object in place and records every field it sets as an RFC 6902
operation: `(obj, old or None, operation, now, patch)` (no diff of the whole object). Defaults work
on the raw versioned object, because the patch has to address the object as the client sent it.
Which defaulter serves which (kind, version) is `webhook.kinds`'s to say (`kinds.default_with_patch`).
"""
