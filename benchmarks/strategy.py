"""The disabled-gate drop step on a maximum-size ResourceSlice, next to validating it.

Every gate off (the most walking), nothing to drop (the common case). `disabled_fields_present`
runs on every served request, `drop_disabled_fields` (a deep copy) on every offline one.
Prints the timings and their ratios to validation; the drop step should stay a small fraction.
"""

from __future__ import annotations

from _timing import best_of
from resourceslice import max_slice
from webhook.profile import GATES, make_profile
from webhook.kinds import disabled_fields_present, drop_disabled_fields
from webhook.validation.resourceslice import validate_resource_slice


def main() -> None:
    obj = max_slice()
    all_off = make_profile(gates={name: False for name in GATES["1.36"]}, allow_locked=True)
    assert disabled_fields_present("ResourceSlice", obj, None, all_off) == []
    check = best_of(lambda: validate_resource_slice(obj))
    present = best_of(lambda: disabled_fields_present("ResourceSlice", obj, None, all_off))
    dropped = best_of(lambda: drop_disabled_fields("ResourceSlice", obj, None, all_off))
    print(f"validation               {check * 1e3:>10.3f} ms")
    print(f"disabled_fields_present  {present * 1e3:>10.3f} ms  ratio {present / check:>6.3f}x")
    print(f"drop_disabled_fields     {dropped * 1e3:>10.3f} ms  ratio {dropped / check:>6.3f}x")


if __name__ == "__main__":
    main()
