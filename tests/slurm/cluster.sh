#!/usr/bin/env bash
# Single-node Slurm 22.05 (Debian 12 packages slurm-wlm + munge) in a private
# directory, without systemd and without touching /etc/slurm or /etc/munge: the
# cluster of tests/slurm-launcher.test.ts (and of anyone trying `loclab vllm slurm`
# on one machine). Pitfalls it handles: slurmd stopped while jobs run leaves an
# orphaned slurmstepd (jobs are cancelled first); munged wants every folder above
# its socket world-executable; clients need SLURM_CONF (or they try DNS SRV).
#
#   cluster.sh start DIR    create DIR from scratch (wipes DIR/state, DIR/spool,
#                           DIR/run, DIR/log, DIR/munge), start munged,
#                           slurmctld, slurmd, wait until the node is idle
#   cluster.sh stop DIR     cancel all jobs, stop slurmd, slurmctld, munged by
#                           PID, kill leftovers of this cluster, verify
#   cluster.sh status DIR   show daemons and sinfo
#   cluster.sh env DIR      print `export SLURM_CONF=...` (eval it for clients)
#
# Environment knobs (all optional):
#   LOCLAB_SLURM_CTLD_PORT   default 16817
#   LOCLAB_SLURM_SLURMD_PORT default 16818
#   LOCLAB_SLURM_AUTH        munge (default) | none  (auth/none + cred/none,
#                           no munged at all; exists in 22.05, insecure)
#   LOCLAB_SLURM_TIMEOUT     seconds to wait for node idle / jobs gone (30)
#   LOCLAB_SLURM_CPUS        declare this many CPUs instead of the real count
#                           (SlurmdParameters=config_overrides); each job takes
#                           >= 1 CPU, so with the real 2 CPUs only 2 jobs run
#                           at once and the rest stay PENDING (Resources)
#
# Needs: apt-get install -y --no-install-recommends slurm-wlm munge
set -euo pipefail

CTLD_PORT="${LOCLAB_SLURM_CTLD_PORT:-16817}"
SLURMD_PORT="${LOCLAB_SLURM_SLURMD_PORT:-16818}"
AUTH="${LOCLAB_SLURM_AUTH:-munge}"
TIMEOUT="${LOCLAB_SLURM_TIMEOUT:-30}"

die() { echo "cluster.sh: $*" >&2; exit 1; }
log() { echo "cluster.sh: $*" >&2; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.2f", b-a}'; }

# alive PIDFILE -> prints pid and returns 0 if the process in the file runs
alive() {
  local f="$1" pid
  [ -s "$f" ] || return 1
  pid="$(cat "$f")"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && { echo "$pid"; return 0; }
  return 1
}

port_busy() { ss -Hltn "sport = :$1" 2>/dev/null | grep -q .; }

# wait_gone SECONDS PID... -> 0 when all are gone
wait_gone() {
  local limit="$1"; shift
  local end=$(( $(date +%s) + limit )) p any
  while :; do
    any=0
    for p in "$@"; do
      # a zombie still answers kill -0; treat state Z as gone
      if kill -0 "$p" 2>/dev/null && [ "$(ps -o stat= -p "$p" 2>/dev/null | cut -c1)" != Z ]; then any=1; fi
    done
    [ "$any" = 0 ] && return 0
    [ "$(date +%s)" -ge "$end" ] && return 1
    sleep 0.05
  done
}

# PIDs of processes that belong to the cluster in $DIR but are not the
# three daemons: slurmstepd (holds DIR/log/slurmd.log open) and job
# processes (inherit SLURM_CONF=DIR/slurm.conf from sbatch's environment).
#   Job processes must have BOTH SLURM_CONF=DIR/slurm.conf and SLURM_JOB_ID,
#   and this script and its ancestors (e.g. the caller's shell, which may
#   have SLURM_CONF exported) are never listed.
leftovers() {
  local dir="$1" p env a ancestors=" "
  a=$BASHPID
  while [ -n "$a" ] && [ "$a" -gt 1 ]; do
    ancestors="$ancestors$a "
    a="$(ps -o ppid= -p "$a" 2>/dev/null | tr -d " " || true)"
  done
  ancestors="$ancestors$$ "
  for p in $(ls /proc | grep -E '^[0-9]+$'); do
    case "$ancestors" in *" $p "*) continue ;; esac
    env="$( { tr '\0' '\n' < "/proc/$p/environ"; } 2>/dev/null || true)"
    [ -n "$env" ] || continue
    if grep -qxF "SLURM_CONF=$dir/slurm.conf" <<<"$env" && grep -q '^SLURM_JOB_ID=' <<<"$env"; then
      echo "$p"; continue
    fi
    if [ "$( { cat "/proc/$p/comm"; } 2>/dev/null)" = slurmstepd ] &&
       ls -l "/proc/$p/fd" 2>/dev/null | grep -qF -- "-> $dir/"; then
      echo "$p"
    fi
  done
}

write_conf() {
  local dir="$1" host cpus sockets cores threads mem realmem
  host="$(hostname -s)"
  # slurmd -C prints the node's real layout: NodeName=vm CPUs=2 Boards=1
  # SocketsPerBoard=1 CoresPerSocket=2 ThreadsPerCore=1 RealMemory=24105
  local hw; hw="$(slurmd -C | head -1)"
  cpus="$(sed -n 's/.* CPUs=\([0-9]*\).*/\1/p' <<<"$hw")"
  sockets="$(sed -n 's/.* SocketsPerBoard=\([0-9]*\).*/\1/p' <<<"$hw")"
  cores="$(sed -n 's/.* CoresPerSocket=\([0-9]*\).*/\1/p' <<<"$hw")"
  threads="$(sed -n 's/.* ThreadsPerCore=\([0-9]*\).*/\1/p' <<<"$hw")"
  mem="$(sed -n 's/.* RealMemory=\([0-9]*\).*/\1/p' <<<"$hw")"
  realmem=$(( mem * 95 / 100 ))   # a bit below the machine's, else node is drained
  local overrides=""
  if [ -n "${LOCLAB_SLURM_CPUS:-}" ] && [ "$LOCLAB_SLURM_CPUS" != "$cpus" ]; then
    # without config_overrides slurmd registration fails and the node goes
    # INVAL/DRAIN: "Low socket*core*thread count, Low CPUs"
    cpus="$LOCLAB_SLURM_CPUS"; sockets=1; cores="$LOCLAB_SLURM_CPUS"; threads=1
    overrides="SlurmdParameters=config_overrides"
  fi

  local authlines
  if [ "$AUTH" = none ]; then
    authlines="AuthType=auth/none
CredType=cred/none"
  else
    authlines="AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket"
  fi

  cat > "$dir/slurm.conf" <<EOF
# generated by tests/slurm/cluster.sh for a private single-node cluster
ClusterName=loclab-test
SlurmctldHost=$host
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
$authlines
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
ReturnToService=2
EnforcePartLimits=ALL
$overrides
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus Sockets=$sockets CoresPerSocket=$cores ThreadsPerCore=$threads RealMemory=$realmem State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
}

start() {
  local dir="$1" t0 pid
  t0="$(now)"
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd -P)"
  for f in munge/munged.pid run/slurmctld.pid run/slurmd.pid; do
    if pid="$(alive "$dir/$f")"; then die "$dir/$f: pid $pid still running; run: $0 stop $dir"; fi
  done
  local left; left="$(leftovers "$dir" | tr '\n' ' ')"
  [ -z "${left// /}" ] || die "processes of an earlier run still alive ($left); run: $0 stop $dir"
  for p in "$CTLD_PORT" "$SLURMD_PORT"; do
    port_busy "$p" && die "TCP port $p is already in use (set LOCLAB_SLURM_CTLD_PORT/LOCLAB_SLURM_SLURMD_PORT)"
  done
  command -v slurmctld >/dev/null || die "slurmctld not found: apt-get install -y --no-install-recommends slurm-wlm munge"

  rm -rf "$dir/state" "$dir/spool" "$dir/run" "$dir/log" "$dir/munge"
  mkdir -p "$dir/state" "$dir/spool" "$dir/run" "$dir/log" "$dir/munge"
  chmod 755 "$dir/munge"   # munged: "Socket is inaccessible: execute permissions for all required" if 700
  write_conf "$dir"
  echo "export SLURM_CONF=$dir/slurm.conf" > "$dir/env.sh"
  export SLURM_CONF="$dir/slurm.conf"

  if [ "$AUTH" != none ]; then
    mungekey --create --keyfile="$dir/munge/munge.key" >/dev/null 2>&1 ||
      dd if=/dev/urandom of="$dir/munge/munge.key" bs=1 count=1024 status=none
    chmod 600 "$dir/munge/munge.key"
    # munged forks; returns once the socket exists
    munged --socket="$dir/munge/munge.socket" \
           --key-file="$dir/munge/munge.key" \
           --log-file="$dir/munge/munged.log" \
           --pid-file="$dir/munge/munged.pid" \
           --seed-file="$dir/munge/munged.seed" ||
      die "munged failed: $(tail -3 "$dir/munge/munged.log" 2>/dev/null)"
    munge --socket="$dir/munge/munge.socket" -n |
      unmunge --socket="$dir/munge/munge.socket" >/dev/null ||
      die "munge self-test failed"
  fi

  # both daemonize by default (fork, write pid file, log to file)
  slurmctld -f "$dir/slurm.conf" || die "slurmctld failed: $(tail -5 "$dir/log/slurmctld.log")"
  slurmd -f "$dir/slurm.conf" || die "slurmd failed: $(tail -5 "$dir/log/slurmd.log")"

  local end=$(( $(date +%s) + TIMEOUT )) st=""
  while :; do
    st="$(sinfo -h -N -o %T 2>/dev/null | head -1 || true)"
    [ "$st" = idle ] && break
    if [ "$(date +%s)" -ge "$end" ]; then
      log "node not idle after ${TIMEOUT}s (state '$st')"
      tail -5 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 || true
      stop "$dir"; exit 1
    fi
    sleep 0.1
  done
  log "started in $(since "$t0")s: node $(hostname -s) idle; use: export SLURM_CONF=$dir/slurm.conf"
}

stop() {
  local dir="$1" t0 pids="" p left
  t0="$(now)"
  [ -d "$dir" ] || die "no such directory: $dir"
  dir="$(cd "$dir" && pwd -P)"
  export SLURM_CONF="$dir/slurm.conf"

  # 1. cancel all jobs while the daemons are still up, so slurmstepd can end
  #    the job and report back (a slurmstepd orphaned by a dead slurmd keeps
  #    the job running and ignores SIGTERM while it retries slurmd)
  if alive "$dir/run/slurmctld.pid" >/dev/null && alive "$dir/run/slurmd.pid" >/dev/null; then
    local jobs; jobs="$(squeue -h -o %A 2>/dev/null | sort -u | tr '\n' ' ' || true)"
    if [ -n "${jobs// /}" ]; then
      scancel $jobs 2>/dev/null || true
      local end=$(( $(date +%s) + TIMEOUT ))
      while [ -n "$(squeue -h -o %A 2>/dev/null || true)" ] && [ "$(date +%s)" -lt "$end" ]; do sleep 0.1; done
    fi
  fi

  # 2. stop the daemons by PID (SIGTERM, about 2 s each; in parallel)
  for f in run/slurmd.pid run/slurmctld.pid munge/munged.pid; do
    if p="$(alive "$dir/$f")"; then kill -TERM "$p"; pids="$pids $p"; fi
  done
  if [ -n "$pids" ] && ! wait_gone 15 $pids; then
    log "daemons still alive after 15s, SIGKILL:$pids"
    kill -KILL $pids 2>/dev/null || true
    wait_gone 5 $pids || true
  fi

  # 3. leftovers of this cluster (orphaned slurmstepd / job processes)
  left="$(leftovers "$dir" | tr '\n' ' ')"
  if [ -n "${left// /}" ]; then
    log "killing leftover processes: $left"
    kill -TERM $left 2>/dev/null || true
    wait_gone 3 $left || { kill -KILL $left 2>/dev/null || true; wait_gone 3 $left || true; }
  fi
  left="$(leftovers "$dir" | tr '\n' ' ')"
  rm -f "$dir/run/"*.pid "$dir/munge/munged.pid" "$dir/munge/munge.socket" "$dir/munge/munge.socket.lock"
  [ -z "${left// /}" ] || die "processes still alive: $left"
  log "stopped in $(since "$t0")s"
}

status() {
  local dir; dir="$(cd "$1" && pwd -P)"
  for f in munge/munged.pid run/slurmctld.pid run/slurmd.pid; do
    if p="$(alive "$dir/$f")"; then echo "$f: running ($p)"; else echo "$f: not running"; fi
  done
  SLURM_CONF="$dir/slurm.conf" sinfo 2>&1 || true
}

case "${1:-}" in
  start)  [ $# -eq 2 ] || die "usage: $0 start DIR";  start "$2" ;;
  stop)   [ $# -eq 2 ] || die "usage: $0 stop DIR";   stop "$2" ;;
  status) [ $# -eq 2 ] || die "usage: $0 status DIR"; status "$2" ;;
  env)    [ $# -eq 2 ] || die "usage: $0 env DIR";    echo "export SLURM_CONF=$(cd "$2" && pwd -P)/slurm.conf" ;;
  *) die "usage: $0 {start|stop|status|env} DIR" ;;
esac
