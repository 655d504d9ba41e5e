"""What the API server's registry adds around a strategy's own validation (k8s.io/apiserver pkg/registry/rest).

Every update, of the main resource or of its status, is validated by `rest.BeforeUpdate`, which first checks the
common metadata (validateCommonFields: ValidateObjectMetaAccessor of the new object, its name a valid URL path
segment, and ValidateObjectMetaAccessorUpdate), then runs the strategy's ValidateUpdate. A bad label of an
update is so reported by both, and again by each metadata check of the strategy's own.

Where a release's strategy validates declaratively with its hand-written errors in hand (every resource.k8s.io
kind from 1.37, on create and update), FilterCoveredHandwrittenErrors goes through `ErrorList.Filter`, which
rebuilds the list through ToAggregate: one hand-written error per message is left (the declarative errors are
appended after, as they are).
"""

from __future__ import annotations

from webhook.field import ErrorList, Path
from webhook.validation.meta import (
    name_is_path_segment, validate_object_meta_accessor, validate_object_meta_accessor_update,
)


def validate_common_fields(new: dict, old: dict, namespaced: bool) -> ErrorList:
    """rest's validateCommonFields (BeforeUpdate), before the strategy's errors."""
    path = Path("metadata")
    errs = validate_object_meta_accessor(new.get("metadata"), namespaced, name_is_path_segment, path)
    errs.extend(validate_object_meta_accessor_update(new.get("metadata"), old.get("metadata"), path))
    return errs


def one_per_message(errors: ErrorList) -> ErrorList:
    """`ErrorList.Filter`'s side effect on the hand-written errors: the first of each message (Go's `%v`) kept;
    declarative errors are left as they are."""
    seen: set[str] = set()
    kept: ErrorList = []
    for error in errors:
        if not error.declarative:
            message = str(error)
            if message in seen:
                continue
            seen.add(message)
        kept.append(error)
    return kept
