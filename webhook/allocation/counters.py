"""Shared counters of partitionable devices (checkAvailableCounters, deallocateCountersForDevice).

What a pool offers is computed once per Allocator, from its counter sets minus what devices of
claims already in use consume. What the claims being allocated consume is tracked per run.
Both are keyed by pool name only, as upstream.
"""

from __future__ import annotations

from decimal import Decimal

from webhook.allocation.capacity import qty


def _value(counter: dict) -> Decimal:
    return qty((counter or {}).get("value", "0")).value


class Counters:
    def __init__(self, allocator) -> None:
        self.allocator = allocator
        self.consumed: dict[str, dict[str, dict[str, Decimal]]] = {}

    def available(self, pool) -> dict:
        """The counters of the pool left by devices already allocated (cached on the Allocator)."""
        cache = self.allocator.available_counters
        found = cache.get(pool.pool)
        if found is None:
            found = {name: {c: _value(v) for c, v in (cs.get("counters") or {}).items()}
                     for name, cs in pool.counter_sets.items()}
            state = self.allocator.state
            # shared_devices_use_counters off: only fully allocated devices (AllocatedDevices.Has)
            allocated = state.is_allocated if self.allocator.features.shared_devices_use_counters \
                else state.devices.__contains__
            for s in list(pool.slices) + list(pool.other_slices):
                for device in s.devices:
                    if not allocated((s.driver, s.pool, device.get("name"))):
                        continue
                    for consumption in device.get("consumesCounters") or []:
                        counters = found.get(consumption.get("counterSet"))
                        if counters is None:
                            continue
                        for name, c in (consumption.get("counters") or {}).items():
                            if name in counters:
                                counters[name] -= _value(c)
            cache[pool.pool] = found
        return found

    def check_and_add(self, candidate) -> bool:
        """Adds the device's consumption; False (and nothing added) when a counter would be exceeded."""
        available = self.available(candidate.pool)
        consumed = self.consumed.setdefault(candidate.pool.pool, {})
        for consumption in candidate.device.get("consumesCounters") or []:
            into = consumed.setdefault(consumption.get("counterSet"), {})
            for name, c in (consumption.get("counters") or {}).items():
                into[name] = into.get(name, Decimal(0)) + _value(c)
        for set_name, counters in available.items():
            taken = consumed.get(set_name, {})
            for name, value in counters.items():
                if value < taken.get(name, Decimal(0)):
                    self.remove(candidate)
                    return False
        return True

    def remove(self, candidate) -> None:
        consumed = self.consumed.get(candidate.pool.pool, {})
        for consumption in candidate.device.get("consumesCounters") or []:
            into = consumed.setdefault(consumption.get("counterSet"), {})
            for name, c in (consumption.get("counters") or {}).items():
                into[name] = into.get(name, Decimal(0)) - _value(c)

    def exceeded(self, candidate) -> str:
        """For explanations: the first counter the device alone would exceed, given devices in use."""
        available = self.available(candidate.pool)
        for consumption in candidate.device.get("consumesCounters") or []:
            counters = available.get(consumption.get("counterSet"), {})
            for name, c in (consumption.get("counters") or {}).items():
                if name in counters and counters[name] < _value(c):
                    return f"{consumption.get('counterSet')}/{name} needs {c.get('value')}, {_fmt(counters[name])} left"
        return ""


def _fmt(value: Decimal) -> str:
    from webhook.allocation.capacity import text

    return text(value)
