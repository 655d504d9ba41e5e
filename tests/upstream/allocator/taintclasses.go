package main

// Before 1.37 the tracker also takes the DeviceClass informer (1.34 selects devices by class): taintOptions
// for 1.34 to 1.36, around each release's taintRuleOptions (its features.go).

import (
	"k8s.io/client-go/informers"
	resourceinformers "k8s.io/client-go/informers/resource/v1"
	resourceslicetracker "k8s.io/dynamic-resource-allocation/resourceslice/tracker"
)

// taintOptions sets the tracker's taint options and gives the class informer it takes.
func taintOptions(opts *resourceslicetracker.Options, f informers.SharedInformerFactory) resourceinformers.DeviceClassInformer {
	taintRuleOptions(opts, f)
	opts.ClassInformer = f.Resource().V1().DeviceClasses()
	return opts.ClassInformer
}
