package main

// From 1.37 the tracker takes no DeviceClass informer (taintclasses.go of the earlier releases).

import (
	"k8s.io/client-go/informers"
	resourceinformers "k8s.io/client-go/informers/resource/v1"
	resourceslicetracker "k8s.io/dynamic-resource-allocation/resourceslice/tracker"
)

func taintOptions(opts *resourceslicetracker.Options, f informers.SharedInformerFactory) resourceinformers.DeviceClassInformer {
	taintRuleOptions(opts, f)
	return nil
}
