// Command oracle runs one Kubernetes release's own registry create/update path for the six DRA kinds
// (resource.k8s.io): decode with defaulting through legacyscheme's codecs (strict decoding, as
// fieldValidation=Strict), FillObjectMetaSystemFields and name generation, then rest.BeforeCreate /
// rest.BeforeUpdate with the release's strategies (status strategies for the status subresource), which run
// PrepareFor*, the hand-written and the declarative validation, and Warnings*. It is what
// genericregistry.Store.Create/Update do before admission and storage, without etcd.
//
// JSON lines in (one request per line), JSON lines out (one response per request, same order):
//
//	{"id": 1, "kind": "ResourceClaim", "apiVersion": "resource.k8s.io/v1", "operation": "create",
//	 "subresource": "", "fieldValidation": "Strict", "object": {...}, "oldObject": {...}}
//	{"id": 1, "allowed": false, "code": 422, "reason": "Invalid", "message": "...",
//	 "causes": [{"field": "spec.devices.requests[0].name", "reason": "FieldValueRequired", "message": "..."}],
//	 "warnings": ["..."], "object": {...}}
//
// Flags: --feature-gates (kube-apiserver's syntax, or "dra-all" for every DRA gate on), --runtime-config
// ("" for the release's default served versions, "all" for every version this release registers),
// --namespaces (JSON {name: {label: value}}: the namespaces the admin-access check finds), --list-gates.
//
// This file is shared by every release (tests/upstream/kube-1.3X/cmd/oracle/oracle.go links here); what
// differs between releases (strategy constructors, which kinds and versions are served) lives in each
// release's registry.go.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/apiserver/pkg/warning"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/component-base/featuregate"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/resource/install"
)

const group = "resource.k8s.io"

// kindInfo is one kind's registry: its resource name and the strategies its REST storage uses.
type kindInfo struct {
	resource string
	create   rest.RESTCreateStrategy
	update   rest.RESTUpdateStrategy
	status   rest.RESTUpdateStrategy // nil: no status subresource
}

type request struct {
	ID              any             `json:"id,omitempty"`
	Kind            string          `json:"kind"`
	APIVersion      string          `json:"apiVersion"`
	Operation       string          `json:"operation"`
	Subresource     string          `json:"subresource,omitempty"`
	Namespace       string          `json:"namespace,omitempty"`
	FieldValidation string          `json:"fieldValidation,omitempty"`
	Object          json.RawMessage `json:"object"`
	OldObject       json.RawMessage `json:"oldObject,omitempty"`
}

type cause struct {
	Field   string `json:"field"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

type response struct {
	ID       any             `json:"id,omitempty"`
	Allowed  bool            `json:"allowed"`
	Code     int32           `json:"code,omitempty"`
	Reason   string          `json:"reason,omitempty"`
	Message  string          `json:"message,omitempty"`
	Causes   []cause         `json:"causes"`
	Warnings []string        `json:"warnings"`
	Object   json.RawMessage `json:"object,omitempty"`
}

// namespaces stands in for the namespace client the claim strategies use for the admin-access label lookup.
type namespaces struct {
	corev1client.NamespaceInterface
	labels map[string]map[string]string
}

func (n namespaces) Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.Namespace, error) {
	labels, ok := n.labels[name]
	if !ok {
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
	}
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}, nil
}

type recorder struct{ warnings []string }

func (r *recorder) AddWarning(agent, text string) {
	for _, w := range r.warnings {
		if w == text {
			return
		}
	}
	r.warnings = append(r.warnings, text)
}

type oracle struct {
	kinds  map[string]*kindInfo
	served map[string]bool // "v1/resourceclaims"
	json   runtime.SerializerInfo
}

func main() {
	gates := flag.String("feature-gates", "", `kube-apiserver --feature-gates, or "dra-all" for every DRA gate on`)
	runtimeConfig := flag.String("runtime-config", "", `"" (the release's defaults), "all", or a comma list of version/resource`)
	nsFlag := flag.String("namespaces", `{"default": {}}`, "JSON {namespace: {label: value}} for the admin-access check")
	listGates := flag.Bool("list-gates", false, "print the DRA feature gates (name, default, locked) as JSON and exit")
	flag.Parse()

	if *listGates {
		printGates()
		return
	}
	if err := setGates(*gates); err != nil {
		fmt.Fprintln(os.Stderr, "oracle:", err)
		os.Exit(2)
	}
	var labels map[string]map[string]string
	if err := json.Unmarshal([]byte(*nsFlag), &labels); err != nil {
		fmt.Fprintln(os.Stderr, "oracle: --namespaces:", err)
		os.Exit(2)
	}
	o := &oracle{kinds: registry(namespaces{labels: labels}), served: servedResources(*runtimeConfig)}
	for _, info := range legacyscheme.Codecs.SupportedMediaTypes() {
		if info.MediaType == runtime.ContentTypeJSON {
			o.json = info
		}
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for in.Scan() {
		line := in.Bytes()
		if len(strings.TrimSpace(string(line))) == 0 {
			continue
		}
		var req request
		var resp response
		if err := json.Unmarshal(line, &req); err != nil {
			resp = response{Code: 400, Reason: "BadRequest", Message: "oracle: request is not JSON: " + err.Error()}
		} else {
			resp = o.handle(&req)
		}
		if resp.Causes == nil {
			resp.Causes = []cause{}
		}
		if resp.Warnings == nil {
			resp.Warnings = []string{}
		}
		if err := enc.Encode(resp); err != nil {
			fmt.Fprintln(os.Stderr, "oracle:", err)
			os.Exit(1)
		}
		if err := out.Flush(); err != nil {
			os.Exit(1)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "oracle:", err)
		os.Exit(1)
	}
}

func draGates() map[featuregate.Feature]featuregate.FeatureSpec {
	gates := map[featuregate.Feature]featuregate.FeatureSpec{}
	for name, spec := range utilfeature.DefaultMutableFeatureGate.GetAll() {
		if strings.HasPrefix(string(name), "DRA") || name == "DynamicResourceAllocation" {
			gates[name] = spec
		}
	}
	return gates
}

func printGates() {
	type gate struct {
		Name    string `json:"name"`
		Default bool   `json:"default"`
		Locked  bool   `json:"locked"`
		Stage   string `json:"stage"`
	}
	var all []gate
	for name, spec := range draGates() {
		all = append(all, gate{string(name), spec.Default, spec.LockToDefault, string(spec.PreRelease)})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	_ = json.NewEncoder(os.Stdout).Encode(all)
}

func setGates(text string) error {
	values := map[string]bool{}
	if text == "dra-all" {
		for name, spec := range draGates() {
			if !spec.LockToDefault || spec.Default {
				values[string(name)] = true
			}
		}
		// A gate may need others on (1.35+: featuregate dependencies, e.g. DRAWorkloadResourceClaims needs
		// GenericWorkload); those are turned on as kube-apiserver would have to be told to.
		if gate, ok := utilfeature.DefaultMutableFeatureGate.(interface {
			Dependencies() map[featuregate.Feature][]featuregate.Feature
		}); ok {
			deps := gate.Dependencies()
			for changed := true; changed; {
				changed = false
				for name := range values {
					for _, dep := range deps[featuregate.Feature(name)] {
						if !values[string(dep)] {
							values[string(dep)], changed = true, true
						}
					}
				}
			}
		}
	} else {
		for _, item := range strings.Split(text, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			name, value, ok := strings.Cut(item, "=")
			if !ok || (value != "true" && value != "false") {
				return fmt.Errorf("invalid feature gate %q", item)
			}
			values[name] = value == "true"
		}
	}
	return utilfeature.DefaultMutableFeatureGate.SetFromMap(values)
}

// servedResources: "" gives the release's default (every resource of v1; beta and alpha versions are off by
// default: pkg/controlplane/instance.go), "all" every version/resource the release registers.
func servedResources(text string) map[string]bool {
	served := map[string]bool{}
	for version, resources := range registeredResources {
		for _, r := range resources {
			if text == "all" || (text == "" && version == "v1") {
				served[version+"/"+r] = true
			}
		}
	}
	if text != "" && text != "all" {
		for _, item := range strings.Split(text, ",") {
			served[strings.TrimSpace(item)] = true
		}
	}
	return served
}

func failure(err error) response {
	status, ok := err.(apierrors.APIStatus)
	if !ok {
		return response{Code: 500, Reason: "InternalError", Message: err.Error()}
	}
	s := status.Status()
	resp := response{Code: s.Code, Reason: string(s.Reason), Message: s.Message}
	if s.Details != nil {
		for _, c := range s.Details.Causes {
			resp.Causes = append(resp.Causes, cause{Field: c.Field, Reason: string(c.Type), Message: c.Message})
		}
	}
	return resp
}

func (o *oracle) decode(req *request, raw json.RawMessage, gv schema.GroupVersion, strict bool) (runtime.Object, []string, error) {
	serializer := o.json.Serializer
	if strict {
		serializer = o.json.StrictSerializer
	}
	decoder := legacyscheme.Codecs.DecoderToVersion(serializer, schema.GroupVersion{Group: group, Version: runtime.APIVersionInternal})
	defaultGVK := gv.WithKind(req.Kind)
	obj, gvk, err := decoder.Decode(raw, &defaultGVK, nil)
	var warnings []string
	if err != nil {
		strictErr, isStrict := runtime.AsStrictDecodingError(err)
		switch {
		case isStrict && obj != nil && req.FieldValidation == "Warn":
			for _, e := range strictErr.Errors() {
				warnings = append(warnings, e.Error())
			}
		case isStrict && obj != nil && req.FieldValidation == "Ignore":
		default:
			return nil, nil, transformDecodeError(err, req.Kind, gv)
		}
	}
	if gvk != nil && (gvk.GroupVersion() != gv || gvk.Kind != req.Kind) {
		return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", gvk.GroupVersion(), gv))
	}
	return obj, warnings, nil
}

// transformDecodeError is the create/update handlers' (k8s.io/apiserver endpoints/handlers/rest.go).
func transformDecodeError(err error, kind string, gv schema.GroupVersion) error {
	if _, ok := err.(apierrors.APIStatus); ok {
		return err
	}
	return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", kind, gv.Version, kind, err))
}

func (o *oracle) handle(req *request) (resp response) {
	defer func() {
		if r := recover(); r != nil {
			resp = response{ID: req.ID, Code: 500, Reason: "InternalError", Message: fmt.Sprintf("oracle panic: %v", r)}
		}
	}()
	resp = o.run(req)
	resp.ID = req.ID
	return resp
}

func (o *oracle) run(req *request) response {
	info, ok := o.kinds[req.Kind]
	gv, err := schema.ParseGroupVersion(req.APIVersion)
	if !ok || err != nil || gv.Group != group || !o.served[gv.Version+"/"+info.resource] {
		return response{Code: 404, Reason: "NotFound", Message: fmt.Sprintf("the server could not find the requested resource (%s %s)", req.APIVersion, req.Kind)}
	}
	if req.FieldValidation == "" {
		req.FieldValidation = "Strict"
	}
	strict := req.FieldValidation != "Ignore"
	obj, warnings, err := o.decode(req, req.Object, gv, strict)
	if err != nil {
		return failure(err)
	}
	objMeta, err := meta.Accessor(obj)
	if err != nil {
		return failure(err)
	}
	namespaced := info.create.NamespaceScoped()
	namespace := ""
	if namespaced {
		namespace = req.Namespace
		if namespace == "" {
			namespace = objMeta.GetNamespace()
		}
		if namespace == "" {
			namespace = metav1.NamespaceDefault
		}
	}
	verb := map[string]string{"create": "create", "update": "update"}[req.Operation]
	rec := &recorder{warnings: warnings}
	ctx := genericapirequest.WithNamespace(context.Background(), namespace)
	ctx = genericapirequest.WithUser(ctx, &user.DefaultInfo{Name: "oracle", Groups: []string{user.SystemPrivilegedGroup, user.AllAuthenticated}})
	ctx = genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{
		IsResourceRequest: true, Verb: verb, APIPrefix: "apis", APIGroup: gv.Group, APIVersion: gv.Version,
		Namespace: namespace, Resource: info.resource, Subresource: req.Subresource, Name: objMeta.GetName(),
	})
	ctx = warning.WithWarningRecorder(ctx, rec)

	switch req.Operation {
	case "create":
		if req.Subresource != "" {
			return response{Code: 405, Reason: "MethodNotAllowed", Message: "create is not supported on a subresource"}
		}
		rest.FillObjectMetaSystemFields(objMeta)
		if len(objMeta.GetGenerateName()) > 0 && len(objMeta.GetName()) == 0 {
			objMeta.SetName(info.create.GenerateName(objMeta.GetGenerateName()))
		}
		if err := rest.BeforeCreate(info.create, ctx, obj); err != nil {
			resp := failure(err)
			resp.Warnings = rec.warnings
			return resp
		}
		if objMeta.GetResourceVersion() != "" { // the storage layer (etcd3 store Create) refuses it after validation
			return response{Code: 500, Reason: "InternalError", Warnings: rec.warnings,
				Message: "Internal error occurred: resourceVersion should not be set on objects to be created"}
		}
	case "update":
		strategy := info.update
		if req.Subresource == "status" {
			if info.status == nil {
				return response{Code: 404, Reason: "NotFound", Message: "the server could not find the requested resource"}
			}
			strategy = info.status
		} else if req.Subresource != "" {
			return response{Code: 404, Reason: "NotFound", Message: "the server could not find the requested resource"}
		}
		if len(req.OldObject) == 0 {
			return response{Code: 404, Reason: "NotFound", Message: "oracle: an update needs oldObject (the stored object)"}
		}
		old, _, err := o.decode(req, req.OldObject, gv, false)
		if err != nil {
			resp := failure(err)
			resp.Message = "oracle: oldObject: " + resp.Message
			return resp
		}
		oldMeta, err := meta.Accessor(old)
		if err != nil {
			return failure(err)
		}
		// The update handler's checkName (endpoints/handlers/update.go): the URL names the stored object.
		if objMeta.GetName() != oldMeta.GetName() {
			return response{Code: 400, Reason: "BadRequest", Warnings: rec.warnings, Message: fmt.Sprintf(
				"the name of the object (%s) does not match the name on the URL (%s)", objMeta.GetName(), oldMeta.GetName())}
		}
		// genericregistry.Store.Update: no resourceVersion is an unconditional update where the strategy allows
		// it (the stored version is used), a conflict otherwise; another version than the stored one conflicts.
		switch {
		case objMeta.GetResourceVersion() == "" && allowUnconditionalUpdate(ctx, strategy):
			objMeta.SetResourceVersion(oldMeta.GetResourceVersion())
		case objMeta.GetResourceVersion() != oldMeta.GetResourceVersion():
			return response{Code: 409, Reason: "Conflict", Warnings: rec.warnings,
				Message: "Operation cannot be fulfilled: the object has been modified; please apply your changes to the latest version and try again"}
		}
		if err := rest.BeforeUpdate(strategy, ctx, obj, old); err != nil {
			resp := failure(err)
			resp.Warnings = rec.warnings
			return resp
		}
	default:
		return response{Code: 400, Reason: "BadRequest", Message: fmt.Sprintf("oracle: unsupported operation %q", req.Operation)}
	}
	encoded, err := runtime.Encode(legacyscheme.Codecs.EncoderForVersion(o.json.Serializer, gv), obj)
	if err != nil {
		return response{Code: 500, Reason: "InternalError", Message: "oracle: encode: " + err.Error()}
	}
	return response{Allowed: true, Warnings: rec.warnings, Object: encoded}
}

// allowUnconditionalUpdate asks the strategy in the release's words (1.37 passes the request context).
func allowUnconditionalUpdate(ctx context.Context, strategy any) bool {
	switch s := strategy.(type) {
	case interface{ AllowUnconditionalUpdate() bool }:
		return s.AllowUnconditionalUpdate()
	case interface {
		AllowUnconditionalUpdate(context.Context) bool
	}:
		return s.AllowUnconditionalUpdate(ctx)
	}
	return false
}
