"""The feature gates that change the CEL selector environment (no CEL library imported here)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Features:
    """dynamic-resource-allocation cel.Features; defaults are the 1.36 gate defaults."""

    consumable_capacity: bool = True  # DRAConsumableCapacity: beta, on (device.allowMultipleAllocations)
    list_type_attributes: bool = False  # DRAListTypeAttributes: alpha, off (attribute values dyn, includes())
    # Whether the release has list attributes at all (behaviour list_type_attributes): before, not even
    # stored expressions may call includes().
    list_types_exist: bool = True
    # New expressions may use cel-go's lists extension (behaviour new_cel_lists_extension: from the 1.34
    # compatibility version on, so not on a 1.34 server, which compiles new expressions at 1.33).
    lists_extension: bool = True
    # Device attributes holding lists are list values whatever the gate (1.37's getAttributeValue; 1.36
    # converts them only with DRAListTypeAttributes, and fails on them otherwise).
    list_values_always: bool = False
    # `includes` is the lists library's (behaviour cel_includes_in_lists_library, 1.37), not DRA's own.
    includes_in_lists_library: bool = False

    @property
    def key(self) -> tuple[bool, ...]:
        """The gates as a plain tuple, for cache keys (hashed in C; the dataclass hash is Python code)."""
        return (self.consumable_capacity, self.list_type_attributes, self.list_types_exist, self.lists_extension,
                self.list_values_always, self.includes_in_lists_library)
