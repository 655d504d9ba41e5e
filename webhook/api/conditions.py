"""metav1.Condition as it travels in JSON."""

from __future__ import annotations

from typing import Optional

from pydantic import Field

from webhook.api.base import Int64, Str, Time, WireModel


class Condition(WireModel):
    type: Optional[Str] = None
    status: Optional[Str] = None
    observed_generation: Optional[Int64] = Field(None, alias="observedGeneration")
    last_transition_time: Optional[Time] = Field(None, alias="lastTransitionTime")
    reason: Optional[Str] = None
    message: Optional[Str] = None
