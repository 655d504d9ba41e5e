"""The same objects validated under Kubernetes 1.34, 1.35, 1.36 and 1.37 (every DRA gate on), side by side.

1.37 adds declarative rules inside every device of a slice and per-claim derived-attribute state;
1.35 reports map keys at the key; 1.34 validates slices by its own counter model and every list
item; this shows what that costs on a maximum-size slice and a large
claim, as a ratio to 1.36 (defaults).
"""

from __future__ import annotations

from _timing import best_of
from resourceclaim import large_claim
from resourceslice import max_slice
from webhook.profile import GATES, make_profile
from webhook.validation.options import Options
from webhook.validation.resourceclaim import validate_resource_claim
from webhook.validation.resourceslice import validate_resource_slice, validate_resource_slice_update


def main() -> None:
    v136 = Options(make_profile("1.36"))
    v134 = Options(make_profile("1.34", {name: True for name in GATES["1.34"]}))
    v135 = Options(make_profile("1.35", {name: True for name in GATES["1.35"]}))
    v137 = Options(make_profile("1.37", {name: True for name in GATES["1.37"]}))
    slice_, claim = max_slice(), large_claim()
    relabelled = max_slice()  # an update that leaves the devices alone: 1.37 ratchets capacities
    relabelled["metadata"]["labels"] = {"updated": "true"}
    relabelled["metadata"]["resourceVersion"] = slice_["metadata"]["resourceVersion"] = "1"
    for label, run in [
        ("slice create", lambda opts: validate_resource_slice(slice_, opts)),
        ("slice relabel", lambda opts: validate_resource_slice_update(relabelled, slice_, opts)),
        ("claim create", lambda opts: validate_resource_claim(claim, opts)),
    ]:
        assert run(v134) == run(v135) == run(v136) == run(v137) == [], label
        oldest, before = best_of(lambda: run(v134)), best_of(lambda: run(v135))
        old, new = best_of(lambda: run(v136)), best_of(lambda: run(v137))
        print(f"{label:<14} 1.34 {oldest * 1e3:>9.3f} ms ({oldest / old:>5.3f}x)   "
              f"1.35 {before * 1e3:>9.3f} ms ({before / old:>5.3f}x)   1.36 {old * 1e3:>9.3f} ms   "
              f"1.37 {new * 1e3:>9.3f} ms ({new / old:>5.3f}x)")


if __name__ == "__main__":
    main()
