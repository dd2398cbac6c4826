#!/usr/bin/env bash
# Start the test cluster: N hosts (default 2; SLAB_CLUSTER_HOSTS=3 for three) on one machine, each a set of
# Linux namespaces, and real daemons on them:
#
#   network  one netns per host (slabc-n1, ...) with eth0 = one end of a veth pair; the other ends hang on a
#            bridge in its own netns (slabc-br). Addresses (10.213.7.11, .12, ... /24; SLAB_CLUSTER_NET) exist
#            only inside these namespaces: nothing is added to the machine's own interfaces or routes, so
#            traffic between hosts is TCP over the bridge and cannot leave it.
#   uts      the host's own hostname (n1, n2, ...), so Open MPI sees different nodes (no shared memory between
#            them) and Slurm finds its NodeName.
#   mount    /tmp (node-local, per host), /etc/hosts (every host's name), /etc/slurm (slurm.conf) and
#            /run/munge (the host's munged socket) bound from the state folder; everything else, the
#            repository and its build included, is shared as on a cluster's shared file system.
#   pid      a small init (PID 1, reaps orphans) per host: killing it ends every process of that host at once
#            (what the failure tests call "the host dies") and is how down.sh ends a host.
#
# Daemons per host: munged (one generated key for all), sshd (root by a generated key pair, for mpirun's
# launcher), slurmd; slurmctld on n1. Open MPI's TCP transports are restricted to the bridge's subnet.
# Everything lives under the state folder ${SLAB_CLUSTER_DIR:-/var/tmp/slab-cluster}; the PIDs it records
# there (pids) are what down.sh ends. scripts/cluster/on HOST CMD runs a command on a host.
#
#   bash scripts/cluster/up.sh            # prints "cluster: up (n1 n2) in S s"
#   scripts/cluster/on n1 sinfo
#   bash scripts/cluster/down.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
state="${SLAB_CLUSTER_DIR:-/var/tmp/slab-cluster}"
nhosts="${SLAB_CLUSTER_HOSTS:-2}"
net="${SLAB_CLUSTER_NET:-10.213.7}"  # first three octets of the private /24
prefix=slabc
start=$SECONDS

die() { echo "cluster: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "must run as root (network, mount and pid namespaces)"
[[ "$nhosts" =~ ^[1-9]$ ]] || die "SLAB_CLUSTER_HOSTS must be 1-9, got '$nhosts'"
for tool in ip unshare nsenter slurmctld slurmd munged /usr/sbin/sshd ssh-keygen /usr/bin/python3; do
  command -v "$tool" >/dev/null || die "'$tool' not found: run bash scripts/cluster/packages.sh first"
done
if [ -f "$state/pids" ]; then
  if "$here/status.sh" >/dev/null 2>&1; then echo "cluster: already up ($state)"; exit 0; fi
  echo "cluster: removing a stale cluster in $state"
  bash "$here/down.sh"
fi

hosts=()
for i in $(seq 1 "$nhosts"); do hosts+=("n$i"); done
addr() { echo "$net.$((10 + ${1#n}))"; }

umask 077
mkdir -p "$state"/{ssh,munge,slurm/etc,slurm/ctld,scratch}
chmod 755 "$state" "$state/scratch"
: > "$state/pids"
trap 'echo "cluster: start-up failed; see $state/*.log and $state/slurm/*.log" >&2; bash "$here/down.sh" >/dev/null 2>&1 || true' ERR

# --- keys: sshd's host key, root's login key, munge's key (all generated here, never reused from the machine)
ssh-keygen -q -t ed25519 -N '' -C slab-cluster-host -f "$state/ssh/host_key"
ssh-keygen -q -t ed25519 -N '' -C slab-cluster-root -f "$state/ssh/id_ed25519"
cp "$state/ssh/id_ed25519.pub" "$state/ssh/authorized_keys"
dd if=/dev/urandom of="$state/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$state/munge/munge.key"

# --- files every host sees: /etc/hosts, ssh client config and known hosts, slurm.conf
{
  echo "127.0.0.1 localhost"
  for h in "${hosts[@]}"; do echo "$(addr "$h") $h"; done
} > "$state/etc_hosts"
{
  for h in "${hosts[@]}"; do
    echo "$h,$(addr "$h") $(cut -d' ' -f1,2 "$state/ssh/host_key.pub")"
  done
} > "$state/ssh/known_hosts"
cat > "$state/ssh/ssh_config" <<EOF
Host *
  User root
  IdentityFile $state/ssh/id_ed25519
  IdentitiesOnly yes
  UserKnownHostsFile $state/ssh/known_hosts
  StrictHostKeyChecking yes
  BatchMode yes
  ConnectTimeout 5
  # mpirun waits for its ssh to a host that vanished: ssh gives up after 3 unanswered probes 4 s apart (later
  # than slab's own ranks, SLAB_LIVENESS_TIMEOUT, so the multihost tests can tell them apart).
  ServerAliveInterval 4
  ServerAliveCountMax 3
  LogLevel ERROR
EOF
nodes=""
for h in "${hosts[@]}"; do
  nodes+="NodeName=$h NodeAddr=$(addr "$h") CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=2 ThreadsPerCore=1 RealMemory=2048 State=UNKNOWN"$'\n'
done
# Slurm without cgroups (proctrack/linuxproc), binding with task/affinity (so --cpu-bind and -c are real),
# PMIx as the default MPI plugin, no accounting. Each "node" claims 2 cores (the machine's), so two or three
# nodes share them: fine for correctness tests. SlurmdTimeout=10: a node whose slurmd is gone is marked down,
# and its jobs ended, within about 15 s (the default, 300 s, is a site's choice).
cat > "$state/slurm/etc/slurm.conf" <<EOF
ClusterName=slabtest
SlurmctldHost=n1($(addr n1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$state/slurm/ctld
SlurmdSpoolDir=$state/slurm/spool-%n
SlurmctldPidFile=$state/slurm/slurmctld.pid
SlurmdPidFile=$state/slurm/slurmd-%n.pid
SlurmctldLogFile=$state/slurm/slurmctld.log
SlurmdLogFile=$state/slurm/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=pmix
ReturnToService=2
SlurmdTimeout=10
SlurmctldTimeout=30
InactiveLimit=0
KillWait=5
MinJobAge=30
SchedulerType=sched/backfill
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
SlurmdParameters=config_overrides
TmpFS=/tmp
$nodes
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
chmod 644 "$state/slurm/etc/slurm.conf" "$state/etc_hosts"

# The environment of a login on the cluster (scripts/cluster/on exports it): Open MPI over the bridge only,
# mpirun's ssh with the cluster's key and known hosts.
cat > "$state/cluster.env" <<EOF
SLAB_CLUSTER_DIR=$state
SLAB_CLUSTER_HOSTS="${hosts[*]}"
SLAB_CLUSTER_SUBNET=$net.0/24
SLAB_SCRATCH=$state/scratch
OMPI_MCA_btl_tcp_if_include=$net.0/24
OMPI_MCA_oob_tcp_if_include=$net.0/24
OMPI_MCA_plm_rsh_agent=ssh
OMPI_MCA_plm_rsh_args="-F $state/ssh/ssh_config"
OMPI_MCA_btl_vader_single_copy_mechanism=none
# MPI one-sided between hosts (slab::sweep's shared counter): Open MPI 4.1's default component (osc/rdma) fails
# over the TCP BTL with MPI_ERR_WIN in MPI_Win_allocate; pt2pt works on any BTL.
OMPI_MCA_osc=pt2pt
# mpirun notices a daemon whose host vanished (no reset, only silence) after 10 + 3 x 2 s of keepalive instead
# of Open MPI's default 300 + 9 x 20 s; slab's own ranks end sooner (SLAB_LIVENESS_TIMEOUT).
OMPI_MCA_oob_tcp_keepalive_time=10
OMPI_MCA_oob_tcp_keepalive_intvl=2
OMPI_MCA_oob_tcp_keepalive_probes=3
OMPI_ALLOW_RUN_AS_ROOT=1
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
EOF

# --- network: the bridge's namespace, then one namespace per host, joined to it by a veth pair
mkdir -p /run/munge /run/sshd  # mount points (/run/munge is bound per host) and sshd's privilege-separation folder
ip netns add "$prefix-br"
echo "netns $prefix-br" >> "$state/pids"
ip -n "$prefix-br" link set lo up
ip -n "$prefix-br" link add br0 type bridge
ip -n "$prefix-br" link set br0 up
for h in "${hosts[@]}"; do
  ip netns add "$prefix-$h"
  echo "netns $prefix-$h" >> "$state/pids"
  ip -n "$prefix-br" link add "v$h" type veth peer name eth0 netns "$prefix-$h"
  ip -n "$prefix-br" link set "v$h" master br0 up
  ip -n "$prefix-$h" link set lo up
  ip -n "$prefix-$h" addr add "$(addr "$h")/24" dev eth0
  ip -n "$prefix-$h" link set eth0 up
  # A connection to a host that vanished, with data in flight, gives up after about 6 s of retransmissions
  # instead of Linux's default 15 (about 15 min): what a cluster's admins tune so that mpirun notices a dead
  # node (its keepalive only covers idle connections: cluster.env).
  ip netns exec "$prefix-$h" sysctl -qw net.ipv4.tcp_retries2=4
done

# --- hosts: uts + mount + pid namespaces inside each netns, with a reaping init as PID 1
for h in "${hosts[@]}"; do
  d="$state/hosts/$h"
  mkdir -p "$d"/{tmp,munge,log} "$state/slurm/spool-$h"
  chmod 1777 "$d/tmp"
  chmod 755 "$d" "$state/hosts"
  # nsenter --net, not ip netns exec: that one mounts a fresh /sys, hiding the machine's cgroup file systems,
  # which slurmd's cgroup plugin insists on finding (even with proctrack/linuxproc and task/affinity).
  # A checkout under /tmp (a clone in /tmp/x) would vanish behind the host's own /tmp: bind it into that /tmp at
  # the same path first, so the repository and its build stay shared by every host.
  repo_in_tmp=""
  case "$repo" in /tmp/?*) repo_in_tmp="${repo#/tmp/}" && mkdir -p "$d/tmp/$repo_in_tmp" ;; esac
  nsenter --net="/run/netns/$prefix-$h" unshare --uts --mount --pid --fork --mount-proc --propagation private \
    /bin/sh -c 'hostname "$1" && { [ -z "$6" ] || mount --bind "$5" "$2/tmp/$6"; } && mount --rbind "$2/tmp" /tmp &&
                mount --bind "$3/etc_hosts" /etc/hosts && mount --bind "$3/slurm/etc" /etc/slurm &&
                mount --bind "$2/munge" /run/munge && exec /usr/bin/python3 "$4"' \
    sh "$h" "$d" "$state" "$here/host_init.py" "$repo" "$repo_in_tmp" > "$d/log/init.log" 2>&1 < /dev/null &
  launcher=$!
  init=""
  for _ in $(seq 100); do  # the init is the unshare process's only child
    init="$(cat /proc/"$launcher"/task/*/children 2>/dev/null | tr -d ' ')" || true
    [ -n "$init" ] && [ -e "$state/hosts/$h/log/init.log" ] && grep -q ready "$d/log/init.log" 2>/dev/null && break
    sleep 0.05
  done
  [ -n "$init" ] || die "host $h did not start (see $d/log/init.log)"
  echo "host $h $init $launcher" >> "$state/pids"
done

on() { "$here/on" "$@"; }
# --- daemons
for h in "${hosts[@]}"; do
  d="$state/hosts/$h"
  on "$h" munged --key-file="$state/munge/munge.key" --socket=/run/munge/munge.socket.2 \
    --pid-file="$d/munged.pid" --log-file="$d/log/munged.log" --seed-file="$d/munge.seed" --force
  on "$h" /usr/sbin/sshd -f /dev/null -o ListenAddress="$(addr "$h")" -o HostKey="$state/ssh/host_key" \
    -o PidFile="$d/sshd.pid" -o PermitRootLogin=prohibit-password -o PubkeyAuthentication=yes \
    -o AuthorizedKeysFile="$state/ssh/authorized_keys" -o PasswordAuthentication=no \
    -o KbdInteractiveAuthentication=no -o UsePAM=no -o StrictModes=no -o PrintMotd=no \
    -o LogLevel=ERROR -E "$d/log/sshd.log"
done
on n1 slurmctld
for h in "${hosts[@]}"; do on "$h" slurmd; done

# --- ready when every node is idle and ssh works between the hosts
for _ in $(seq 150); do
  idle="$(on n1 sinfo -h -N -o '%N %t' 2>/dev/null | awk '$2 == "idle" {n++} END {print n + 0}')"
  [ "$idle" -eq "$nhosts" ] && break
  sleep 0.2
done
[ "$idle" -eq "$nhosts" ] || die "only $idle of $nhosts slurmd are idle: $(on n1 sinfo -h -N 2>&1 | tr '\n' ';')"
for h in "${hosts[@]}"; do
  [ "$(on n1 ssh -F "$state/ssh/ssh_config" "$h" hostname)" = "$h" ] || die "ssh n1 -> $h failed"
done
trap - ERR
echo "cluster: up (${hosts[*]}) in $((SECONDS - start)) s; state in $state"
