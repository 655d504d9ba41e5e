package main

// How the scheduler starts its ResourceSlice tracker (pkg/scheduler/scheduler.go New), the same in every
// release but for what each release's taintrules.go says (the gate that turns DeviceTaintRules on, the rules'
// API version and the informers it passes); and the tracker's unexported newTracker and applyPatches
// (tracker.go says why).

import (
	"context"
	"encoding/json"
	"fmt"
	_ "unsafe" // go:linkname

	resourceapi "k8s.io/api/resource/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	resourceslicetracker "k8s.io/dynamic-resource-allocation/resourceslice/tracker"
	"k8s.io/kubernetes/pkg/features"
)

func taintRulesEnabled() bool {
	return utilfeature.DefaultFeatureGate.Enabled(taintRulesGate)
}

//go:linkname newTracker k8s.io/dynamic-resource-allocation/resourceslice/tracker.newTracker
func newTracker(ctx context.Context, opts resourceslicetracker.Options) (*resourceslicetracker.Tracker, error)

//go:linkname applyPatches k8s.io/dynamic-resource-allocation/resourceslice/tracker.(*Tracker).applyPatches
func applyPatches(t *resourceslicetracker.Tracker, ctx context.Context, slice *resourceapi.ResourceSlice,
	taintRules []*deviceTaintRule) (*resourceapi.ResourceSlice, error)

func trackerPatches(ctx context.Context, factory informers.SharedInformerFactory, classes []*resourceapi.DeviceClass,
	raw []json.RawMessage) (func(*resourceapi.ResourceSlice) (*resourceapi.ResourceSlice, error), error) {
	rules := make([]*deviceTaintRule, 0, len(raw))
	for i, data := range raw {
		var rule deviceTaintRule
		if err := json.Unmarshal(data, &rule); err != nil {
			return nil, fmt.Errorf("DeviceTaintRule #%d: %w", i, err)
		}
		rules = append(rules, &rule)
	}
	opts := resourceslicetracker.Options{
		EnableConsumableCapacity: utilfeature.DefaultFeatureGate.Enabled(features.DRAConsumableCapacity),
		SliceInformer:            factory.Resource().V1().ResourceSlices(),
	}
	if classInformer := taintOptions(&opts, factory); classInformer != nil {
		for _, class := range classes { // what the class informer holds (1.34 selects devices by class)
			if err := classInformer.Informer().GetIndexer().Add(class); err != nil {
				return nil, err
			}
		}
	}
	tracker, err := newTracker(ctx, opts)
	if err != nil {
		return nil, err
	}
	return func(slice *resourceapi.ResourceSlice) (*resourceapi.ResourceSlice, error) {
		return applyPatches(tracker, ctx, slice, rules)
	}, nil
}
