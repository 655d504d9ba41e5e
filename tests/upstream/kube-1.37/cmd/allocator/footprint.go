package main

// What the 1.37 dynamicresources plugin adds to a Pod's requests for node-allocatable resources
// (pkg/scheduler/framework/plugins/dynamicresources/nodeallocatabledynamicresources.go at the tag):
// calculateAndCheckNodeAllocatableResources picks the claims with a device that declares
// nodeAllocatableResources (among the node's slices), getPodNodeAllocatableResourceFootprint builds their
// NodeAllocatableResourceClaimStatus with the plugin's own buildNodeAllocatableDRAInfo (reached by
// linkname: it is unexported), sums the Pod with resourcehelper.PodRequests and refuses pod-level
// resources that do not cover that (validatePodLevelResourcesCoverDRA).

import (
	"errors"
	_ "unsafe" // go:linkname

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"
)

//go:linkname buildNodeAllocatableDRAInfo k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources.(*DynamicResources).buildNodeAllocatableDRAInfo
func buildNodeAllocatableDRAInfo(pl *dynamicresources.DynamicResources, pod *v1.Pod,
	allocations map[v1.ObjectReference]*resourceapi.AllocationResult, claimNametoUID map[string]types.UID,
	slices []*resourceapi.ResourceSlice, node *v1.Node) ([]v1.NodeAllocatableResourceClaimStatus, error)

//go:linkname getDeviceFromSlices k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources.getDeviceFromSlices
func getDeviceFromSlices(slices []*resourceapi.ResourceSlice, result *resourceapi.DeviceRequestAllocationResult,
	node *v1.Node) (*resourceapi.Device, error)

//go:linkname validatePodLevelResourcesCoverDRA k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources.(*DynamicResources).validatePodLevelResourcesCoverDRA
func validatePodLevelResourcesCoverDRA(pl *dynamicresources.DynamicResources, pod *v1.Pod) *fwk.Status

func nodeAllocatableEnabled() bool {
	return utilfeature.DefaultFeatureGate.Enabled(features.DRANodeAllocatableResources)
}

func podFootprint(pod *v1.Pod, claims []*resourceapi.ResourceClaim, results []resourceapi.AllocationResult,
	slices []*resourceapi.ResourceSlice, node *v1.Node) (v1.ResourceList, v1.ResourceList, error) {
	nodeSlices := slicesForNode(slices, node)
	allocations := map[v1.ObjectReference]*resourceapi.AllocationResult{}
	for i, claim := range claims {
		for _, result := range results[i].Devices.Results {
			device, err := getDeviceFromSlices(nodeSlices, &result, node)
			if err == nil && device != nil && len(device.NodeAllocatableResources) > 0 {
				allocations[v1.ObjectReference{Namespace: claim.Namespace, Name: claim.Name, UID: claim.UID}] = &results[i]
				break
			}
		}
	}
	if len(allocations) == 0 {
		return nil, nil, nil
	}
	pl := plugin(map[string]any{})
	statuses, err := buildNodeAllocatableDRAInfo(pl, pod, allocations, claimNameToUID(pod, claims), nodeSlices, node)
	if err != nil {
		return nil, nil, err
	}
	footprint, demand := requestsOf(pod, statuses)
	if status := validatePodLevelResourcesCoverDRA(pl, withStatuses(pod, statuses)); status != nil {
		return nil, nil, errors.New(status.Message())
	}
	return footprint, demand, nil
}

// slicesForNode is filterSlicesForNode over the tracker's slices (the plugin's takes its DRA manager).
func slicesForNode(slices []*resourceapi.ResourceSlice, node *v1.Node) []*resourceapi.ResourceSlice {
	var out []*resourceapi.ResourceSlice
	for _, slice := range slices {
		if slice.Spec.NodeName != nil && *slice.Spec.NodeName == node.Name ||
			slice.Spec.AllNodes != nil && *slice.Spec.AllNodes ||
			slice.Spec.PerDeviceNodeSelection != nil && *slice.Spec.PerDeviceNodeSelection {
			out = append(out, slice)
		} else if slice.Spec.NodeSelector != nil {
			if selector, err := nodeaffinity.NewNodeSelector(slice.Spec.NodeSelector); err == nil && selector.Match(node) {
				out = append(out, slice)
			}
		}
	}
	return out
}
