package main

// What the 1.36 and 1.37 dynamicresources plugins share for node-allocatable resources
// (pkg/scheduler/framework/plugins/dynamicresources/nodeallocatabledynamicresources.go at the tags): the
// claims a Pod names, the node fit check and the Pod's requests (each release's footprint.go builds the
// claims' statuses).

import (
	"reflect"
	"unsafe" // go:linkname, and the plugin's unexported fields

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	resourcehelper "k8s.io/component-helpers/resource"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/dynamicresources"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
)

// plugin is the plugin as far as these functions read it: its features from the scheduler's gates (fts) and
// the other fields given, all unexported (set by reflection).
func plugin(fields map[string]any) *dynamicresources.DynamicResources {
	pl := &dynamicresources.DynamicResources{}
	fields["fts"] = feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)
	for name, value := range fields {
		field := reflect.ValueOf(pl).Elem().FieldByName(name)
		reflect.NewAt(field.Type(), unsafe.Pointer(field.UnsafeAddr())).Elem().Set(reflect.ValueOf(value))
	}
	return pl
}

// withStatuses is the Pod with its claims' NodeAllocatableResourceClaimStatus, as the plugin's podCopy.
func withStatuses(pod *v1.Pod, statuses []v1.NodeAllocatableResourceClaimStatus) *v1.Pod {
	podCopy := pod.DeepCopy()
	podCopy.Status.NodeAllocatableResourceClaimStatuses = statuses
	return podCopy
}

// claimNameToUID is what foreachPodResourceClaim gives: the Pod's claim names with the UIDs of the claims
// they name (resourceclaim.Name: resourceClaimName, or for a template the generated claim's name in the
// Pod's status).
func claimNameToUID(pod *v1.Pod, claims []*resourceapi.ResourceClaim) map[string]types.UID {
	out := map[string]types.UID{}
	for i := range pod.Spec.ResourceClaims {
		name, _, err := resourceclaim.Name(pod, &pod.Spec.ResourceClaims[i])
		if err != nil || name == nil {
			continue
		}
		for _, claim := range claims {
			if claim.Name == *name {
				out[pod.Spec.ResourceClaims[i].Name] = claim.UID
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
	podCopy := withStatuses(pod, statuses)
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
