package main

// What the 1.36 dynamicresources plugin adds to a Pod's requests for node-allocatable resources
// (pkg/scheduler/framework/plugins/dynamicresources/nodeallocatabledynamicresources.go at the tag):
// calculateAndCheckNodeAllocatableResources picks the newly allocated claims with a device that maps
// node resources (looked up by pool and device name in every slice, getDeviceFromManager),
// getPodNodeAllocatableResourceFootprint builds their NodeAllocatableResourceClaimStatus with the plugin's
// own buildNodeAllocatableDRAInfo (reached by linkname: it is unexported; it reads the slices through the
// plugin's DRA manager, set here to one over the tracker's slices), refuses a claim no container
// references, and sums the Pod with resourcehelper.PodRequests.

import (
	"fmt"
	"reflect"
	"unsafe" // go:linkname, and the plugin's unexported DRA manager

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	resourcehelper "k8s.io/component-helpers/resource"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/framework"
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
	pl := &dynamicresources.DynamicResources{}
	field := reflect.ValueOf(pl).Elem().FieldByName("draManager")
	reflect.NewAt(field.Type(), unsafe.Pointer(field.UnsafeAddr())).Elem().Set(reflect.ValueOf(fwk.SharedDRAManager(manager)))
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
	return footprint, demand, nil
}

// claimNameToUID is what foreachPodResourceClaim gives: the Pod's claim names with the UIDs of the claims
// they name (resourceClaimName; the scenarios use no templates).
func claimNameToUID(pod *v1.Pod, claims []*resourceapi.ResourceClaim) map[string]types.UID {
	out := map[string]types.UID{}
	for _, podClaim := range pod.Spec.ResourceClaims {
		for _, claim := range claims {
			if podClaim.ResourceClaimName != nil && *podClaim.ResourceClaimName == claim.Name {
				out[podClaim.Name] = claim.UID
			}
		}
	}
	return out
}

//go:linkname nodeFitsResources k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources.(*DynamicResources).nodeFitsResources
func nodeFitsResources(pl *dynamicresources.DynamicResources, nodeInfo fwk.NodeInfo, podRequest *framework.Resource) *fwk.Status

// nodeFits is the plugin's nodeFitsResources for the Pod's demand on the node with the bound Pods
// (framework.NewNodeInfo sums their requests as the scheduler's cache does).
func nodeFits(node *v1.Node, bound []*v1.Pod, demand v1.ResourceList) (bool, []string) {
	nodeInfo := framework.NewNodeInfo(bound...)
	nodeInfo.SetNode(node)
	status := nodeFitsResources(nil, nodeInfo, framework.NewResource(demand))
	if status.IsSuccess() {
		return true, nil
	}
	return false, status.Reasons()
}

// requestsOf is PodRequests over the Pod with the claims' statuses (getPodNodeAllocatableResourceFootprint:
// pod-level resources unless the PodLevelResources gate is off); the footprint alone is the same without
// the containers' own requests and the pod-level ones.
func requestsOf(pod *v1.Pod, statuses []v1.NodeAllocatableResourceClaimStatus) (footprint, demand v1.ResourceList) {
	podCopy := pod.DeepCopy()
	podCopy.Status.NodeAllocatableResourceClaimStatuses = statuses
	demand = resourcehelper.PodRequests(podCopy, resourcehelper.PodResourcesOptions{
		SkipPodLevelResources:                    !utilfeature.DefaultFeatureGate.Enabled(features.PodLevelResources),
		UseDRANodeAllocatableResourceClaimStatus: true})
	bare := podCopy.DeepCopy()
	bare.Spec.Resources, bare.Spec.Overhead = nil, nil
	for _, containers := range [][]v1.Container{bare.Spec.InitContainers, bare.Spec.Containers} {
		for i := range containers {
			containers[i].Resources.Requests, containers[i].Resources.Limits = nil, nil
		}
	}
	footprint = resourcehelper.PodRequests(bare, resourcehelper.PodResourcesOptions{
		SkipPodLevelResources: true, UseDRANodeAllocatableResourceClaimStatus: true})
	return footprint, demand
}
