#!/usr/bin/env bash
# The project's tests, as the README names them: builds what the tests run
# first, where its progress can be seen, then runs `go test` on every
# package (or on the arguments given, e.g. `ci/test.sh ./ci/lab`).
#
# Why a script: `go test ./...` shows a package's output only once the
# package is done, so a first run (it builds the Kubernetes test binaries,
# minutes on 2 cores) would print nothing for a long while. Here every long
# step prints a line within 10 s and then at least every 30 s.
set -euo pipefail
cd "$(dirname "$0")/.."

# heartbeat LABEL CMD...: runs CMD with its output passed through and, while
# it runs, a line after 10 s and then every 20 s saying what is running and
# for how long. Returns CMD's exit code.
heartbeat() {
  local label=$1; shift
  local start=$SECONDS
  "$@" &
  local pid=$!
  (
    sleep 10
    while kill -0 "$pid" 2>/dev/null; do
      printf '== %s: still running, %ds elapsed\n' "$label" $((SECONDS - start))
      sleep 20
    done
  ) &
  local speaker=$!
  trap 'kill "$pid" "$speaker" 2>/dev/null; exit 130' INT TERM
  local rc=0
  wait "$pid" || rc=$?
  kill "$speaker" 2>/dev/null || true
  wait "$speaker" 2>/dev/null || true
  trap - INT TERM
  return "$rc"
}

bin=$(mktemp -d "${TMPDIR:-/tmp}/gpu-lab-test.XXXXXX")
trap 'rm -rf "$bin"' EXIT

echo "== building labctl (first run: about 2 min on 2 cores; the Go module downloads are listed)"
heartbeat "building labctl" go build -o "$bin/labctl" ./ci/cmd/labctl

echo "== the local test environment's Kubernetes binaries (first run: 5–20 min on 2 cores; later runs find them cached)"
heartbeat "building the Kubernetes test binaries" "$bin/labctl" testenv build

[ $# -gt 0 ] || set -- ./...
echo "== go test -timeout 40m $* (warm: about a minute on 2 cores; the first run also compiles the tests)"
heartbeat "go test" go test -timeout 40m "$@"
