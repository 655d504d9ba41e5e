package main

// The scheduler reads ResourceSlices through its resourceslice tracker
// (k8s.io/dynamic-resource-allocation/resourceslice/tracker), which appends the taints of matching
// DeviceTaintRules to the devices when the release's gate is on (1.34: DRADeviceTaints, later:
// DRADeviceTaintRules; pkg/scheduler/scheduler.go New). Here the real tracker runs over informers of a fake
// clientset holding the scenario's slices, classes and rules, as the scheduler starts it; each release's
// taintrules.go says which gate, API version and informers.

import (
	"context"
	"fmt"
	"sort"
	"time"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
)

// patchedSlices is what ListWithDeviceTaintRules gives the plugin: the slices with the rules applied,
// in the scenario's order (the tracker lists them from a store in map order; the allocator of 1.36+
// sorts them, and before 1.36 the differential takes the product's answer for every order of the pools
// anyway, so the scenario's order is kept for the slices of one pool).
func patchedSlices(ctx context.Context, s *scenario) ([]*resourceapi.ResourceSlice, error) {
	if len(s.TaintRules) == 0 || !taintRulesEnabled() {
		return s.Slices, nil // the tracker is then a thin wrapper around the slice informer
	}
	var objects []runtime.Object
	for _, sl := range s.Slices {
		objects = append(objects, sl)
	}
	for _, c := range s.Classes {
		objects = append(objects, c)
	}
	for i, raw := range s.TaintRules {
		rule, err := decodeTaintRule(raw)
		if err != nil {
			return nil, fmt.Errorf("DeviceTaintRule #%d: %w", i, err)
		}
		objects = append(objects, rule)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	client := fake.NewSimpleClientset(objects...)
	factory := informers.NewSharedInformerFactory(client, 0)
	defer factory.Shutdown()
	defer cancel() // runs before Shutdown: the informers stop first
	tracker, err := startTracker(ctx, factory)
	if err != nil {
		return nil, err
	}
	defer tracker.Stop()
	factory.Start(ctx.Done())
	// The scheduler waits for the tracker to sync before its first cycle (polled here at a short
	// interval: cache.WaitForCacheSync polls every 100 ms).
	deadline := time.Now().Add(30 * time.Second)
	for !tracker.HasSynced() {
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the ResourceSlice tracker did not sync")
		}
		time.Sleep(50 * time.Microsecond)
	}
	patched, err := tracker.ListPatchedResourceSlices()
	if err != nil {
		return nil, err
	}
	order := map[string]int{}
	for i, sl := range s.Slices {
		order[sl.Name] = i
	}
	sort.SliceStable(patched, func(i, j int) bool { return order[patched[i].Name] < order[patched[j].Name] })
	return patched, nil
}
