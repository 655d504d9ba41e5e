// What the oracle's registry is in Kubernetes 1.36: the strategies pkg/registry/resource/*/storage wires up
// and the version/resource pairs pkg/registry/resource/rest/storage_resource.go registers.
package main

import (
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/kubernetes/pkg/registry/resource/deviceclass"
	"k8s.io/kubernetes/pkg/registry/resource/devicetaintrule"
	"k8s.io/kubernetes/pkg/registry/resource/resourceclaim"
	"k8s.io/kubernetes/pkg/registry/resource/resourceclaimtemplate"
	"k8s.io/kubernetes/pkg/registry/resource/resourcepoolstatusrequest"
	"k8s.io/kubernetes/pkg/registry/resource/resourceslice"
)

var registeredResources = map[string][]string{
	"v1":       {"deviceclasses", "resourceclaims", "resourceclaimtemplates", "resourceslices"},
	"v1alpha3": {"devicetaintrules", "resourcepoolstatusrequests"},
	"v1beta1":  {"deviceclasses", "resourceclaims", "resourceclaimtemplates", "resourceslices"},
	"v1beta2":  {"deviceclasses", "devicetaintrules", "resourceclaims", "resourceclaimtemplates", "resourceslices"},
}

func registry(ns corev1client.NamespaceInterface) map[string]*kindInfo {
	claim := resourceclaim.NewStrategy(ns, authorizerfactory.NewAlwaysAllowAuthorizer())
	return map[string]*kindInfo{
		"ResourceClaim":             {resource: "resourceclaims", create: claim, update: claim, status: resourceclaim.NewStatusStrategy(claim)},
		"ResourceClaimTemplate":     {resource: "resourceclaimtemplates", create: resourceclaimtemplate.NewStrategy(ns), update: resourceclaimtemplate.NewStrategy(ns)},
		"ResourceSlice":             {resource: "resourceslices", create: resourceslice.Strategy, update: resourceslice.Strategy},
		"DeviceClass":               {resource: "deviceclasses", create: deviceclass.Strategy, update: deviceclass.Strategy},
		"DeviceTaintRule":           {resource: "devicetaintrules", create: devicetaintrule.Strategy, update: devicetaintrule.Strategy, status: devicetaintrule.StatusStrategy},
		"ResourcePoolStatusRequest": {resource: "resourcepoolstatusrequests", create: resourcepoolstatusrequest.Strategy, update: resourcepoolstatusrequest.Strategy, status: resourcepoolstatusrequest.StatusStrategy},
	}
}
