package main

// No node-allocatable resources before 1.36 (the footprint.go of 1.34 and 1.35).

import (
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
)

func nodeAllocatableEnabled() bool { return false }

func podFootprint(*v1.Pod, []*resourceapi.ResourceClaim, []resourceapi.AllocationResult, []*resourceapi.ResourceSlice,
	*v1.Node) (v1.ResourceList, v1.ResourceList, error) {
	return nil, nil, nil
}

func nodeFits(*v1.Node, []*v1.Pod, v1.ResourceList) (bool, []string) { return true, nil }
