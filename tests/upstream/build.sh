#!/usr/bin/env bash
# Builds upstream's own binaries from the pinned Go modules under tests/upstream/ into a cache outside the
# repository, keyed by tag: $DRA_WEBHOOK_UPSTREAM_CACHE (default ~/.cache/dra-webhook-upstream)/<tag>/<name>.
# A binary is rebuilt only when its inputs change (go.mod, go.sum, our Go sources in that module), or when it
# is not the binary that was built (<name>.sha256 beside it: a swapped or stale binary is rebuilt).
#
#   tests/upstream/build.sh                 # what `make test` needs (see UPSTREAM_* below)
#   tests/upstream/build.sh all             # every binary of every release
#
# UPSTREAM_RELEASES       releases whose oracle/allocator are built (default: all four)
# UPSTREAM_SERVER_RELEASES releases whose kube-apiserver is built (default: all four: the chart's values matrix is
#                          dry-run applied on each; 1.34 also serves tests/test_cluster_apiserver.py)
# UPSTREAM_PROGRAMS       only these cmd/<name> programs (e.g. allocator), nothing else (default: everything)
# Also: kubectl (1.36), etcd (etcd-*/) and helm (helm-*/), each from its own pinned module.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${DRA_WEBHOOK_UPSTREAM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dra-webhook-upstream}"
mkdir -p -- "$cache" && cache="$(cd -- "$cache" && pwd)"  # absolute: `go build -o` runs in the module's directory
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS="-mod=readonly -trimpath"
command -v go >/dev/null || { echo "build.sh: Go is not installed (need Go >= 1.26 with GOTOOLCHAIN=local)" >&2; exit 2; }

declare -A TAG=([1.34]=v1.34.4 [1.35]=v1.35.4 [1.36]=v1.36.3 [1.37]=v1.37.2)
releases="${UPSTREAM_RELEASES:-1.34 1.35 1.36 1.37}"
server_releases="${UPSTREAM_SERVER_RELEASES:-1.34 1.35 1.36 1.37}"
if [ "${1:-}" = all ]; then server_releases="1.34 1.35 1.36 1.37"; fi

stamp_of() {  # the inputs a binary depends on: the module files and our own Go sources in the module
  local dir="$1"; shift  # (find -L: a source shared by the releases is a symlink into tests/upstream/)
  { cat "$dir/go.mod" "$dir/go.sum" 2>/dev/null; go version; echo "$*";
    find -L "$dir" -name '*.go' -type f -print0 | sort -z | xargs -0 -r cat; } | sha256sum | cut -d' ' -f1
}

digest() { sha256sum "$1" | cut -d' ' -f1; }

up_to_date() {  # up_to_date <binary> <inputs stamp>: built from these inputs, and the binary is the one built
  local bin="$1" want="$2"
  [ -x "$bin" ] && [ -f "$bin" ] && [ -f "$bin.stamp" ] && [ "$(head -c 200 "$bin.stamp")" = "$want" ] || return 1
  if [ ! -f "$bin.sha256" ]; then  # built before binaries were hashed: record it now
    digest "$bin" > "$bin.sha256"; return 0
  fi
  [ "$(head -c 200 "$bin.sha256")" = "$(digest "$bin")" ]
}

build() {  # build <module dir> <out dir> <name> <package> [ldflags]
  local dir="$1" out="$2" name="$3" pkg="$4" ldflags="${5:-}"
  local want; want="$(stamp_of "$dir" "$pkg $ldflags")"
  if up_to_date "$out/$name" "$want"; then
    echo "upstream: $out/$name is up to date"; return 0
  fi
  mkdir -p "$out"
  local t0=$SECONDS tmp="$out/$name.tmp.$$"  # per process: two builds into one shared cache never mix
  echo "upstream: building $name from $pkg ($(basename "$dir"))"
  rm -f "$out/$name.stamp"
  (cd "$dir" && go build -tags selinux,notest -ldflags "-s -w $ldflags" -o "$tmp" "$pkg")
  digest "$tmp" > "$tmp.sha256"
  mv "$tmp.sha256" "$out/$name.sha256"; mv "$tmp" "$out/$name"; echo "$want" > "$out/$name.stamp"
  echo "upstream: built $name in $((SECONDS - t0)) s"
}

required_version() {  # required_version <go.mod> <module>: the version go.mod requires
  awk -v m="$2" '{for (i = 1; i < NF; i++) if ($i == m) {print $(i + 1); exit}}' "$1"
}

version_ldflags() {  # what hack/lib/version.sh sets, so /version reports the tag
  local tag="$1" minor; minor="$(echo "$tag" | cut -d. -f2)"
  echo "-X k8s.io/component-base/version.gitVersion=$tag -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean"
}

for r in $releases; do
  tag="${TAG[$r]}"; dir="$here/kube-$r"
  for prog in "$dir"/cmd/*/; do
    [ -d "$prog" ] || continue
    case " ${UPSTREAM_PROGRAMS:-$(basename "$prog")} " in *" $(basename "$prog") "*) ;; *) continue ;; esac
    build "$dir" "$cache/$tag" "$(basename "$prog")" "./cmd/$(basename "$prog")" "$(version_ldflags "$tag")"
  done
done
if [ -n "${UPSTREAM_PROGRAMS:-}" ]; then echo "upstream: binaries in $cache"; exit 0; fi
for r in $server_releases; do
  tag="${TAG[$r]}"; dir="$here/kube-$r"
  build "$dir" "$cache/$tag" kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver "$(version_ldflags "$tag")"
done
# kubectl (with its built-in kustomize) from the default release's module: the deploy tests render with it.
build "$here/kube-1.36" "$cache/${TAG[1.36]}" kubectl k8s.io/kubernetes/cmd/kubectl "$(version_ldflags "${TAG[1.36]}")"
for d in "$here"/etcd-*/; do
  [ -d "$d" ] || continue
  v="$(required_version "$d/go.mod" go.etcd.io/etcd/server/v3)"
  build "$d" "$cache/etcd-$v" etcd go.etcd.io/etcd/server/v3
done
for d in "$here"/helm-*/; do  # helm, for the chart tests
  [ -d "$d" ] || continue
  v="$(required_version "$d/go.mod" helm.sh/helm/v4)"
  build "$d" "$cache/helm-$v" helm helm.sh/helm/v4/cmd/helm "-X helm.sh/helm/v4/internal/version.version=$v -X helm.sh/helm/v4/internal/version.gitTreeState=clean"
done
echo "upstream: binaries in $cache"
