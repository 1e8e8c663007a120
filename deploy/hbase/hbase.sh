#!/usr/bin/env bash
# Runs Apache HBase locally for the project's tests and for development:
# one JVM with the master, an embedded ZooKeeper and N region servers
# (standalone mode), plus a Thrift2 gateway (THBaseService) in a second JVM.
# The gateway is the project's own (src/main/java/rtb/hbase/gateway), built on
# HBase's Java client and wire-compatible with HBase's Thrift2 server, whose
# jar (hbase-thrift) the package registry here does not serve.
# Everything binds to 127.0.0.1. Jars come from Maven (pom.xml beside this
# file, local repository ~/.m2); there is no tarball.
#
# Usage: deploy/hbase/hbase.sh start|wait|stop|status|gateway PORT|regionserver|place TABLE N|cpus LIST
#   start   fetch jars and build the gateway if needed, write the config,
#           start both JVMs
#   wait    block until the master is initialized with all region servers
#           live and the gateway answers a real Thrift2 call (bounded)
#   stop    shut the cluster down cleanly, kill after a grace period
#   status  show what runs; exit 0 only if everything runs
#   gateway PORT
#           run one more Thrift2 gateway on 127.0.0.1:PORT in the foreground
#           (the process becomes the JVM), for a running cluster: the fault
#           tests kill and restart it under load without touching the cluster
#   regionserver
#           run one more region server in a JVM of its own in the foreground
#           (distributed mode for this process only, random RPC port, a 6 s
#           ZooKeeper session), for a running cluster: a fault test kills it
#           with SIGKILL, and the master reassigns its regions to the others
#   place TABLE N
#           once N region servers are live, move every primary region of
#           TABLE to the newest region server and its replicas to older
#           ones; prints the newest server's host:port
#   cpus LIST
#           confine the running master and gateway JVMs, every thread of
#           them, to the CPUs in LIST (taskset's list format: 1, 2-3, 0,2):
#           the fault tests keep HBase off the cores of the bidder under test
#           this way, as a cluster on hosts of its own would be, and give it
#           every CPU back afterwards
#
# Environment (defaults in brackets):
#   RTB_HBASE_RUN_DIR           config, data, logs, pid files [${TMPDIR:-/tmp}/rtb-hbase]
#   RTB_HBASE_FRESH             1: delete the data (HBase root dir, ZooKeeper) when the
#                               master starts, so every run begins empty; 0 keeps it [1]
#   RTB_HBASE_ZK_PORT           embedded ZooKeeper client port [2181]
#   RTB_HBASE_REGION_SERVERS    region servers in the master's JVM [2]
#   RTB_HBASE_THRIFT_ENABLED    0: no Thrift2 gateway (master and region servers only) [1]
#   RTB_HBASE_THRIFT_PORT       Thrift2 gateway port [9090]
#   RTB_HBASE_THRIFT_TRANSPORT  buffered or framed; binary protocol either way [buffered]
#   RTB_HBASE_MASTER_HEAP       heap of the master + region servers JVM [1g]
#   RTB_HBASE_THRIFT_HEAP       heap of the gateway JVM [512m]
#   RTB_HBASE_WAIT_TIMEOUT      seconds `wait` waits at most [180]
#   RTB_HBASE_STOP_GRACE        seconds `stop` waits for a clean exit before killing [30]
#   RTB_HBASE_CPUS              CPUs the JVMs this script starts run on (taskset's list
#                               format: 1, 2-3, 0,2); the fault tests start their own
#                               gateway and region server on HBase's CPU this way [any]
#   JAVA_HOME                   JDK 11 or newer (17 is what HBase 2.6 is tested with) [java on PATH]
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RUN_DIR=${RTB_HBASE_RUN_DIR:-${TMPDIR:-/tmp}/rtb-hbase}
FRESH=${RTB_HBASE_FRESH:-1}
ZK_PORT=${RTB_HBASE_ZK_PORT:-2181}
REGION_SERVERS=${RTB_HBASE_REGION_SERVERS:-2}
THRIFT_ENABLED=${RTB_HBASE_THRIFT_ENABLED:-1}
THRIFT_PORT=${RTB_HBASE_THRIFT_PORT:-9090}
THRIFT_TRANSPORT=${RTB_HBASE_THRIFT_TRANSPORT:-buffered}
MASTER_HEAP=${RTB_HBASE_MASTER_HEAP:-1g}
THRIFT_HEAP=${RTB_HBASE_THRIFT_HEAP:-512m}
WAIT_TIMEOUT=${RTB_HBASE_WAIT_TIMEOUT:-180}
STOP_GRACE=${RTB_HBASE_STOP_GRACE:-30}
CPUS=${RTB_HBASE_CPUS:-}
# The command prefix that starts a JVM on $CPUS.
PIN=()
[[ -n $CPUS ]] && PIN=(taskset --cpu-list "$CPUS")

CONF_DIR=$RUN_DIR/conf
LOG_DIR=$RUN_DIR/logs
MASTER_PID=$RUN_DIR/master.pid
THRIFT_PID=$RUN_DIR/thrift.pid
CLASSPATH_FILE=$HERE/target/classpath.txt
CLASSES_DIR=$HERE/target/classes
# The gateway's Java code is generated from this IDL on every build.
THRIFT_IDL=$HERE/../../storage/thrift/hbase.thrift
GATEWAY_MAIN=rtb.hbase.gateway.Thrift2Gateway

# The JDK 11+ module options of HBase's own launcher (bin/hbase,
# add_jdk11_jvm_flags, HBase 2.5.8+/2.6), kept in the same order.
JDK11_FLAGS=(
  -Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true
  --add-modules jdk.unsupported
  --add-opens java.base/java.io=ALL-UNNAMED
  --add-opens java.base/java.nio=ALL-UNNAMED
  --add-opens java.base/sun.nio.ch=ALL-UNNAMED
  --add-opens java.base/java.lang=ALL-UNNAMED
  --add-opens java.base/jdk.internal.ref=ALL-UNNAMED
  --add-opens java.base/java.lang.reflect=ALL-UNNAMED
  --add-opens java.base/java.util=ALL-UNNAMED
  --add-opens java.base/java.util.concurrent=ALL-UNNAMED
  --add-exports java.base/jdk.internal.misc=ALL-UNNAMED
  --add-exports java.security.jgss/sun.security.krb5=ALL-UNNAMED
  --add-exports java.base/sun.net.dns=ALL-UNNAMED
  --add-exports java.base/sun.net.util=ALL-UNNAMED
)

die() {
  echo "hbase.sh: $*" >&2
  exit 1
}

check_settings() {
  local name value
  for name in ZK_PORT THRIFT_PORT; do
    value=${!name}
    [[ $value =~ ^[0-9]+$ ]] && ((value >= 1 && value <= 65535)) ||
      die "RTB_HBASE_$name must be a port number in 1..65535, got '$value'"
  done
  [[ $REGION_SERVERS =~ ^[1-9][0-9]?$ ]] ||
    die "RTB_HBASE_REGION_SERVERS must be a count in 1..99, got '$REGION_SERVERS'"
  [[ $WAIT_TIMEOUT =~ ^[1-9][0-9]*$ ]] ||
    die "RTB_HBASE_WAIT_TIMEOUT must be a positive number of seconds, got '$WAIT_TIMEOUT'"
  [[ $STOP_GRACE =~ ^[1-9][0-9]*$ ]] ||
    die "RTB_HBASE_STOP_GRACE must be a positive number of seconds, got '$STOP_GRACE'"
  [[ $THRIFT_TRANSPORT == buffered || $THRIFT_TRANSPORT == framed ]] ||
    die "RTB_HBASE_THRIFT_TRANSPORT must be buffered or framed, got '$THRIFT_TRANSPORT'"
  [[ $THRIFT_ENABLED == 0 || $THRIFT_ENABLED == 1 ]] ||
    die "RTB_HBASE_THRIFT_ENABLED must be 0 or 1, got '$THRIFT_ENABLED'"
  [[ $MASTER_HEAP =~ ^[1-9][0-9]*[mMgG]$ && $THRIFT_HEAP =~ ^[1-9][0-9]*[mMgG]$ ]] ||
    die "heap sizes look like 512m or 1g, got '$MASTER_HEAP' and '$THRIFT_HEAP'"
  [[ $FRESH == 0 || $FRESH == 1 ]] || die "RTB_HBASE_FRESH must be 0 or 1, got '$FRESH'"
  [[ $RUN_DIR == /* ]] || die "RTB_HBASE_RUN_DIR must be an absolute path, got '$RUN_DIR'"
  [[ -z $CPUS ]] || valid_cpu_list "$CPUS" ||
    die "RTB_HBASE_CPUS must be a CPU list such as 1, 2-3 or 0,2; got '$CPUS'"
}

valid_cpu_list() { [[ $1 =~ ^[0-9]+([,-][0-9]+)*$ ]]; }

java_bin() {
  local java=java
  [[ -n ${JAVA_HOME:-} ]] && java=$JAVA_HOME/bin/java
  command -v "$java" >/dev/null || die "no java found (set JAVA_HOME or put java on PATH)"
  local major
  major=$("$java" -XshowSettings:properties -version 2>&1 |
    sed -n 's/^ *java.specification.version = \([0-9]*\).*/\1/p')
  [[ -n $major ]] && ((major >= 11)) || die "HBase here needs JDK 11 or newer, $java is '${major:-unknown}'"
  echo "$java"
}

# --- classpath -------------------------------------------------------------

classpath_is_current() {
  [[ -s $CLASSPATH_FILE && -f $CLASSES_DIR/${GATEWAY_MAIN//.//}.class ]] || return 1
  local source jar
  for source in "$HERE/pom.xml" "$HERE/generate-thrift-java.sh" "$THRIFT_IDL"; do
    [[ $CLASSPATH_FILE -nt $source ]] || return 1
  done
  while IFS= read -r -d '' source; do
    [[ $CLASSPATH_FILE -nt $source ]] || return 1
  done < <(find "$HERE/src" -type f -print0)
  # A cleaned ~/.m2 leaves a classpath naming jars that are gone.
  while IFS= read -r -d ':' jar; do
    [[ -f $jar ]] || return 1
  done < <(printf '%s:' "$(cat "$CLASSPATH_FILE")")
}

build_classpath() {
  classpath_is_current && return 0
  command -v mvn >/dev/null || die "mvn (Apache Maven) is needed to fetch HBase"
  command -v thrift >/dev/null ||
    die "the thrift compiler (Debian package thrift-compiler) is needed to build the gateway"
  [[ -f $THRIFT_IDL ]] || die "the gateway's IDL is missing: $THRIFT_IDL"
  local args=(-B -q -Dstyle.color=never -f "$HERE/pom.xml" process-classes)
  local attempt
  for attempt in 1 2 3; do
    if mvn "${args[@]}" >"$RUN_DIR/maven.log" 2>&1; then
      # build-classpath leaves an unchanged file alone; its age marks this build.
      touch "$CLASSPATH_FILE"
      return 0
    fi
    # A missing artifact or a compile error will not go away on a retry.
    if grep -q -E 'Could not find artifact|Failure to find|was not found in|COMPILATION ERROR|generate-thrift-java|exec-maven-plugin' \
      "$RUN_DIR/maven.log"; then
      break
    fi
    echo "hbase.sh: Maven failed (attempt $attempt of 3), retrying" >&2
    sleep $((attempt * 5))
  done
  grep -m 3 -E 'ERROR|generate-thrift-java' "$RUN_DIR/maven.log" >&2 || true
  die "could not fetch HBase or build the gateway with Maven; full log: $RUN_DIR/maven.log"
}

# --- processes -------------------------------------------------------------

# Prints the pid in $1 if that process is one of ours (its command line names
# this run directory), so a recycled pid is never signalled.
live_pid() {
  local file=$1 pid
  [[ -f $file ]] || return 1
  pid=$(cat "$file")
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  [[ -r /proc/$pid/cmdline ]] || return 1
  # Read whole before matching: `tr | grep -q` fails under pipefail whenever
  # grep exits early and tr, still writing a JVM's long command line, gets SIGPIPE.
  local cmdline
  cmdline=$(tr '\0' '\n' <"/proc/$pid/cmdline") || return 1
  grep -qxF -- "-Drtb.hbase.run.dir=$RUN_DIR" <<<"$cmdline" || return 1
  echo "$pid"
}

port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

wait_for_exit() {
  local pid=$1 seconds=$2 i
  for ((i = 0; i < seconds * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  return 1
}

# --- configuration ---------------------------------------------------------

property() {
  printf '  <property><name>%s</name><value>%s</value></property>\n' "$1" "$2"
}

write_config() {
  mkdir -p "$CONF_DIR" "$LOG_DIR" "$RUN_DIR/data" "$RUN_DIR/zookeeper" "$RUN_DIR/tmp"
  {
    echo '<?xml version="1.0"?>'
    echo '<!-- Written by deploy/hbase/hbase.sh on every start; edits are lost. -->'
    echo '<configuration>'
    property hbase.cluster.distributed false
    property hbase.rootdir "file://$RUN_DIR/data"
    property hbase.tmp.dir "$RUN_DIR/tmp"
    # WALs on the local file system cannot hflush/hsync the way HDFS does.
    property hbase.unsafe.stream.capability.enforce false
    property hbase.zookeeper.quorum 127.0.0.1
    property hbase.zookeeper.property.clientPort "$ZK_PORT"
    property hbase.zookeeper.property.clientPortAddress 127.0.0.1
    property hbase.zookeeper.property.dataDir "$RUN_DIR/zookeeper"
    # Several region servers in one JVM: random RPC ports, no web UIs.
    property hbase.localcluster.assign.random.ports true
    property hbase.master.info.port -1
    property hbase.regionserver.info.port -1
    property hbase.thrift.info.port -1
    property hbase.master.ipc.address 127.0.0.1
    property hbase.regionserver.ipc.address 127.0.0.1
    property hbase.master.hostname 127.0.0.1
    # Assign meta as soon as all region servers have checked in.
    property hbase.master.wait.on.regionservers.mintostart "$REGION_SERVERS"
    property hbase.master.wait.on.regionservers.timeout 1000
    property hbase.unsafe.regionserver.hostname 127.0.0.1
    # Region replicas (REGION_REPLICATION => 2): secondaries get edits through
    # async WAL replication and see flushed files within a second. Replication
    # tails the WAL while it is written; the checksummed local file system
    # holds back the last partial 512-byte chunk on hflush, so a few small
    # edits would never reach the secondaries. The raw one writes through.
    property fs.file.impl org.apache.hadoop.fs.RawLocalFileSystem
    property hbase.region.replica.replication.enabled true
    property hbase.regionserver.storefile.refresh.period 1000
    property hbase.master.hfilecleaner.ttl 3600000
    echo '</configuration>'
  } >"$CONF_DIR/hbase-site.xml"

  local name
  for name in master master-stop thrift probe; do
    cat >"$CONF_DIR/log4j2-$name.properties" <<EOF
status = warn
appender.file.type = File
appender.file.name = file
appender.file.fileName = $LOG_DIR/$name.log
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = %d{ISO8601} %-5p [%t] %c{2}: %m%n
rootLogger.level = $([[ $name == probe ]] && echo warn || echo info)
rootLogger.appenderRef.file.ref = file
logger.zookeeper.name = org.apache.zookeeper
logger.zookeeper.level = warn
EOF
  done
}

jvm_common() {
  local name=$1 heap=$2
  printf '%s\n' "-Drtb.hbase.run.dir=$RUN_DIR" "-Dproc_$name" "-Xmx$heap" \
    "-XX:OnOutOfMemoryError=kill -9 %p" -XX:+UseG1GC "${JDK11_FLAGS[@]}" \
    "-Dhbase.log.dir=$LOG_DIR" "-Dhbase.log.file=$name.log" \
    "-Dlog4j2.configurationFile=$CONF_DIR/log4j2-$name.properties" \
    "-Djava.io.tmpdir=$RUN_DIR/tmp"
}

# Starts "$@" in a session of its own, so it outlives this shell and takes no
# terminal signals; the process writes its own pid (setsid may fork) before
# it becomes the JVM.
launch() {
  local pid_file=$1 out=$2
  shift 2
  rm -f "$pid_file"
  setsid bash -c 'echo $$ >"$0"; exec "$@"' "$pid_file" "$@" >"$out" 2>&1 </dev/null &
  local i
  for ((i = 0; i < 50; i++)); do
    [[ -s $pid_file ]] && return 0
    sleep 0.1
  done
  die "could not start $3 (no pid after 5 s)"
}

# --- subcommands -----------------------------------------------------------

cmd_start() {
  check_settings
  local java master_pid thrift_pid
  java=$(java_bin)
  mkdir -p "$RUN_DIR"
  if master_pid=$(live_pid "$MASTER_PID"); then
    echo "hbase.sh: master already running (pid $master_pid)"
  else
    port_in_use "$ZK_PORT" && die "port $ZK_PORT (ZooKeeper) is taken; set RTB_HBASE_ZK_PORT"
  fi
  if [[ $THRIFT_ENABLED == 1 ]] && ! live_pid "$THRIFT_PID" >/dev/null; then
    port_in_use "$THRIFT_PORT" && die "port $THRIFT_PORT (Thrift2) is taken; set RTB_HBASE_THRIFT_PORT"
  fi
  build_classpath
  local classpath
  classpath="$CONF_DIR:$(cat "$CLASSPATH_FILE")"

  if [[ -z ${master_pid:-} ]]; then
    if [[ $FRESH == 1 ]]; then
      rm -rf "$RUN_DIR/data" "$RUN_DIR/zookeeper"
    fi
    write_config
    local opts
    mapfile -t opts < <(jvm_common master "$MASTER_HEAP")
    launch "$MASTER_PID" "$LOG_DIR/master.out" "${PIN[@]}" "$java" "${opts[@]}" -cp "$classpath" \
      org.apache.hadoop.hbase.master.HMaster "--localRegionServers=$REGION_SERVERS" start
    echo "hbase.sh: master + $REGION_SERVERS region servers starting (pid $(cat "$MASTER_PID")), ZooKeeper 127.0.0.1:$ZK_PORT"
  fi

  if [[ $THRIFT_ENABLED == 1 ]]; then
    if thrift_pid=$(live_pid "$THRIFT_PID"); then
      echo "hbase.sh: Thrift2 gateway already running (pid $thrift_pid)"
    else
      [[ -f $CONF_DIR/hbase-site.xml ]] || write_config
      local opts
      mapfile -t opts < <(jvm_common thrift "$THRIFT_HEAP")
      # TThreadPoolServer, binary protocol, buffered or framed transport: what
      # HBase's `thrift2 start -threadpool [-f]` serves.
      launch "$THRIFT_PID" "$LOG_DIR/thrift.out" "${PIN[@]}" "$java" "${opts[@]}" \
        -cp "$CLASSES_DIR:$classpath" "$GATEWAY_MAIN" \
        --bind 127.0.0.1 --port "$THRIFT_PORT" --transport "$THRIFT_TRANSPORT"
      echo "hbase.sh: Thrift2 gateway starting (pid $(cat "$THRIFT_PID")) on 127.0.0.1:$THRIFT_PORT, $THRIFT_TRANSPORT transport"
    fi
  fi

  # Catch a JVM that dies at once (bad classpath, taken port) here, not in `wait`.
  sleep 2
  live_pid "$MASTER_PID" >/dev/null ||
    die "master exited at once; see $LOG_DIR/master.out and $LOG_DIR/master.log"
  if [[ $THRIFT_ENABLED == 1 ]]; then
    live_pid "$THRIFT_PID" >/dev/null ||
      die "Thrift2 gateway exited at once; see $LOG_DIR/thrift.out and $LOG_DIR/thrift.log"
  fi
}

cmd_wait() {
  check_settings
  local java
  java=$(java_bin)
  [[ -s $CLASSPATH_FILE ]] || die "not started: run '$0 start' first"
  live_pid "$MASTER_PID" >/dev/null || die "master is not running; see $LOG_DIR/master.log"
  local args=(--zk-port "$ZK_PORT" --region-servers "$REGION_SERVERS" --timeout-seconds "$WAIT_TIMEOUT")
  if [[ $THRIFT_ENABLED == 1 ]]; then
    live_pid "$THRIFT_PID" >/dev/null || die "Thrift2 gateway is not running; see $LOG_DIR/thrift.log"
    args+=(--thrift-port "$THRIFT_PORT" --thrift-transport "$THRIFT_TRANSPORT")
  fi
  local start=$SECONDS
  if ! "$java" -Xmx256m "-Dlog4j2.configurationFile=$CONF_DIR/log4j2-probe.properties" \
    -cp "$CLASSES_DIR:$CONF_DIR:$(cat "$CLASSPATH_FILE")" rtb.hbase.ReadinessProbe "${args[@]}" \
    2>"$LOG_DIR/probe.out"; then
    echo "hbase.sh: logs: $LOG_DIR/master.log $LOG_DIR/thrift.log" >&2
    exit 1
  fi
  echo "hbase.sh: ready after $((SECONDS - start)) s of waiting"
}

stop_one() {
  local name=$1 file=$2 pid
  if ! pid=$(live_pid "$file"); then
    rm -f "$file"
    echo "hbase.sh: $name not running"
    return 0
  fi
  if [[ $name == master ]]; then
    # The same request as `hbase master stop --shutDownCluster`: the master
    # closes regions, stops the region servers and ZooKeeper, then exits.
    local java opts
    java=$(java_bin)
    mapfile -t opts < <(jvm_common master-stop 256m)
    if ! timeout "$STOP_GRACE" "$java" "${opts[@]}" -cp "$CONF_DIR:$(cat "$CLASSPATH_FILE")" \
      -Dhbase.client.retries.number=1 \
      org.apache.hadoop.hbase.master.HMaster stop --shutDownCluster \
      >>"$LOG_DIR/master-stop.out" 2>&1; then
      # A master still initializing refuses the request; go straight to TERM.
      echo "hbase.sh: master refused a clean shutdown (see $LOG_DIR/master-stop.log)" >&2
      kill -TERM "$pid" 2>/dev/null || true
    fi
  else
    kill -TERM "$pid" 2>/dev/null || true
  fi
  if ! wait_for_exit "$pid" "$STOP_GRACE"; then
    echo "hbase.sh: $name (pid $pid) still running after ${STOP_GRACE} s, sending TERM" >&2
    kill -TERM "$pid" 2>/dev/null || true
    if ! wait_for_exit "$pid" 15; then
      echo "hbase.sh: $name (pid $pid) ignored TERM, killing" >&2
      kill -KILL "$pid" 2>/dev/null || true
      wait_for_exit "$pid" 5 || die "could not stop $name (pid $pid)"
    fi
  fi
  rm -f "$file"
  echo "hbase.sh: $name stopped"
}

cmd_stop() {
  [[ -d $RUN_DIR ]] || { echo "hbase.sh: not running"; return 0; }
  check_settings
  stop_one "Thrift2 gateway" "$THRIFT_PID"
  stop_one master "$MASTER_PID"
}

cmd_status() {
  local rc=0 pid
  if pid=$(live_pid "$MASTER_PID"); then
    echo "master + region servers: running (pid $pid), ZooKeeper 127.0.0.1:$ZK_PORT"
  else
    echo "master + region servers: not running"
    rc=1
  fi
  if [[ $THRIFT_ENABLED == 1 ]]; then
    if pid=$(live_pid "$THRIFT_PID"); then
      echo "Thrift2 gateway: running (pid $pid), 127.0.0.1:$THRIFT_PORT, $THRIFT_TRANSPORT transport"
    else
      echo "Thrift2 gateway: not running"
      rc=1
    fi
  fi
  echo "run dir: $RUN_DIR"
  return $rc
}

cmd_gateway() {
  check_settings
  local port=${1:-}
  [[ $port =~ ^[0-9]+$ ]] && ((port >= 1 && port <= 65535)) ||
    die "gateway needs a port number in 1..65535, got '$port'"
  [[ -s $CLASSPATH_FILE && -f $CONF_DIR/hbase-site.xml ]] || die "not started: run '$0 start' first"
  local java opts name=thrift-$port
  java=$(java_bin)
  sed "s|$LOG_DIR/thrift.log|$LOG_DIR/$name.log|" "$CONF_DIR/log4j2-thrift.properties" \
    >"$CONF_DIR/log4j2-$name.properties"
  mapfile -t opts < <(jvm_common "$name" "$THRIFT_HEAP")
  exec "${PIN[@]}" "$java" "${opts[@]}" -cp "$CLASSES_DIR:$CONF_DIR:$(cat "$CLASSPATH_FILE")" "$GATEWAY_MAIN" \
    --bind 127.0.0.1 --port "$port" --transport "$THRIFT_TRANSPORT"
}

cmd_regionserver() {
  check_settings
  [[ -s $CLASSPATH_FILE && -f $CONF_DIR/hbase-site.xml ]] || die "not started: run '$0 start' first"
  local java opts name=regionserver-$$
  java=$(java_bin)
  sed "s|$LOG_DIR/master.log|$LOG_DIR/$name.log|" "$CONF_DIR/log4j2-master.properties" \
    >"$CONF_DIR/log4j2-$name.properties"
  mapfile -t opts < <(jvm_common "$name" 512m)
  # The master runs in local mode; this region server alone is "distributed"
  # so HBase lets it start as a process of its own and register through
  # ZooKeeper. The short session lets the master see its death in seconds.
  exec "${PIN[@]}" "$java" "${opts[@]}" -cp "$CONF_DIR:$(cat "$CLASSPATH_FILE")" \
    org.apache.hadoop.hbase.regionserver.HRegionServer \
    -D hbase.cluster.distributed=true -D hbase.regionserver.port=0 \
    -D zookeeper.session.timeout=6000 start
}

cmd_cpus() {
  local list=${1:-} file pid
  valid_cpu_list "$list" || die "cpus needs a CPU list such as 1, 2-3 or 0,2; got '$list'"
  command -v taskset >/dev/null || die "cpus needs taskset (util-linux)"
  for file in "$MASTER_PID" "$THRIFT_PID"; do
    pid=$(live_pid "$file") || continue
    taskset --all-tasks --cpu-list --pid "$list" "$pid" >/dev/null ||
      die "could not move pid $pid to CPUs $list"
  done
}

cmd_place() {
  check_settings
  local table=${1:-} servers=${2:-}
  [[ -n $table && $servers =~ ^[0-9]+$ ]] || die "place needs a table name and a server count"
  [[ -s $CLASSPATH_FILE ]] || die "not started: run '$0 start' first"
  local java
  java=$(java_bin)
  "${PIN[@]}" "$java" -Xmx256m "-Dlog4j2.configurationFile=$CONF_DIR/log4j2-probe.properties" \
    -cp "$CLASSES_DIR:$CONF_DIR:$(cat "$CLASSPATH_FILE")" rtb.hbase.RegionPlacement \
    --zk-port "$ZK_PORT" --table "$table" --servers "$servers" --timeout-seconds "$WAIT_TIMEOUT"
}

case "${1:-}" in
  start) cmd_start ;;
  regionserver) cmd_regionserver ;;
  place) cmd_place "${2:-}" "${3:-}" ;;
  cpus) cmd_cpus "${2:-}" ;;
  gateway) cmd_gateway "${2:-}" ;;
  wait) cmd_wait ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  *)
    echo "usage: $0 start|wait|stop|status|gateway PORT|regionserver|place TABLE N" >&2
    exit 2
    ;;
esac
