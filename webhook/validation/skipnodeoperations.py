"""`skipNodeOperations` of a ResourceSlice spec and of an allocation result (Kubernetes 1.37).

Hand-written: NodePrepareResources may only be skipped together with NodeUnprepareResources (or
`*`). Declarative (stable): each value is one of the three, and the list is a set.
"""

from __future__ import annotations

from typing import Any

from webhook.field import ErrorList, Path, invalid
from webhook.validation import declarative
from webhook.validation._helpers import as_list

SKIP_NODE_OPERATION_NODE_PREPARE_RESOURCES = "NodePrepareResources"
SKIP_NODE_OPERATION_NODE_UNPREPARE_RESOURCES = "NodeUnprepareResources"
SKIP_NODE_OPERATION_ALL = "*"
SKIP_NODE_OPERATIONS = (SKIP_NODE_OPERATION_NODE_PREPARE_RESOURCES, SKIP_NODE_OPERATION_NODE_UNPREPARE_RESOURCES,
                        SKIP_NODE_OPERATION_ALL)


def validate_skip_node_operations(operations: Any, path: Path, declarative_rules: bool = True) -> ErrorList:
    operations = as_list(operations)
    errs: ErrorList = []
    if (SKIP_NODE_OPERATION_NODE_PREPARE_RESOURCES in operations
            and SKIP_NODE_OPERATION_NODE_UNPREPARE_RESOURCES not in operations
            and SKIP_NODE_OPERATION_ALL not in operations):
        errs.append(invalid(path, operations,
                            "NodePrepareResources cannot be skipped unless NodeUnprepareResources is also skipped"))
    if declarative_rules:
        for k, operation in enumerate(operations):
            errs.extend(declarative.enum(operation, SKIP_NODE_OPERATIONS, path.index(k)))
        errs.extend(declarative.unique_set(operations, path))
    return errs
