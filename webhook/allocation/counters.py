"""Shared counters of partitionable devices (checkAvailableCounters, deallocateCountersForDevice).

What a pool offers is computed once per Allocator, from its counter sets minus what devices of
claims already in use consume. What the claims being allocated consume is tracked per run.
Both are keyed by pool name only, as upstream before 1.37 (two drivers' pools of one name share them);
1.37 keys them by driver and pool (counters_by_pool_id).
"""

from __future__ import annotations

from decimal import Decimal

from webhook.allocation.capacity import qty


def _value(counter: dict) -> Decimal:
    return qty((counter or {}).get("value", "0")).value


class Counters:
    def __init__(self, allocator) -> None:
        self.allocator = allocator
        self.consumed: dict[tuple, dict[str, dict[str, Decimal]]] = {}

    def _key(self, candidate) -> tuple:
        """Counters are a pool's; before 1.35 (counters_beside_devices) a slice's own (keyed by its name)."""
        if self.allocator.features.counters_beside_devices:
            return ("slice", candidate.slice.name)
        return self._pool_key(candidate.pool)

    def _pool_key(self, pool) -> tuple:
        return ("pool", (pool.driver, pool.pool) if self.allocator.features.counters_by_pool_id else pool.pool)

    def available(self, pool, slice_=None) -> dict:
        """The counters of the pool (of `slice_` before 1.35) left by devices already allocated (cached on
        the Allocator)."""
        cache = self.allocator.available_counters
        key = ("slice", slice_.name) if slice_ is not None else self._pool_key(pool)
        found = cache.get(key)
        if found is None:
            sets = {cs.get("name"): cs for cs in slice_.shared_counters} if slice_ is not None else pool.counter_sets
            found = {name: {c: _value(v) for c, v in (cs.get("counters") or {}).items()} for name, cs in sets.items()}
            state = self.allocator.state
            # shared_devices_use_counters off: only fully allocated devices (AllocatedDevices.Has)
            allocated = state.is_allocated if self.allocator.features.shared_devices_use_counters \
                else state.devices.__contains__
            for s in [slice_] if slice_ is not None else list(pool.slices) + list(pool.other_slices):
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
            cache[key] = found
        return found

    def _available_for(self, candidate) -> dict:
        own = candidate.slice if self.allocator.features.counters_beside_devices else None
        return self.available(candidate.pool, own)

    def check_and_add(self, candidate) -> bool:
        """Adds the device's consumption; False (and nothing added) when a counter would be exceeded."""
        available = self._available_for(candidate)
        consumed = self.consumed.setdefault(self._key(candidate), {})
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
        consumed = self.consumed.get(self._key(candidate), {})
        for consumption in candidate.device.get("consumesCounters") or []:
            into = consumed.setdefault(consumption.get("counterSet"), {})
            for name, c in (consumption.get("counters") or {}).items():
                into[name] = into.get(name, Decimal(0)) - _value(c)

    def exceeded(self, candidate) -> str:
        """For explanations: the first counter the device alone would exceed, given devices in use."""
        available = self._available_for(candidate)
        for consumption in candidate.device.get("consumesCounters") or []:
            counters = available.get(consumption.get("counterSet"), {})
            for name, c in (consumption.get("counters") or {}).items():
                if name in counters and counters[name] < _value(c):
                    return f"{consumption.get('counterSet')}/{name} needs {c.get('value')}, {_fmt(counters[name])} left"
        return ""


def _fmt(value: Decimal) -> str:
    from webhook.allocation.capacity import text

    return text(value)
