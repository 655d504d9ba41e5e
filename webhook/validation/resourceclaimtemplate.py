"""ResourceClaimTemplate validation (ValidateResourceClaimTemplate, ValidateResourceClaimTemplateUpdate).

Update follows the registry strategy: the full create validation of the new object, then
ValidateResourceClaimTemplateUpdate (metadata update rules and an immutable spec, which 1.34 validates again).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from webhook.field import ErrorList, Path, invalid
from webhook.validation._helpers import as_dict, as_str
from webhook.validation.adminaccess import authorized_for_admin
from webhook.validation.equality import semantic_equal
from webhook.validation.meta import (
    FIELD_IMMUTABLE,
    validate_object_meta,
    validate_object_meta_update,
    validate_template_object_meta,
)
from webhook.validation.options import DEFAULT_OPTIONS, Options
from webhook.validation.resourceclaim import validate_resource_claim_spec


def validate_resource_claim_template_spec(spec: Any, path: Path, opts: Options) -> ErrorList:
    spec = as_dict(spec)
    errs = validate_template_object_meta(as_dict(spec.get("metadata")), path.child("metadata"))
    errs.extend(validate_resource_claim_spec(spec.get("spec"), path.child("spec"), opts))
    return errs


def validate_resource_claim_template(obj: dict, opts: Options = DEFAULT_OPTIONS) -> ErrorList:
    errs = validate_object_meta(obj.get("metadata"), namespaced=True)
    errs.extend(validate_resource_claim_template_spec(obj.get("spec"), Path("spec"), opts.with_stored(False)))
    return errs


def validate_resource_claim_template_update_only(new: dict, old: dict, opts: Options = DEFAULT_OPTIONS) -> ErrorList:
    """Upstream's ValidateResourceClaimTemplateUpdate."""
    errs = validate_object_meta_update(new.get("metadata"), old.get("metadata"))
    if not semantic_equal(as_dict(new.get("spec")), as_dict(old.get("spec")), "ResourceClaimTemplateSpec"):
        errs.append(invalid(Path("spec"), new.get("spec"), FIELD_IMMUTABLE))
    if opts.profile.behaviours.immutable_spec_revalidated:  # as stored: the spec is immutable
        errs.extend(validate_resource_claim_template_spec(new.get("spec"), Path("spec"), opts.with_stored(True)))
    return errs


def validate_resource_claim_template_update(new: dict, old: dict, opts: Options = DEFAULT_OPTIONS) -> ErrorList:
    """As the registry strategy composes it: create validation of `new`, then the update rules. Declarative
    validation compares with the old object: it skips the parts that did not change."""
    old_device_claim = as_dict(as_dict(as_dict(old.get("spec")).get("spec")).get("devices"))
    return validate_resource_claim_template(new, replace(opts, old_device_claim=old_device_claim)) + \
        validate_resource_claim_template_update_only(new, old, opts)


def resource_claim_template_strategy_checks(obj: dict, old: dict | None, opts: Options) -> tuple[ErrorList, list[str]]:
    """AuthorizedForAdmin on create; the path is upstream's (`spec.devices…`, not `spec.spec.devices…`)."""
    if old is not None:
        return [], []
    namespace = as_str(as_dict(obj.get("metadata")).get("namespace"))
    return authorized_for_admin(as_dict(obj.get("spec")).get("spec"), namespace, opts.namespaces)
