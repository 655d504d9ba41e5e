// Command allocator runs the real structured allocator (k8s.io/dynamic-resource-allocation/structured) of
// the release whose module builds it, the way kube-scheduler's dynamicresources plugin calls it, on
// scenarios read as JSON lines from standard input; it answers one JSON line per scenario.
//
// This file is shared by every release (cmd/allocator/allocator.go in each kube-1.3X module links here);
// each release's features.go maps the scheduler's feature gates to the allocator's Features as that
// release's plugin does.
//
//	allocator --feature-gates DRAConsumableCapacity=true < scenarios.jsonl > answers.jsonl
//
// A scenario: {"id": "...", "node": Node, "classes": [DeviceClass], "slices": [ResourceSlice],
// "claims": [ResourceClaim to allocate], "allocated": [ResourceClaim with status.allocation],
// "taintRules": [DeviceTaintRule]} (resource.k8s.io/v1 objects, defaulted here as the API server defaults
// them on create; the rules in the API version the release's scheduler reads, see tracker.go).
// An answer: {"id": "...", "allocated": bool, "results": [AllocationResult] | null, "error": "..."}.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
	resourcev1defaults "k8s.io/kubernetes/pkg/apis/resource/v1"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/utils/ptr"
)

type scenario struct {
	ID        string                       `json:"id"`
	Node      *v1.Node                     `json:"node"`
	Classes   []*resourceapi.DeviceClass   `json:"classes"`
	Slices    []*resourceapi.ResourceSlice `json:"slices"`
	Claims    []*resourceapi.ResourceClaim `json:"claims"`
	Allocated []*resourceapi.ResourceClaim `json:"allocated"`
	// DeviceTaintRules as stored, in the release's API version (tracker.go).
	TaintRules []json.RawMessage `json:"taintRules"`
	// The pending Pod whose claims these are (optional): with DRANodeAllocatableResources, what its
	// allocated devices take from the node (footprint.go).
	Pod *v1.Pod `json:"pod"`
	// Pods already bound to the node (what it has left for the Pod), counted as the scheduler's NodeInfo does.
	BoundPods []*v1.Pod `json:"boundPods"`
}

type answer struct {
	ID        string                         `json:"id"`
	Allocated bool                           `json:"allocated"`
	Results   []resourceapi.AllocationResult `json:"results"`
	Error     string                         `json:"error,omitempty"`
	GaveUp    bool                           `json:"gaveUp,omitempty"`
	Stack     string                         `json:"stack,omitempty"` // where a panic happened
	// With DRANodeAllocatableResources and an allocation: the Pod's requests as the plugin sums them
	// (resourcehelper.PodRequests with the claims' NodeAllocatableResourceClaimStatus), or why it
	// cannot schedule the Pod there; both empty when no allocated device declares node resources.
	Footprint      map[string]string `json:"footprint,omitempty"`
	FootprintError string            `json:"footprintError,omitempty"`
	// And when the Node has status.allocatable: whether the Pod's requests with them fit what the node has
	// left (the plugin's nodeFitsResources), and its reasons when not.
	Fits       *bool    `json:"fits,omitempty"`
	FitReasons []string `json:"fitReasons,omitempty"`
}

// classLister is the scheduler's DeviceClassLister over the scenario's classes.
type classLister map[string]*resourceapi.DeviceClass

func (l classLister) List() ([]*resourceapi.DeviceClass, error) {
	out := make([]*resourceapi.DeviceClass, 0, len(l))
	for _, c := range l {
		out = append(out, c)
	}
	return out, nil
}

func (l classLister) Get(name string) (*resourceapi.DeviceClass, error) {
	if c, ok := l[name]; ok {
		return c, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Group: "resource.k8s.io", Resource: "deviceclasses"}, name)
}

// allocatedState is what the plugin's PreFilter gathers: GatherAllocatedState with DRAConsumableCapacity,
// else ListAllAllocatedDevices (foreachAllocatedDevice over every allocated claim, allocatedDevices.addDevices).
func allocatedState(claims []*resourceapi.ResourceClaim, consumable bool) structured.AllocatedState {
	state := structured.AllocatedState{
		AllocatedDevices:         sets.New[structured.DeviceID](),
		AllocatedSharedDeviceIDs: sets.New[structured.SharedDeviceID](),
		AggregatedCapacity:       structured.NewConsumedCapacityCollection(),
	}
	for _, claim := range claims {
		if claim.Status.Allocation == nil {
			continue
		}
		for _, result := range claim.Status.Allocation.Devices.Results {
			if ptr.Deref(result.AdminAccess, false) {
				continue // not considered as allocated
			}
			id := structured.MakeDeviceID(result.Driver, result.Pool, result.Device)
			if consumable && result.ShareID != nil {
				state.AllocatedSharedDeviceIDs.Insert(structured.MakeSharedDeviceID(id, result.ShareID))
				if result.ConsumedCapacity != nil {
					state.AggregatedCapacity.Insert(structured.NewDeviceConsumedCapacity(id, result.ConsumedCapacity))
				}
				continue
			}
			state.AllocatedDevices.Insert(id)
		}
	}
	return state
}

func run(ctx context.Context, s *scenario, fts feature.Features, celCache *cel.Cache, timeout time.Duration) (out answer) {
	out.ID = s.ID
	// A panic in the allocator would end the scheduler; here it is that scenario's answer.
	defer func() {
		if r := recover(); r != nil {
			out = answer{ID: s.ID, Error: fmt.Sprintf("panic: %v", r), Stack: string(debug.Stack())}
		}
	}()
	classes := classLister{}
	for _, c := range s.Classes {
		classes[c.Name] = c
	}
	for _, sl := range s.Slices {
		resourcev1defaults.SetObjectDefaults_ResourceSlice(sl)
	}
	for _, c := range append(append([]*resourceapi.ResourceClaim{}, s.Claims...), s.Allocated...) {
		resourcev1defaults.SetObjectDefaults_ResourceClaim(c)
	}
	node := s.Node
	if node == nil {
		node = &v1.Node{}
	}
	slices, err := patchedSlices(ctx, s)
	if err != nil {
		out.Error = "tracker: " + err.Error()
		return
	}
	allocator, err := structured.NewAllocator(ctx, allocatorFeatures(fts), allocatedState(s.Allocated, consumableCapacity(fts)),
		classes, slices, celCache)
	if err != nil {
		out.Error = err.Error()
		return
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	results, err := allocator.Allocate(ctx, node, s.Claims)
	switch {
	case err != nil && (errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil):
		out.GaveUp, out.Error = true, err.Error()
	case err != nil:
		out.Error = err.Error()
	default:
		out.Allocated, out.Results = results != nil, results
		if results != nil && s.Pod != nil && nodeAllocatableEnabled() {
			footprint, demand, err := podFootprint(s.Pod, s.Claims, results, slices, node)
			if err != nil {
				out.FootprintError = err.Error()
			}
			for name, q := range footprint {
				if out.Footprint == nil {
					out.Footprint = map[string]string{}
				}
				out.Footprint[string(name)] = q.String()
			}
			if demand != nil && len(node.Status.Allocatable) > 0 {
				fits, reasons := nodeFits(node, s.BoundPods, demand)
				out.Fits, out.FitReasons = &fits, reasons
			}
		}
	}
	return
}

func main() {
	gates := flag.String("feature-gates", "", "kube-scheduler feature gates (A=true,B=false)")
	timeout := flag.Duration("timeout", 30*time.Second, "give up on a scenario after this long (0: no limit)")
	flag.Parse()
	if err := utilfeature.DefaultMutableFeatureGate.Set(*gates); err != nil {
		fmt.Fprintf(os.Stderr, "allocator: --feature-gates: %v\n", err)
		os.Exit(2)
	}
	_ = features.DRAAdminAccess // the gates are registered by importing the package
	fts := feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)
	// One cache as the plugin keeps one (cel.NewCache(10, ...) in New).
	celCache := cel.NewCache(10, celFeatures(fts))
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	enc := json.NewEncoder(os.Stdout)
	if os.Getenv("ALLOCATOR_PRINT_FEATURES") != "" {
		_ = enc.Encode(map[string]any{"features": allocatorFeatures(fts)})
	}
	for in.Scan() {
		var s scenario
		var out answer
		if err := json.Unmarshal(in.Bytes(), &s); err != nil {
			out = answer{Error: "decode: " + err.Error()}
		} else {
			out = run(context.Background(), &s, fts, celCache, *timeout)
		}
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(os.Stderr, "allocator: %v\n", err)
			os.Exit(1)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintf(os.Stderr, "allocator: reading: %v\n", err)
		os.Exit(1)
	}
}
