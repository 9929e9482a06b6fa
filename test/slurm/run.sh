#!/usr/bin/env bash
# npm run test:slurm: a one-node Slurm cluster on this machine, then the tier's tests against it.
# Installs Debian's slurm-wlm and munge when missing; starts munged, slurmctld and slurmd as root
# with a generated config (linuxproc process tracking, no task plugin, no accounting, every state
# and spool folder in a temporary folder, ports of their own); stops them at the end, also when a
# test fails or the run is interrupted. Needs root (the daemons run as root; jobs run as root).
set -euo pipefail
cd "$(dirname "$0")/../.."
say() { echo "test:slurm: $*" >&2; }

[ "$(id -u)" = 0 ] || { say "needs root: it starts munged, slurmctld and slurmd"; exit 2; }
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null || ! command -v sbatch >/dev/null; then
  say "installing slurm-wlm and munge (Debian packages)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
fi

base=$(mktemp -d /tmp/rca-slurm.XXXXXX)
chmod 755 "$base"
host=$(hostname -s)
pids=()
stop() {
  status=$?
  trap - EXIT INT TERM
  if [ -n "${SLURM_CONF:-}" ]; then scancel --full --signal=KILL --quiet -u "$(id -un)" 2>/dev/null || true; fi
  for pidfile in "$base/slurmd.pid" "$base/slurmctld.pid" "$base/munge/munged.pid"; do
    [ -s "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    kill "$pid" 2>/dev/null || continue
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  if [ "$status" -ne 0 ] && [ -d "$base/log" ]; then
    say "daemon logs (last lines):"
    tail -n 20 "$base"/log/*.log >&2 || true
  fi
  if [ -z "${RCA_SLURM_KEEP:-}" ]; then rm -rf "$base"; else say "kept $base"; fi
  exit "$status"
}
trap stop EXIT
trap 'exit 130' INT TERM

# munge: its own key, socket and pid file, so an installed munge service is left alone.
mkdir -p "$base/munge" "$base/log" "$base/spool" "$base/state"
chmod 700 "$base/munge"
mungekey --create --keyfile="$base/munge/munge.key" 2>/dev/null || dd if=/dev/urandom of="$base/munge/munge.key" bs=1 count=1024 status=none
chmod 600 "$base/munge/munge.key"
munged --force --key-file="$base/munge/munge.key" --socket="$base/munge/munge.socket" \
  --pid-file="$base/munge/munged.pid" --log-file="$base/log/munged.log" --seed-file="$base/munge/seed"
chmod 755 "$base/munge"

# Ports away from a real cluster's 6817/6818.
ctld_port=$((16000 + RANDOM % 4000))
cat > "$base/slurm.conf" <<EOF
ClusterName=rcatier
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$((ctld_port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$base/munge/munge.socket,cred_expire=5
MpiDefault=none
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2
ReturnToService=2
StateSaveLocation=$base/state
SlurmdSpoolDir=$base/spool
SlurmctldPidFile=$base/slurmctld.pid
SlurmdPidFile=$base/slurmd.pid
SlurmctldLogFile=$base/log/slurmctld.log
SlurmdLogFile=$base/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
MaxArraySize=1001
KillWait=30
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=tier Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
EOF
export SLURM_CONF="$base/slurm.conf"
slurmctld -i
slurmd
for _ in $(seq 1 60); do
  sinfo -h -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)' && break
  sleep 0.5
done
sinfo -h -o '%T' | grep -qE '^(idle|mixed|allocated)' || { say "the node did not come up"; sinfo >&2 || true; exit 3; }
say "one-node cluster up ($(sinfo -h -o '%P %D %T %c CPUs'), slurm $(sinfo --version | awk '{print $2}'), config $SLURM_CONF)"

export RCA_SLURM_BASE="$base"
npx vitest run --config test/slurm/vitest.config.ts
