"""validatePoolName: Required when empty, TooLong over 253, each '/' segment a DNS subdomain."""

from __future__ import annotations

from webhook.field import ErrorList, Path, required, too_long
from webhook.limits import POOL_NAME_MAX_LENGTH
from webhook.validation.names import byte_len, validate_dns_subdomain


def validate_pool_name(name: str, path: Path) -> ErrorList:
    if not name:
        return [required(path, "")]
    errs: ErrorList = []
    if byte_len(name) > POOL_NAME_MAX_LENGTH:
        errs.append(too_long(path, "", POOL_NAME_MAX_LENGTH))
    for part in name.split("/"):
        errs.extend(validate_dns_subdomain(part, path))
    return errs
