package main

// How this release's scheduler starts its ResourceSlice tracker (pkg/scheduler/scheduler.go New at the
// tag): the gate that turns DeviceTaintRules on, and the informers it passes.

import (
	"context"
	"encoding/json"

	resourcerules "k8s.io/api/resource/v1beta2"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	resourceslicetracker "k8s.io/dynamic-resource-allocation/resourceslice/tracker"
	"k8s.io/kubernetes/pkg/features"
)

func taintRulesEnabled() bool {
	return utilfeature.DefaultFeatureGate.Enabled(features.DRADeviceTaintRules)
}

func decodeTaintRule(raw json.RawMessage) (*resourcerules.DeviceTaintRule, error) {
	var rule resourcerules.DeviceTaintRule
	err := json.Unmarshal(raw, &rule)
	return &rule, err
}

func startTracker(ctx context.Context, factory informers.SharedInformerFactory) (*resourceslicetracker.Tracker, error) {
	return resourceslicetracker.StartTracker(ctx, resourceslicetracker.Options{
		EnableDeviceTaintRules:   true,
		EnableConsumableCapacity: utilfeature.DefaultFeatureGate.Enabled(features.DRAConsumableCapacity),
		SliceInformer:            factory.Resource().V1().ResourceSlices(),
		TaintInformer:            factory.Resource().V1beta2().DeviceTaintRules(),
		ClassInformer:            factory.Resource().V1().DeviceClasses(),
	})
}
