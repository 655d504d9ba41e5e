package main

// What the 1.36 dynamicresources plugin adds to a Pod's requests for node-allocatable resources
// (pkg/scheduler/framework/plugins/dynamicresources/nodeallocatabledynamicresources.go at the tag):
// calculateAndCheckNodeAllocatableResources picks the newly allocated claims with a device that maps
// node resources (looked up by pool and device name in every slice, getDeviceFromManager),
// getPodNodeAllocatableResourceFootprint builds their NodeAllocatableResourceClaimStatus with the plugin's
// own buildNodeAllocatableDRAInfo (reached by linkname: it is unexported; it reads the slices through the
// plugin's DRA manager, set here to one over the tracker's slices), refuses a claim no container
// references, sums the Pod with resourcehelper.PodRequests and refuses pod-level requests below that
// (validatePodLevelRequestsCoverDRA).

import (
	"errors"
	"fmt"
	_ "unsafe" // go:linkname

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"
)

//go:linkname buildNodeAllocatableDRAInfo k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources.(*DynamicResources).buildNodeAllocatableDRAInfo
func buildNodeAllocatableDRAInfo(pl *dynamicresources.DynamicResources, pod *v1.Pod,
	allocations map[v1.ObjectReference]*resourceapi.AllocationResult,
	claimNametoUID map[string]types.UID) ([]v1.NodeAllocatableResourceClaimStatus, error)

//go:linkname getDeviceFromManager k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources.getDeviceFromManager
func getDeviceFromManager(draManager fwk.SharedDRAManager, poolName, deviceName string) (*resourceapi.Device, error)

// sliceManager is the plugin's DRA manager as far as these functions use it: the tracker's slices.
type sliceManager struct {
	fwk.SharedDRAManager
	slices []*resourceapi.ResourceSlice
}

func (m sliceManager) ResourceSlices() fwk.ResourceSliceLister { return m }

func (m sliceManager) ListWithDeviceTaintRules() ([]*resourceapi.ResourceSlice, error) {
	return m.slices, nil
}

//go:linkname validatePodLevelRequestsCoverDRA k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources.(*DynamicResources).validatePodLevelRequestsCoverDRA
func validatePodLevelRequestsCoverDRA(pl *dynamicresources.DynamicResources, logger klog.Logger, pod *v1.Pod,
	requestWithPodLevel v1.ResourceList) *fwk.Status

func nodeAllocatableEnabled() bool {
	return utilfeature.DefaultFeatureGate.Enabled(features.DRANodeAllocatableResources)
}

func podFootprint(pod *v1.Pod, claims []*resourceapi.ResourceClaim, results []resourceapi.AllocationResult,
	slices []*resourceapi.ResourceSlice, _ *v1.Node) (v1.ResourceList, v1.ResourceList, error) {
	manager := sliceManager{slices: slices}
	allocations := map[v1.ObjectReference]*resourceapi.AllocationResult{}
	for i, claim := range claims {
		for _, result := range results[i].Devices.Results {
			device, err := getDeviceFromManager(manager, result.Pool, result.Device)
			if err == nil && device != nil && len(device.NodeAllocatableResourceMappings) > 0 {
				allocations[v1.ObjectReference{Namespace: pod.Namespace, Name: claim.Name, UID: claim.UID}] = &results[i]
				break
			}
		}
	}
	if len(allocations) == 0 {
		return nil, nil, nil
	}
	pl := plugin(map[string]any{"draManager": fwk.SharedDRAManager(manager)})
	statuses, err := buildNodeAllocatableDRAInfo(pl, pod, allocations, claimNameToUID(pod, claims))
	if err != nil {
		return nil, nil, err
	}
	for _, status := range statuses {
		if len(status.Containers) == 0 {
			return nil, nil, fmt.Errorf("claim %s: node-allocatable resource claim not referenced by any container within the pod", status.ResourceClaimName)
		}
	}
	footprint, demand := requestsOf(pod, statuses)
	if status := validatePodLevelRequestsCoverDRA(pl, klog.Background(), withStatuses(pod, statuses), demand); status != nil {
		return nil, nil, errors.New(status.Message())
	}
	return footprint, demand, nil
}
