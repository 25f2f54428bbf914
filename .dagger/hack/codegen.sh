#!/usr/bin/env bash
# Regenerates the Dagger module bindings (.dagger/dagger.gen.go and
# .dagger/internal/dagger) without a Dagger engine:
#   1. builds Dagger's codegen (github.com/dagger/dagger/cmd/codegen, pinned in
#      hack/codegen/go.mod) from the Go module proxy;
#   2. converts the engine API schema shipped in that module
#      (docs/docs-graphql/schema.graphqls) to introspection JSON (hack/codegen);
#   3. runs `codegen generate-module` on the module source.
# Needs only Go and the Go module proxy (nothing when the module cache is warm).
#
#   .dagger/hack/codegen.sh           regenerate in place
#   .dagger/hack/codegen.sh --check   regenerate in a scratch copy; fail on any difference
set -euo pipefail

DAGGER_VERSION=v0.21.8
MODULE_NAME=gpu-lab

mode=write
case "${1:-}" in
  "") ;;
  --check) mode=check ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

here=$(cd "$(dirname "$0")" && pwd)
mod=$(cd "$here/.." && pwd)           # .dagger
tools="$here/codegen"
export PATH=/usr/local/go/bin:$PATH
unset GOWORK                         # codegen adds `go work` post-commands when GOWORK is set
export GOFLAGS=-mod=mod
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ "$mode" = check ]; then
  (cd "$tools" && go vet . && go test -count=1 .)   # the converter's own tests
fi

# 1 + 2: the codegen binary, the converter and the schema of the pinned release.
(cd "$tools" && go build -o "$work/codegen" github.com/dagger/dagger/cmd/codegen && go build -o "$work/sdl2intro" .)
src=$(cd "$tools" && go list -m -f '{{.Dir}}' github.com/dagger/dagger)
"$work/sdl2intro" "$src/docs/docs-graphql/schema.graphqls" "$DAGGER_VERSION" > "$work/introspection.json"

# 3: generate into the module, or into a scratch copy of it.
target=$mod
if [ "$mode" = check ]; then
  target="$work/root/.dagger"
  mkdir -p "$target"
  (cd "$mod" && tar --exclude=./hack -cf - .) | tar -xf - -C "$target"
fi
root=$(dirname "$target")
(cd "$root" && "$work/codegen" generate-module \
  --introspection-json-path "$work/introspection.json" \
  --module-name "$MODULE_NAME" \
  --module-source-path .dagger \
  --lib-version "$DAGGER_VERSION" \
  --output . >"$work/codegen.log" 2>&1) || { cat "$work/codegen.log" >&2; exit 1; }
# Keep the go directive the engine's Go SDK image accepts: Dagger v0.21.8's
# codegen rejects a go.mod newer than its own Go
# (cmd/codegen/generator/go/generate_module.go:159), the Go SDK image is
# golang:1.26-alpine (engine/distconsts/consts.go:31-32), and sdk/go/go.mod:3
# declares go 1.26.1.
(cd "$target" && go mod edit -go=1.26.1 -toolchain=none && go mod tidy && gofmt -w dagger.gen.go internal/dagger)

if [ "$mode" = check ]; then
  fail=0
  for f in dagger.gen.go internal/dagger go.mod go.sum; do
    if ! diff -ru "$mod/$f" "$target/$f" >"$work/diff" 2>&1; then
      echo "codegen --check: $f is stale; run .dagger/hack/codegen.sh and commit the result" >&2
      head -40 "$work/diff" >&2
      fail=1
    fi
  done
  exit $fail
fi
echo "generated $mod/dagger.gen.go and $mod/internal/dagger"
