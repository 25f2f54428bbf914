#!/bin/bash
# On the kept three-tenant lab: the management cluster's snapshot, a worker added to tenant-a, then removed.
C=/root/.cache/gpu-lab/rehearsal
S=$C/run/state
O=${OUT:-/work/logs/change/out2}
mkdir -p $O
/work/logs/mgmt-snap.sh $O/mgmt-after-up.txt
lc() { DOCKER_HOST=unix://$C/daemon/docker.sock LABCTL_HELM=$C/bin/helm nsenter --net=/var/run/netns/gpu-lab-rehearsal -- $C/bin/labctl "$@"; }
ns() { nsenter --net=/var/run/netns/gpu-lab-rehearsal -- "$@"; }
step() { local n=$1; shift; local t0=$(date +%s.%N); lc "$@" > $O/$n.log 2>&1; local rc=$?; echo "$n rc=$rc wall=$(echo "$(date +%s.%N) - $t0" | bc) s" | tee -a $O/walls.txt; return $rc; }
pods() { ns kubectl --kubeconfig $S/kubeconfigs/tenant-a.yaml -n kube-system get pods -o wide > $O/$1-tenant-a-pods.txt 2>&1; }
pods 0
step 1-add-worker up --verbose --images $C/bundle --state-dir $S -f /work/logs/change/${GROWN:-three-worker.yaml}; pods 1
step 2-remove-worker up --verbose --images $C/bundle --state-dir $S -f /work/logs/change/${BASE:-three.yaml}; pods 2
step 3-down down --state-dir $S
cd ${RH:-/work/rh2} && bin/rehearse daemon down > $O/4-daemon-down.log 2>&1; rm -rf $S
echo done > $O/done
