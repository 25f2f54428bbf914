#!/usr/bin/env bash
# Soak: runs the packages that start real local environments (e2e and
# testenv) N times in a row with -count=1 while busy loops keep every CPU
# loaded, and prints failures / runs. Not part of .ci/run (20 runs take an
# hour or more on 2 cores); the README quotes its figure.
#
#   ci/test/soak.sh [N]            N runs, default 20
#   SOAK_LOAD=k ci/test/soak.sh    k busy loops (default: one per CPU; 0: none)
#   SOAK_PKGS='./ci/testenv'  other packages
#   SOAK_RUN='^TestX$'        only the tests go test -run selects
#   SOAK_OUT=dir              where each run's output goes (default: a new temp dir)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-20}
load=${SOAK_LOAD:-$(nproc)}
read -r -a pkgs <<<"${SOAK_PKGS:-./ci/test/e2e ./ci/testenv}"
sel=${SOAK_RUN:-.}
out=${SOAK_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/gpulab-soak.XXXXXX")}
mkdir -p "$out"

# The first build of the Kubernetes binaries and of the test binaries is not
# what is soaked: do both before the load starts.
go run ./ci/cmd/labctl testenv build >/dev/null
go test -count=1 -short -run '^$' "${pkgs[@]}" >/dev/null # compiles; -short: no environment

# Busy loops, each ended by timeout even if this script is killed.
loops=()
stop_load() { for p in "${loops[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap stop_load EXIT
for ((i = 0; i < load; i++)); do
  timeout 4h bash -c 'while :; do :; done' &
  loops+=($!)
done

failed=0
for ((r = 1; r <= runs; r++)); do
  begin=$(date +%s)
  log="$out/run-$r.log"
  if go test -count=1 -timeout 30m -run "$sel" "${pkgs[@]}" >"$log" 2>&1; then
    verdict=ok
  else
    verdict=FAIL
    failed=$((failed + 1))
  fi
  printf 'run %d/%d: %s in %ds (%s)\n' "$r" "$runs" "$verdict" $(($(date +%s) - begin)) "$log"
  if [ "$verdict" = FAIL ]; then
    grep -E '^(--- FAIL|FAIL|panic:)' "$log" | sed 's/^/    /' | head -20 || true
  fi
done
printf 'soak: %d failures / %d runs (%s -run %s; %d busy loops on %d CPUs; logs in %s)\n' \
  "$failed" "$runs" "${pkgs[*]}" "$sel" "$load" "$(nproc)" "$out"
[ "$failed" -eq 0 ]
