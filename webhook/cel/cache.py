"""Verdicts of the faithful engine, cached per (expression, stored?, features) in two LRU tiers bounded in bytes.

DeviceClass selectors are few and every claim of the class needs them, while claim selectors are
often one-off: a client sending thousands of distinct claim selectors evicts only other claim
selectors. Pinned entries (DeviceClass or stored selectors) live in their own tier and are evicted
only by other pinned entries.

An entry is charged `sys.getsizeof(expression) + ENTRY_OVERHEAD`; the overhead (key tuple, LRU slot,
verdict object) is measured by `benchmarks/cel.py`, which also reports the real memory ceiling.
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict

from webhook.cel.verdict import Verdict

ENTRY_OVERHEAD = 512  # bytes per entry beyond the expression string (measured: ~200 on CPython 3.11)
GENERAL_BYTES = 32 << 20  # claim and template selectors
PINNED_BYTES = 8 << 20  # DeviceClass and stored selectors


class _Tier:
    __slots__ = ("limit", "used", "entries")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0
        self.entries: OrderedDict[tuple, tuple[Verdict, int]] = OrderedDict()

    def put(self, key: tuple, verdict: Verdict, charge: int) -> None:
        old = self.entries.pop(key, None)
        if old is not None:
            self.used -= old[1]
        self.entries[key] = (verdict, charge)
        self.used += charge
        while self.used > self.limit and self.entries:
            _, (_, freed) = self.entries.popitem(last=False)
            self.used -= freed


class VerdictCache:
    def __init__(self, general_bytes: int = GENERAL_BYTES, pinned_bytes: int = PINNED_BYTES) -> None:
        self._lock = threading.Lock()
        self._general = _Tier(general_bytes)
        self._pinned = _Tier(pinned_bytes)

    def get(self, key: tuple, pinned: bool) -> Verdict | None:
        """The cached verdict; a pinned lookup promotes an entry found among the general ones."""
        with self._lock:
            found = self._pinned.entries.get(key)
            if found is not None:
                self._pinned.entries.move_to_end(key)
                return found[0]
            found = self._general.entries.get(key)
            if found is None:
                return None
            if pinned:
                del self._general.entries[key]
                self._general.used -= found[1]
                self._pinned.put(key, *found)
            else:
                self._general.entries.move_to_end(key)
            return found[0]

    def put(self, key: tuple, verdict: Verdict, pinned: bool) -> None:
        charge = sys.getsizeof(key[0]) + ENTRY_OVERHEAD
        with self._lock:
            if not pinned and key in self._pinned.entries:
                return
            (self._pinned if pinned else self._general).put(key, verdict, charge)

    def clear(self) -> None:
        with self._lock:
            for tier in (self._general, self._pinned):
                tier.entries.clear()
                tier.used = 0

    def stats(self) -> dict[str, int]:
        with self._lock:
            return {"general_entries": len(self._general.entries), "general_bytes": self._general.used,
                    "pinned_entries": len(self._pinned.entries), "pinned_bytes": self._pinned.used}
