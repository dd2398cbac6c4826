#!/usr/bin/env bash
# Install what the test cluster (scripts/cluster/up.sh) needs, from Debian 12's packages: Slurm (controller,
# node daemon, client), munge, an OpenSSH server for mpirun's launcher, and the network tools. Idempotent; the
# packages' own services are not started (the cluster starts its daemons itself, inside its namespaces).
#   bash scripts/cluster/packages.sh
set -euo pipefail

packages=(
  slurmctld slurmd slurm-client      # Slurm 22.05 (its mpi/pmix plugin is in slurm-wlm-basic-plugins)
  munge                              # Slurm's authentication
  openssh-server openssh-client      # sshd per host: mpirun starts its daemons over ssh
  iproute2 util-linux procps         # ip netns / veth / bridge; unshare, nsenter; pgrep for the checks
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
((${#missing[@]})) || exit 0
echo "cluster: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
# Keep the packages' init scripts from starting their services (slurmd would start on the real host, with
# no configuration). A policy-rc.d already in place (containers have one) is left as it is.
cleanup=""
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
  $SUDO chmod +x /usr/sbin/policy-rc.d
  cleanup="/usr/sbin/policy-rc.d"
fi
trap '[ -z "$cleanup" ] || $SUDO rm -f "$cleanup"' EXIT
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
