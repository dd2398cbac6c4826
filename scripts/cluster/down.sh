#!/usr/bin/env bash
# Tear the test cluster down by what up.sh recorded in $state/pids: SIGKILL each host's init (PID 1 of its pid
# namespace, so the kernel ends every process of that host with it: daemons, jobs, stray ranks), wait for them,
# delete the network namespaces (their veths and the bridge go with them), unmount nothing (the mounts lived in
# the hosts' mount namespaces), and remove the state folder. Safe to run twice or after a failed start.
set -uo pipefail
state="${SLAB_CLUSTER_DIR:-/var/tmp/slab-cluster}"
[ -f "$state/pids" ] || { echo "cluster: nothing to tear down in $state"; exit 0; }
inits=()
while read -r kind name a b; do
  case "$kind" in
    host)
      # Only a process that is still the init recorded (same pid namespace as its launcher's child) is ended.
      if [ -e "/proc/$a" ] && grep -qx "$a" <(cat /proc/"$b"/task/*/children 2>/dev/null | tr ' ' '\n'); then
        kill -KILL "$a" 2>/dev/null && inits+=("$a")
      fi
      kill -KILL "$b" 2>/dev/null || true ;;
  esac
done < "$state/pids"
for p in "${inits[@]}"; do
  for _ in $(seq 100); do [ -e "/proc/$p" ] || break; sleep 0.05; done
done
while read -r kind name _; do
  [ "$kind" = netns ] && ip netns delete "$name" 2>/dev/null
done < <(tac "$state/pids")
rm -rf "$state"
echo "cluster: down"
