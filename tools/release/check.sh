#!/usr/bin/env bash
# make release-check: publish the modules into a file:// module proxy
# exactly as a release would (tools/release: zips made by x/mod/zip from
# the git revision each version names), then, outside the repository and
# without the workspace, prove what a user of the library gets:
#   1. go get every library module at HEAD and build a program that
#      imports every public package;
#   2. go install the command at HEAD (which refuses a module that needs
#      a replace) and run it;
#   3. a program that imports only dtype, kernels, zarr and transcode
#      pulls in no cloud SDK, arrow-go, plotting library or cobra.
# It checks what is committed: HEAD, not the working tree.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
work=$(mktemp -d "${TMPDIR:-/tmp}/dt64-release.XXXXXX")
trap 'rm -rf "$work"' EXIT
step() { printf '%s release-check: %s\n' "$(date +%T)" "$*"; }

base=$(GOWORK=off go env GOPROXY)
case "$base" in file://*) base=${base#*,} ;; esac # make's own proxy comes first; a release does not have it
version=$(cd "$root/tools/release" && GOWORK=off GOPROXY="$base" go run . -dir "$work/proxy")
step "published HEAD as $version"

export GOPROXY="file://$work/proxy,$base" GONOSUMDB=github.com/zarr-dt64/dt64 GOWORK=off GOFLAGS=-mod=mod
m=github.com/zarr-dt64/dt64
libs=("$m" "$m/zarrow" "$m/objstore")

# Every public package of the library modules: not main, not internal,
# not the fuzz suite (tests only).
pkgs=$(cd "$root" && GOWORK= GOFLAGS= go list -f '{{if ne .Name "main"}}{{.ImportPath}}{{end}}' ./... ./zarrow/... ./objstore/... |
	grep -v -e /internal -e "^$m/fuzz" -e /s3test)
[ -n "$pkgs" ] || { echo "release-check: no public package found" >&2; exit 1; }

step "1. a program importing every public package ($(echo "$pkgs" | wc -l) packages)"
mkdir "$work/all" && cd "$work/all"
go mod init example.com/all >/dev/null 2>&1
{ echo 'package main'; echo 'import ('; for p in $pkgs; do echo "	_ \"$p\""; done; echo ')'; echo 'func main() {}'; } >main.go
go get "${libs[@]/%/@HEAD}" >/dev/null 2>&1 || go get "${libs[@]/%/@HEAD}"
go build -o /dev/null . 
for l in "${libs[@]}"; do
	got=$(go list -m -f '{{.Version}}' "$l")
	[ "$got" = "$version" ] || { echo "release-check: $l resolved to $got, not HEAD ($version)" >&2; exit 1; }
done

step "2. go install $m/cmd/dt64@HEAD"
GOBIN="$work/bin" go install "$m/cmd/dt64@HEAD"
"$work/bin/dt64" --help >/dev/null

step "3. the core packages alone pull in no cloud SDK, arrow-go, plotting library or cobra"
mkdir "$work/core" && cd "$work/core"
go mod init example.com/core >/dev/null 2>&1
cat >main.go <<GO
package main

import (
	_ "$m/dtype"
	_ "$m/kernels"
	_ "$m/transcode"
	_ "$m/zarr"
)

func main() {}
GO
go get "$m@HEAD" >/dev/null 2>&1 || go get "$m@HEAD"
go build -o /dev/null .
if heavy=$(go list -m all | grep -E 'aws-sdk|/aws/|cloud.google.com|azure|apache/arrow|gonum.org|spf13/cobra'); then
	echo "release-check: a program importing only the core packages pulls in:" >&2
	echo "$heavy" >&2
	exit 1
fi
step "ok: $(go list -m all | wc -l) modules in the core's graph, none of them heavy"
