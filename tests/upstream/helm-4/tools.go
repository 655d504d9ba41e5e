//go:build tools

// Keeps helm's module (and go.sum entries for its main package's imports) in this module: build.sh
// builds helm.sh/helm/v4/cmd/helm, a main package, which cannot itself be imported.
package tools

import (
	_ "helm.sh/helm/v4/pkg/cmd"
	_ "helm.sh/helm/v4/pkg/kube"
	_ "k8s.io/client-go/plugin/pkg/client/auth"
)
