#!/usr/bin/env bash
# bin/sipline cluster-demo: a cluster on this machine for a user to try. Kamailio with cluster/kamailio/kamailio.cfg
# in front of N Sipline nodes on 127.0.0.2, 127.0.0.3, ... (one address per node, the same SIP and grid ports on
# each), every node running a distributable application (examples/b2bua by default) in one Infinispan grid over TCP.
# It waits until every node is ready and the front has found each up, prints what to run against it, and stays in
# the foreground; Ctrl-C (or SIGTERM) stops every process it started, by its id. Logs go to --dir.
# One UDP worker in the front (-n 1): two may reorder a callee's 180 and 200, which sipp's uac counts as a failure.
# Run by bin/sipline after its build step (JAVA_HOME set; SIPLINE_CLASSPATH passed on when the caller set it).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SIPLINE="$ROOT/bin/sipline"
KAMAILIO=${SIPLINE_KAMAILIO:-/usr/sbin/kamailio}

nodes=3 front=127.0.0.1:5060 node_port=5060 grid_port=7800 warmup=2000 ready_seconds=240
war="$ROOT/examples/b2bua/target/b2bua.war" dir="$ROOT/target/cluster-demo"

die() { echo "sipline cluster-demo: $*" >&2; exit 2; }

usage() {
  cat <<'TXT'
Usage: bin/sipline cluster-demo [--nodes N] [--front ADDR:PORT] [--node-port P] [--grid-port P] [--deploy WAR]
                                [--warmup CALLS] [--dir DIR]

Starts a Sipline cluster on this machine: Kamailio (cluster/kamailio/kamailio.cfg, package kamailio) in front of N
nodes on 127.0.0.2, 127.0.0.3, ... each running the distributable WAR in one Infinispan grid, then prints what to
run against it. Ctrl-C stops everything it started.

  --nodes N          nodes, 1-9 (default 3: 127.0.0.2-127.0.0.4)
  --front ADDR:PORT  Kamailio's UDP address, where callers send (default 127.0.0.1:5060)
  --node-port P      every node's SIP port on its own address (default 5060)
  --grid-port P      every node's grid member port on its own address (default 7800)
  --deploy WAR       the application (default examples/b2bua/target/b2bua.war: forwards each call to
                     sip:service@127.0.0.1:5090, distributable)
  --warmup CALLS     each node's --warmup before it opens its ports (default 2000)
  --dir DIR          logs and the front's dispatcher list (default target/cluster-demo)
TXT
}

port_ok() { [[ $1 =~ ^[0-9]+$ ]] && (( $1 >= 1 && $1 <= 65535 )); }

while [[ $# -gt 0 ]]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --nodes|--front|--node-port|--grid-port|--deploy|--warmup|--dir)
      [[ $# -ge 2 ]] || die "$1 needs a value"
      case "$1" in
        --nodes) nodes=$2 ;; --front) front=$2 ;; --node-port) node_port=$2 ;; --grid-port) grid_port=$2 ;;
        --deploy) war=$2 ;; --warmup) warmup=$2 ;; --dir) dir=$2 ;;
      esac
      shift 2 ;;
    *) die "unknown option '$1' (bin/sipline cluster-demo --help lists them)" ;;
  esac
done
[[ $nodes =~ ^[1-9]$ ]] || die "--nodes: '$nodes' is not 1-9"
[[ $front =~ ^([0-9.]+):([0-9]+)$ ]] && port_ok "${BASH_REMATCH[2]}" || die "--front: '$front' is not ADDR:PORT"
port_ok "$node_port" || die "--node-port: '$node_port' is not a port"
port_ok "$grid_port" || die "--grid-port: '$grid_port' is not a port"
[[ $warmup =~ ^[0-9]+$ ]] || die "--warmup: '$warmup' is not a number of calls"
[[ -f $war ]] || die "--deploy: no file $war (bin/sipline builds the examples on its first run)"
[[ -x $KAMAILIO ]] || die "no Kamailio at $KAMAILIO (apt-get install kamailio)"

mkdir -p "$dir/run"
dir=$(cd "$dir" && pwd)
pids=() names=()

stop_all() {
  trap - INT TERM EXIT
  local pid i waited=0
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  # a node stops gracefully on SIGTERM; what is still there after 20 s is killed
  for pid in "${pids[@]}"; do
    while kill -0 "$pid" 2>/dev/null && (( waited < 200 )); do sleep 0.1; waited=$((waited + 1)); done
    kill -KILL "$pid" 2>/dev/null || true
  done
  for i in "${!pids[@]}"; do wait "${pids[$i]}" 2>/dev/null || true; done
  echo "sipline cluster-demo: stopped ${names[*]}" >&2
}
trap stop_all EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

addr() { echo "127.0.0.$(( $1 + 1 ))"; }
# a sleep that a signal interrupts at once: bash runs a trap during wait, not during a foreground command
nap() { sleep "$1" & wait $! || true; }

# The front first: it probes the nodes from the start (flag 8) and takes each in at its first answer.
{
  echo "# written by bin/sipline cluster-demo"
  for (( i = 1; i <= nodes; i++ )); do echo "1 sip:$(addr "$i"):$node_port 8 0 node=$i"; done
} >"$dir/dispatcher.list"
"$KAMAILIO" -f "$ROOT/cluster/kamailio/kamailio.cfg" -DD -E -Y "$dir/run" -w "$dir" -m 64 -M 8 -n 1 \
  -l "udp:$front" -A "DISPATCHER_LIST=\"$dir/dispatcher.list\"" -A PING_INTERVAL=2 -A PROBE_TIMEOUT_MS=2000 \
  >"$dir/kamailio.log" 2>&1 </dev/null &
pids+=($!) names+=("kamailio(pid $!)")

for (( i = 1; i <= nodes; i++ )); do
  peers=()
  for (( j = 1; j <= nodes; j++ )); do (( j == i )) || peers+=("$(addr "$j"):$grid_port"); done
  peer_list=$(IFS=,; echo "${peers[*]}")
  cluster=(--cluster-name demo --cluster-bind "$(addr "$i"):$grid_port" --cluster-node "$i"
    --cluster-front "sip:$front")
  [[ -n $peer_list ]] && cluster+=(--cluster-peers "$peer_list")
  "$SIPLINE" run --bind "$(addr "$i")" --port "$node_port" --warmup "$warmup" --deploy "$war" "${cluster[@]}" \
    >"$dir/node-$i.log" 2>&1 </dev/null &
  pids+=($!) names+=("node $i (pid $!)")
done

# Ready when every node said so and the front took each in; a process that ends before is an error.
deadline=$(( SECONDS + ready_seconds ))
while :; do
  up=0
  for (( i = 1; i <= nodes; i++ )); do
    grep -q '^sipline: ready' "$dir/node-$i.log" && grep -q "node sip:$(addr "$i"):$node_port up" "$dir/kamailio.log" \
      && up=$((up + 1))
  done
  (( up == nodes )) && break
  for i in "${!pids[@]}"; do
    kill -0 "${pids[$i]}" 2>/dev/null || die "${names[$i]} ended before the cluster was ready; its log is in $dir"
  done
  (( SECONDS < deadline )) || die "the cluster was not ready within $ready_seconds s; the logs are in $dir"
  nap 0.5
done

cat <<TXT
sipline cluster-demo: ready: Kamailio on $front in front of $nodes nodes
$(for i in "${!names[@]}"; do echo "  ${names[$i]}"; done)
Try it (sipp is in the sip-tester package), each in a terminal of its own:
  sipp -sn uas -i 127.0.0.1 -p 5090                                    # the callee the b2bua forwards to
  sipp -sn uac -i 127.0.0.1 -p 5070 -s service -r 10 -d 60000 $front   # 10 calls/s through the front, held 60 s
Then kill one node with kill -9 PID while the calls are held: its calls end cleanly through the others (their BYEs
answered 200 by a survivor, sipp counts no failed call), and new calls go to the nodes left.
Logs: $dir/node-N.log, $dir/kamailio.log. Ctrl-C stops everything.
TXT
# a killed node is part of the demo; the demo ends when the user stops it, or when the front itself ends
while kill -0 "${pids[0]}" 2>/dev/null; do nap 1; done
die "Kamailio ended; its log is $dir/kamailio.log"
