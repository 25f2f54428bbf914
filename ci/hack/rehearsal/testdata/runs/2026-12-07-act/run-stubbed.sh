#!/bin/bash
# Self-hosted "dry run" of lab.yml's quick-test job. NOTE: on -self-hosted, act -n still
# executes run:/composite/node steps on the host, so dagger and curl are replaced by stubs
# (/work/act/stubs) that only log; no engine, no network.
set -u
cd /work/act
export ACT_DISABLE_VERSION_CHECK=1
export PATH=/work/act/stubs:$PATH
export _EXPERIMENTAL_DAGGER_RUNNER_HOST=${_EXPERIMENTAL_DAGGER_RUNNER_HOST:-tcp://127.0.0.1:1234}
exec ./bin/act -n push -j quick-test \
  -C /work/act/repo -W .github/workflows/lab.yml \
  -P ubuntu-latest=-self-hosted \
  --no-cache-server --action-offline-mode \
  --action-cache-path /work/act/cache \
  --local-repository actions/checkout@v4=/work/act/actions/checkout@v4 \
  --local-repository dagger/dagger-for-github@v8.4.1=/work/act/actions/dagger-for-github@v8.4.1 \
  --local-repository actions/upload-artifact@v4=/work/act/actions/upload-artifact@v4 \
  --local-repository mikepenz/action-junit-report@v6.4.1=/work/act/actions/action-junit-report@v6.4.1 \
  --env PROBE_VIA_ENV_FLAG=from-env-flag \
  "$@"
