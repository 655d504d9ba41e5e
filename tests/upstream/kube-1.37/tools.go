//go:build tools

// Keeps the packages build.sh builds (main packages cannot be imported) and their go.sum entries in
// this module, so `go mod tidy` leaves the module complete for a -mod=readonly build.
package tools

import (
	_ "k8s.io/kubectl/pkg/cmd"
	_ "k8s.io/kubernetes/cmd/kube-apiserver/app"
)
