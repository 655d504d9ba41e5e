//go:build tools

// Keeps etcd's server module (and go.sum entries for its main package) in this module: build.sh builds
// go.etcd.io/etcd/server/v3, a main package, which cannot itself be imported.
package tools

import _ "go.etcd.io/etcd/server/v3/etcdmain"
