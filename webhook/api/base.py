"""Common pydantic configuration for the wire-shape models.

The models only check JSON types the way Go's decoder would (strict: no "1" for an int, no 1.0 for
a bool); Kubernetes rules live in `webhook.validation`. Unknown fields are reported as warnings,
like the API server's default field validation.
"""

from __future__ import annotations

from typing import Annotated, Union

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr

from webhook.api import gotime

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1

Int64 = Annotated[StrictInt, Field(ge=INT64_MIN, le=INT64_MAX)]
Int32 = Annotated[StrictInt, Field(ge=INT32_MIN, le=INT32_MAX)]  # go_types names the fields' Go type int32
Str = StrictStr
Bool = StrictBool
# metav1.Time: RFC 3339 text, refused with Go's time.Parse error (webhook/api/gotime.py).
Time = Annotated[StrictStr, AfterValidator(gotime.check)]
# resource.Quantity accepts a JSON string or number; its format is checked by webhook.quantity.
QuantityValue = Union[StrictStr, StrictInt, StrictFloat]


class WireModel(BaseModel):
    """Base of every wire model: JSON names as aliases, unknown fields flagged, strict types."""

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=False, frozen=True, defer_build=True)
