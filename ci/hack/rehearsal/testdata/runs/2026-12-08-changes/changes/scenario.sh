#!/bin/bash
# The change scenario on the rehearsal's kept seed lab: a worker added, the suite, the worker removed,
# a tenant added, that tenant removed, the suite, down. Each step's log and wall time in /work/logs/change/out.
C=/root/.cache/gpu-lab/rehearsal
S=$C/run/state
O=/work/logs/change/out
mkdir -p $O
lc() { DOCKER_HOST=unix://$C/daemon/docker.sock LABCTL_HELM=$C/bin/helm nsenter --net=/var/run/netns/gpu-lab-rehearsal -- $C/bin/labctl "$@"; }
ns() { nsenter --net=/var/run/netns/gpu-lab-rehearsal -- "$@"; }
dk() { DOCKER_HOST=unix://$C/daemon/docker.sock nsenter --net=/var/run/netns/gpu-lab-rehearsal -- docker "$@"; }
snap() { # what runs: containers with start times, helm revisions, TCPs, namespaces, nodes per tenant
  {
  echo "== $1 ($(date -u +%FT%TZ))"
  dk ps -a --format '{{.Names}} {{.Status}}' | sort
  for c in $(dk ps -a --format '{{.Names}}' | grep -- '-worker' | sort); do echo "$c started $(dk inspect -f '{{.State.StartedAt}}' $c)"; done
  KC=$S/kubeconfigs/management.yaml
  ns kubectl --kubeconfig $KC get tcp -A -o custom-columns=NS:.metadata.namespace,NAME:.metadata.name,GEN:.metadata.generation,CREATED:.metadata.creationTimestamp,STATUS:.status.kubernetesResources.version.status 2>&1
  ns kubectl --kubeconfig $KC get ns -l gpu-lab.dev/lab 2>&1
  for k in $S/kubeconfigs/tenant-*.yaml; do t=$(basename $k .yaml); echo "-- $t"; ns kubectl --kubeconfig $k get nodes -o wide 2>&1 | cut -c1-100; ns kubectl --kubeconfig $k -n kube-system get cm gpu-lab-nvml-mock -o jsonpath='{.data}' 2>&1 | tr ',' '\n' | grep -o '"gpu-lab[^"]*yaml"'; echo; ns $C/bin/helm --kubeconfig $k -n kube-system history hami 2>&1 | tail -n +1; done
  ls $S/kubeconfigs $S/values
  } > $O/$1.txt 2>&1
}
step() { # step NAME CMD...: runs labctl CMD, logs, wall time
  local n=$1; shift
  local t0=$(date +%s.%N)
  lc "$@" > $O/$n.log 2>&1
  local rc=$?
  echo "$n rc=$rc wall=$(echo "$(date +%s.%N) - $t0" | bc) s" | tee -a $O/walls.txt
  return $rc
}
up() { step "$1" up --verbose --images $C/bundle --state-dir $S -f /work/logs/change/$2; }
snap 0-seed
up 1-add-worker worker.yaml && snap 1-add-worker
step 2-test-worker test --state-dir $S --report-dir $O/reports-worker
up 3-remove-worker seed.yaml && snap 3-remove-worker
up 4-add-tenant tenant-c.yaml && snap 4-add-tenant
up 5-remove-tenant seed.yaml && snap 5-remove-tenant
ns kubectl --kubeconfig $S/kubeconfigs/management.yaml -n kamaji-system logs deploy/kamaji --since=15m > $O/5-kamaji.log 2>&1
up 6-add-tenant-again tenant-c.yaml && snap 6-add-tenant-again
step 7-test test --state-dir $S --report-dir $O/reports-final
up 8-nochange tenant-c.yaml
echo done > $O/done
