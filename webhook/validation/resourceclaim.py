"""ResourceClaim validation: create, update of the main resource, status update.

Composition follows the registry strategy: create is ValidateResourceClaim, update is
ValidateResourceClaimUpdate (the spec is immutable; 1.34 validates it again, as stored), status is
ValidateResourceClaimStatusUpdate. The admin-access namespace check of the strategy needs the
namespace object: `resource_claim_strategy_checks`.
"""

from __future__ import annotations

from typing import Any

from webhook.field import ErrorList, Path, invalid
from webhook.validation._helpers import as_dict, as_str
from webhook.validation.adminaccess import authorized_for_admin, authorized_for_admin_status
from webhook.validation.claimstatus import _validate_resource_claim_status_update
from webhook.validation.deviceclaim import validate_device_claim
from webhook.validation.equality import semantic_equal
from webhook.validation.meta import FIELD_IMMUTABLE, validate_object_meta, validate_object_meta_update
from webhook.validation.options import DEFAULT_OPTIONS, Options
from webhook.validation.requestref import gather_request_names


def validate_resource_claim_spec(spec: Any, path: Path, opts: Options) -> ErrorList:
    return validate_device_claim(as_dict(spec).get("devices"), path.child("devices"), opts)


def validate_resource_claim(obj: dict, opts: Options = DEFAULT_OPTIONS) -> ErrorList:
    errs = validate_object_meta(obj.get("metadata"), namespaced=True)
    errs.extend(validate_resource_claim_spec(obj.get("spec"), Path("spec"), opts.with_stored(False)))
    return errs


def validate_resource_claim_update(new: dict, old: dict, opts: Options = DEFAULT_OPTIONS) -> ErrorList:
    behaviours = opts.profile.behaviours
    errs = validate_object_meta(new.get("metadata"), namespaced=True) if behaviours.update_validates_object_meta \
        else []
    errs.extend(validate_object_meta_update(new.get("metadata"), old.get("metadata")))
    if not semantic_equal(as_dict(new.get("spec")), as_dict(old.get("spec")), "ResourceClaimSpec"):
        errs.append(invalid(Path("spec"), new.get("spec"), FIELD_IMMUTABLE))
    if behaviours.immutable_spec_revalidated:  # "all CEL expressions in it must have been stored"
        errs.extend(validate_resource_claim_spec(new.get("spec"), Path("spec"), opts.with_stored(True)))
    return errs


def validate_resource_claim_status_update(new: dict, old: dict, opts: Options = DEFAULT_OPTIONS) -> ErrorList:
    errs = validate_object_meta_update(new.get("metadata"), old.get("metadata"))
    names = gather_request_names(as_dict(as_dict(new.get("spec")).get("devices")))
    deleted = as_dict(new.get("metadata")).get("deletionTimestamp") is not None
    errs.extend(_validate_resource_claim_status_update(new.get("status"), old.get("status"), deleted, names,
                                                       Path("status"), opts))
    return errs


def resource_claim_strategy_checks(obj: dict, old: dict | None, opts: Options) -> tuple[ErrorList, list[str]]:
    """What the registry strategy adds: AuthorizedForAdmin on create, AuthorizedForAdminStatus on update."""
    namespace = as_str(as_dict(obj.get("metadata")).get("namespace"))
    if old is None:
        return authorized_for_admin(obj.get("spec"), namespace, opts.namespaces)
    return authorized_for_admin_status(obj.get("status"), old.get("status"), namespace, opts.namespaces)
