#!/usr/bin/env bash
# Whether the test cluster is up: every host's init alive, slurmctld answering and every node idle or
# allocated. Exit 0 and one line when it is; exit 1 and the reason when not (the multihost tests skip then).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
state="${SLAB_CLUSTER_DIR:-/var/tmp/slab-cluster}"
[ -f "$state/pids" ] || { echo "cluster: not up (no $state/pids; start it with bash scripts/cluster/up.sh)"; exit 1; }
hosts=()
while read -r kind name init _; do
  [ "$kind" = host ] || continue
  [ -e "/proc/$init" ] || { echo "cluster: host $name is down (init $init gone)"; exit 1; }
  hosts+=("$name")
done < "$state/pids"
((${#hosts[@]})) || { echo "cluster: no hosts in $state/pids"; exit 1; }
states="$("$here/on" n1 sinfo -h -N -o '%N=%t' 2>&1)" || { echo "cluster: slurmctld not answering: $states"; exit 1; }
echo "cluster: up (${hosts[*]}); nodes $(echo "$states" | tr '\n' ' ')"
