package main

// What this release's dynamicresources plugin passes to structured.NewAllocator and cel.NewCache
// (pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go at the tag), and what its scheduler
// passes to the ResourceSlice tracker (pkg/scheduler/scheduler.go New; taintrules.go does the rest).

import (
	resourcerules "k8s.io/api/resource/v1"
	"k8s.io/client-go/informers"
	"k8s.io/dynamic-resource-allocation/cel"
	resourceslicetracker "k8s.io/dynamic-resource-allocation/resourceslice/tracker"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
)

// AllocatorFeatures is exported by the plugin at this tag; it is copied, not imported, so the binary does
// not build the whole scheduler framework.
func allocatorFeatures(fts feature.Features) structured.Features {
	return structured.Features{
		AdminAccess:             fts.EnableDRAAdminAccess,
		PrioritizedList:         fts.EnableDRAPrioritizedList,
		PartitionableDevices:    fts.EnableDRAPartitionableDevices,
		DeviceTaints:            fts.EnableDRADeviceTaints,
		DeviceBindingAndStatus:  fts.EnableDRADeviceBindingConditions && fts.EnableDRAResourceClaimDeviceStatus,
		ConsumableCapacity:      fts.EnableDRAConsumableCapacity,
		FractionalCapacityRange: fts.EnableDRAFractionalCapacityRange,
		ListTypeAttributes:      fts.EnableDRAListTypeAttributes,
		OptionalNodeOperations:  fts.EnableDRAOptionalNodeOperations,
		DerivedAttributes:       fts.EnableDRADerivedAttributes,
		CompatibilityGroups:     fts.EnableDRADeviceCompatibilityGroups,
	}
}

func celFeatures(fts feature.Features) cel.Features {
	return cel.Features{
		EnableConsumableCapacity: fts.EnableDRAConsumableCapacity,
		EnableListTypeAttributes: fts.EnableDRAListTypeAttributes,
	}
}

func consumableCapacity(fts feature.Features) bool { return fts.EnableDRAConsumableCapacity }

type deviceTaintRule = resourcerules.DeviceTaintRule

const taintRulesGate = features.DRADeviceTaintRules

func taintRuleOptions(opts *resourceslicetracker.Options, f informers.SharedInformerFactory) {
	opts.EnableDeviceTaintRules, opts.TaintInformer = true, f.Resource().V1().DeviceTaintRules()
}
