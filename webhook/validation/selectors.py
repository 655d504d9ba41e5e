"""Device selectors (validateSelectorSlice / validateSelector): claims, templates, DeviceClass.

The CEL expression itself is checked only through `webhook.cel.validate_cel_selector`.
"""

from __future__ import annotations

from typing import Any

from webhook import cel
from webhook.field import ErrorList, Path, required
from webhook.limits import DEVICE_SELECTORS_MAX_SIZE
from webhook.validation._helpers import as_dict, as_str, validate_slice
from webhook.validation.options import Options


def validate_selector(selector: Any, path: Path, opts: Options, *, pinned: bool = False) -> ErrorList:
    """`pinned`: a selector many requests reuse (a DeviceClass's), kept in the CEL cache's own tier."""
    selector = as_dict(selector)
    cel_selector = selector.get("cel")
    if not isinstance(cel_selector, dict):
        return [required(path.child("cel"), "")]
    if opts.stored and not opts.profile.behaviours.stored_selectors_recompiled:
        return []  # a stored expression was valid when stored, so it is not compiled again
    expression = cel_selector.get("expression")
    expression = as_str(expression)
    return list(cel.validate_cel_selector(expression, path.child("cel", "expression"), stored=opts.stored,
                                      features=cel.features_for(opts.profile), pinned=pinned))


def validate_selector_slice(selectors: Any, path: Path, opts: Options) -> ErrorList:
    return validate_slice(selectors if isinstance(selectors, list) else None, DEVICE_SELECTORS_MAX_SIZE,
                          lambda selector, p: validate_selector(selector, p, opts), path,
                          opts.profile.behaviours.list_size_short_circuit)
