package main

// What this release's dynamicresources plugin passes to structured.NewAllocator and cel.NewCache
// (pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go at the tag), and what its scheduler
// passes to the ResourceSlice tracker (pkg/scheduler/scheduler.go New; taintrules.go does the rest).

import (
	resourcerules "k8s.io/api/resource/v1alpha3"
	"k8s.io/client-go/informers"
	"k8s.io/dynamic-resource-allocation/cel"
	resourceslicetracker "k8s.io/dynamic-resource-allocation/resourceslice/tracker"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
)

func allocatorFeatures(fts feature.Features) structured.Features {
	return structured.Features{
		AdminAccess:          fts.EnableDRAAdminAccess,
		PrioritizedList:      fts.EnableDRAPrioritizedList,
		PartitionableDevices: fts.EnablePartitionableDevices,
		DeviceTaints:         fts.EnableDRADeviceTaints,
		DeviceBinding:        fts.EnableDRADeviceBindingConditions,
		DeviceStatus:         fts.EnableDRAResourceClaimDeviceStatus,
		ConsumableCapacity:   fts.EnableConsumableCapacity,
	}
}

func celFeatures(fts feature.Features) cel.Features {
	return cel.Features{EnableConsumableCapacity: fts.EnableConsumableCapacity}
}

func consumableCapacity(fts feature.Features) bool { return fts.EnableConsumableCapacity }

type deviceTaintRule = resourcerules.DeviceTaintRule

const taintRulesGate = features.DRADeviceTaints

func taintRuleOptions(opts *resourceslicetracker.Options, f informers.SharedInformerFactory) {
	opts.EnableDeviceTaints, opts.TaintInformer = true, f.Resource().V1alpha3().DeviceTaintRules()
}
