package main

// What this release's dynamicresources plugin passes to structured.NewAllocator and cel.NewCache
// (pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go at the tag).

import (
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
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
