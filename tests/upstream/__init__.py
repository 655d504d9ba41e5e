"""Upstream Kubernetes in the loop: the registry oracle of each release (Go, built from the pinned modules here)
and the differential that holds the product's verdicts against it. See docs/upstream-differential.md."""
