package main

// The scheduler reads ResourceSlices through its resourceslice tracker
// (k8s.io/dynamic-resource-allocation/resourceslice/tracker), which appends the taints of matching
// DeviceTaintRules to the devices when the release's gate is on (1.34: DRADeviceTaints, later:
// DRADeviceTaintRules; pkg/scheduler/scheduler.go New). Here the tracker's own code applies them: the
// tracker is built by its newTracker (as its unit tests do) over informers that are filled, not started,
// and each slice goes through its applyPatches with every rule, as its syncSlice does once the informers
// have synced. Both are unexported (reached by linkname, in each release's taintrules.go). Running the
// tracker's informers instead would add their event ordering, which is not deterministic.

import (
	"context"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
)

// patchedSlices is what ListWithDeviceTaintRules gives the plugin: the slices with the rules applied, in
// the scenario's order (the tracker lists them from a store in map order; the allocator of 1.36+ sorts
// them, and before 1.36 the differential takes the product's answer for every order of the pools anyway,
// so the scenario's order is kept for the slices of one pool).
func patchedSlices(ctx context.Context, s *scenario) ([]*resourceapi.ResourceSlice, error) {
	if len(s.TaintRules) == 0 || !taintRulesEnabled() {
		return s.Slices, nil // the tracker is then a thin wrapper around the slice informer
	}
	factory := informers.NewSharedInformerFactory(fake.NewSimpleClientset(), 0)
	patch, err := trackerPatches(ctx, factory, s.Classes, s.TaintRules)
	if err != nil {
		return nil, err
	}
	out := make([]*resourceapi.ResourceSlice, 0, len(s.Slices))
	for _, slice := range s.Slices {
		patched, err := patch(slice)
		if err != nil {
			continue // syncSlice reports the error and does not list the slice
		}
		out = append(out, patched)
	}
	return out, nil
}
