package main

// What this release's dynamicresources plugin passes to structured.NewAllocator and cel.NewCache
// (pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go at the tag).
// 1.36 compiles CEL with list-type attributes but does not pass ListTypeAttributes to the allocator.

import (
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
)

func allocatorFeatures(fts feature.Features) structured.Features {
	return structured.Features{
		AdminAccess:            fts.EnableDRAAdminAccess,
		PrioritizedList:        fts.EnableDRAPrioritizedList,
		PartitionableDevices:   fts.EnableDRAPartitionableDevices,
		DeviceTaints:           fts.EnableDRADeviceTaints,
		DeviceBindingAndStatus: fts.EnableDRADeviceBindingConditions && fts.EnableDRAResourceClaimDeviceStatus,
		ConsumableCapacity:     fts.EnableDRAConsumableCapacity,
	}
}

func celFeatures(fts feature.Features) cel.Features {
	return cel.Features{
		EnableConsumableCapacity: fts.EnableDRAConsumableCapacity,
		EnableListTypeAttributes: fts.EnableDRAListTypeAttributes,
	}
}

func consumableCapacity(fts feature.Features) bool { return fts.EnableDRAConsumableCapacity }
