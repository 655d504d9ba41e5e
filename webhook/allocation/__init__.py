"""The scheduler's structured allocator, offline: which devices Kubernetes 1.36 or 1.37 would pick, and why not.

A port of k8s.io/dynamic-resource-allocation `structured/internal/experimental` (the implementation that
covers every feature): `pools` gathers the pools a node sees, `allocator` searches first-fit with
backtracking, `constraints`, `capacity` and `counters` hold the rules a candidate device must pass,
`results` builds the AllocationResult, and `explain` says per request which devices were removed and why.
Under Kubernetes 1.37 `compatibility` and `derived` add compatibility groups and derived attributes, and
`nodeallocatable` the reshaped node-allocatable footprint (`footprint` is 1.36's).
"""
