#!/usr/bin/env bash
# Runs Apache Kafka locally for the project's tests and for development: one
# JVM that is both broker and KRaft controller (no ZooKeeper), bound to
# 127.0.0.1, with the settings a single node needs (replication factor 1 for
# the internal topics, no automatic topic creation: the beacon log creates
# its topic through the admin API, beaconlog/kafka_log.h).
# Kafka 3.9.1 (kafka_2.13, the Scala 2.13 build) runs on JDK 17. Its jars
# come from Maven (pom.xml beside this file, local repository ~/.m2): the
# broker (kafka.Kafka), the storage formatter (kafka.tools.StorageTool) and
# the readiness check (org.apache.kafka.tools.TopicCommand, what
# `kafka-topics.sh` runs) are started with `java -cp`; there is no tarball.
#
# Usage: deploy/kafka/kafka.sh start|wait|stop|restart|status
#   start    fetch the jars if needed, write the config, format the storage
#            when it is new (a random cluster id), start the JVM
#   wait     block until the broker has started and answers a metadata
#            request from a real client (`kafka-topics --list`), bounded
#   stop     SIGTERM (Kafka's controlled shutdown), kill after a grace period
#   restart  stop, then start keeping the data whatever RTB_KAFKA_FRESH says,
#            then wait: what the broker acknowledged survives it (the
#            beacon log's broker-restart test runs this)
#   status   show what runs; exit 0 only if the broker runs
#
# Durability: a record is acknowledged (acks=all) once the broker has written
# it to its log files, not fsynced: it survives the broker's crash, not the
# machine's (a cluster of three replicas is what survives that).
#
# Environment (defaults in brackets):
#   RTB_KAFKA_RUN_DIR          config, data, logs, pid file [${TMPDIR:-/tmp}/rtb-kafka]
#   RTB_KAFKA_FRESH            1: delete the data at `start`, so every run begins
#                              empty; 0 keeps it [1]
#   RTB_KAFKA_PORT             client (broker) listener port [9092]
#   RTB_KAFKA_CONTROLLER_PORT  KRaft controller listener port [9093]
#   RTB_KAFKA_HEAP             the JVM's heap [512m]
#   RTB_KAFKA_WAIT_TIMEOUT     seconds `wait` waits at most [120]
#   RTB_KAFKA_STOP_GRACE       seconds `stop` waits for a clean exit before killing [30]
#   JAVA_HOME                  JDK 11 or newer (17 here) [java on PATH]
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RUN_DIR=${RTB_KAFKA_RUN_DIR:-${TMPDIR:-/tmp}/rtb-kafka}
FRESH=${RTB_KAFKA_FRESH:-1}
PORT=${RTB_KAFKA_PORT:-9092}
CONTROLLER_PORT=${RTB_KAFKA_CONTROLLER_PORT:-9093}
HEAP=${RTB_KAFKA_HEAP:-512m}
WAIT_TIMEOUT=${RTB_KAFKA_WAIT_TIMEOUT:-120}
STOP_GRACE=${RTB_KAFKA_STOP_GRACE:-30}

CONF_DIR=$RUN_DIR/conf
LOG_DIR=$RUN_DIR/logs
DATA_DIR=$RUN_DIR/data
PID_FILE=$RUN_DIR/kafka.pid
CLASSPATH_FILE=$HERE/target/classpath.txt

die() {
  echo "kafka.sh: $*" >&2
  exit 1
}

check_settings() {
  local name value
  for name in PORT CONTROLLER_PORT; do
    value=${!name}
    [[ $value =~ ^[0-9]+$ ]] && ((value >= 1 && value <= 65535)) ||
      die "RTB_KAFKA_$name must be a port number in 1..65535, got '$value'"
  done
  ((PORT != CONTROLLER_PORT)) || die "RTB_KAFKA_PORT and RTB_KAFKA_CONTROLLER_PORT must differ"
  [[ $WAIT_TIMEOUT =~ ^[1-9][0-9]*$ ]] ||
    die "RTB_KAFKA_WAIT_TIMEOUT must be a positive number of seconds, got '$WAIT_TIMEOUT'"
  [[ $STOP_GRACE =~ ^[1-9][0-9]*$ ]] ||
    die "RTB_KAFKA_STOP_GRACE must be a positive number of seconds, got '$STOP_GRACE'"
  [[ $HEAP =~ ^[1-9][0-9]*[mMgG]$ ]] || die "RTB_KAFKA_HEAP looks like 512m or 1g, got '$HEAP'"
  [[ $FRESH == 0 || $FRESH == 1 ]] || die "RTB_KAFKA_FRESH must be 0 or 1, got '$FRESH'"
  [[ $RUN_DIR == /* ]] || die "RTB_KAFKA_RUN_DIR must be an absolute path, got '$RUN_DIR'"
}

java_bin() {
  local java=java
  [[ -n ${JAVA_HOME:-} ]] && java=$JAVA_HOME/bin/java
  command -v "$java" >/dev/null || die "no java found (set JAVA_HOME or put java on PATH)"
  local major
  major=$("$java" -XshowSettings:properties -version 2>&1 |
    sed -n 's/^ *java.specification.version = \([0-9]*\).*/\1/p')
  [[ -n $major ]] && ((major >= 11)) || die "Kafka 3.9 needs JDK 11 or newer, $java is '${major:-unknown}'"
  echo "$java"
}

# --- classpath -------------------------------------------------------------

classpath_is_current() {
  [[ -s $CLASSPATH_FILE && $CLASSPATH_FILE -nt $HERE/pom.xml ]] || return 1
  # A cleaned ~/.m2 leaves a classpath naming jars that are gone.
  local jar
  while IFS= read -r -d ':' jar; do
    [[ -f $jar ]] || return 1
  done < <(printf '%s:' "$(cat "$CLASSPATH_FILE")")
}

build_classpath() {
  classpath_is_current && return 0
  command -v mvn >/dev/null || die "mvn (Apache Maven) is needed to fetch Kafka"
  local args=(-B -q -Dstyle.color=never -f "$HERE/pom.xml" process-classes)
  local attempt
  for attempt in 1 2 3; do
    if mvn "${args[@]}" >"$RUN_DIR/maven.log" 2>&1; then
      # build-classpath leaves an unchanged file alone; its age marks this build.
      touch "$CLASSPATH_FILE"
      return 0
    fi
    # A missing artifact will not come on a retry.
    grep -q -E 'Could not find artifact|Failure to find|was not found in' "$RUN_DIR/maven.log" && break
    echo "kafka.sh: Maven failed (attempt $attempt of 3), retrying" >&2
    sleep $((attempt * 5))
  done
  grep -m 3 ERROR "$RUN_DIR/maven.log" >&2 || true
  die "could not fetch Kafka with Maven; full log: $RUN_DIR/maven.log"
}

# --- processes -------------------------------------------------------------

# Prints the pid in the pid file if that process is ours (its command line
# names this run directory), so a recycled pid is never signalled.
live_pid() {
  local pid cmdline
  [[ -f $PID_FILE ]] || return 1
  pid=$(cat "$PID_FILE")
  [[ $pid =~ ^[0-9]+$ && -r /proc/$pid/cmdline ]] || return 1
  # Read whole before matching: `tr | grep -q` fails under pipefail when grep
  # exits early and tr gets SIGPIPE.
  cmdline=$(tr '\0' '\n' <"/proc/$pid/cmdline") || return 1
  grep -qxF -- "-Drtb.kafka.run.dir=$RUN_DIR" <<<"$cmdline" || return 1
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

write_config() {
  mkdir -p "$CONF_DIR" "$LOG_DIR" "$DATA_DIR" "$RUN_DIR/tmp"
  cat >"$CONF_DIR/server.properties" <<EOF
# Written by deploy/kafka/kafka.sh on every start; edits are lost.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$PORT,CONTROLLER://127.0.0.1:$CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$DATA_DIR
num.partitions=1
default.replication.factor=1
min.insync.replicas=1
auto.create.topics.enable=false
# One node: the internal topics cannot have more replicas; few partitions
# keep the first consumer group's start short.
offsets.topic.replication.factor=1
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=4
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
# A group's first join is not held back waiting for more members.
group.initial.rebalance.delay.ms=0
num.network.threads=2
num.io.threads=4
log.retention.hours=24
EOF
  cat >"$CONF_DIR/log4j.properties" <<EOF
log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.request.logger=WARN
log4j.logger.state.change.logger=WARN
log4j.logger.kafka.log.LogCleaner=WARN
log4j.logger.org.apache.kafka.clients=WARN
EOF
  cat >"$CONF_DIR/tools-log4j.properties" <<EOF
log4j.rootLogger=WARN, stderr
log4j.appender.stderr=org.apache.log4j.ConsoleAppender
log4j.appender.stderr.Target=System.err
log4j.appender.stderr.layout=org.apache.log4j.PatternLayout
log4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n
EOF
  # The readiness check's client gives up quickly; `wait` retries it.
  cat >"$CONF_DIR/probe.properties" <<EOF
request.timeout.ms=3000
default.api.timeout.ms=5000
socket.connection.setup.timeout.ms=1000
EOF
}

# A random cluster id: 16 bytes in URL-safe base64 without padding, the form
# `kafka-storage random-uuid` prints.
cluster_id() {
  head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n'
}

format_storage() {
  local java=$1 classpath=$2
  [[ -f $DATA_DIR/meta.properties ]] && return 0
  if ! "$java" -Xmx256m "-Dlog4j.configuration=file:$CONF_DIR/tools-log4j.properties" \
    -cp "$classpath" kafka.tools.StorageTool format --ignore-formatted \
    -t "$(cluster_id)" -c "$CONF_DIR/server.properties" >"$LOG_DIR/format.out" 2>&1; then
    cat "$LOG_DIR/format.out" >&2
    die "could not format the storage in $DATA_DIR"
  fi
}

# Starts "$@" in a session of its own, so it outlives this shell and takes no
# terminal signals; the process writes its own pid before it becomes the JVM.
launch() {
  local out=$1
  shift
  rm -f "$PID_FILE"
  setsid bash -c 'echo $$ >"$0"; exec "$@"' "$PID_FILE" "$@" >"$out" 2>&1 </dev/null &
  local i
  for ((i = 0; i < 50; i++)); do
    [[ -s $PID_FILE ]] && return 0
    sleep 0.1
  done
  die "could not start Kafka (no pid after 5 s)"
}

# --- subcommands -----------------------------------------------------------

cmd_start() {
  check_settings
  local java pid
  java=$(java_bin)
  mkdir -p "$RUN_DIR"
  if pid=$(live_pid); then
    echo "kafka.sh: already running (pid $pid), 127.0.0.1:$PORT"
    return 0
  fi
  port_in_use "$PORT" && die "port $PORT is taken; set RTB_KAFKA_PORT"
  port_in_use "$CONTROLLER_PORT" && die "port $CONTROLLER_PORT is taken; set RTB_KAFKA_CONTROLLER_PORT"
  build_classpath
  local classpath
  classpath=$(cat "$CLASSPATH_FILE")
  [[ $FRESH == 1 ]] && rm -rf "$DATA_DIR"
  write_config
  format_storage "$java" "$classpath"
  # One log per start: `wait` looks for this start's "started" line.
  [[ -f $LOG_DIR/kafka.out ]] && mv -f "$LOG_DIR/kafka.out" "$LOG_DIR/kafka.out.previous"
  launch "$LOG_DIR/kafka.out" "$java" "-Drtb.kafka.run.dir=$RUN_DIR" "-Xmx$HEAP" "-Xms$HEAP" \
    -XX:+UseG1GC -XX:MaxGCPauseMillis=20 "-XX:OnOutOfMemoryError=kill -9 %p" \
    -Djava.awt.headless=true "-Djava.io.tmpdir=$RUN_DIR/tmp" "-Dkafka.logs.dir=$LOG_DIR" \
    "-Dlog4j.configuration=file:$CONF_DIR/log4j.properties" \
    -cp "$classpath" kafka.Kafka "$CONF_DIR/server.properties"
  echo "kafka.sh: broker + controller starting (pid $(cat "$PID_FILE")) on 127.0.0.1:$PORT"
  # Catch a JVM that dies at once (bad classpath, taken port) here, not in `wait`.
  sleep 1
  live_pid >/dev/null || die "Kafka exited at once; see $LOG_DIR/kafka.out"
}

cmd_wait() {
  check_settings
  local java start=$SECONDS
  java=$(java_bin)
  [[ -s $CLASSPATH_FILE && -f $CONF_DIR/probe.properties ]] || die "not started: run '$0 start' first"
  local deadline=$((SECONDS + WAIT_TIMEOUT))
  # First the broker's own word that it started (registered and unfenced),
  # then a client's metadata request answered.
  until grep -q 'Kafka Server started' "$LOG_DIR/kafka.out" 2>/dev/null; do
    live_pid >/dev/null || die "Kafka is not running; see $LOG_DIR/kafka.out"
    ((SECONDS < deadline)) || die "Kafka did not start within ${WAIT_TIMEOUT} s; see $LOG_DIR/kafka.out"
    sleep 0.2
  done
  until timeout 15 "$java" -Xmx128m -XX:TieredStopAtLevel=1 \
    "-Dlog4j.configuration=file:$CONF_DIR/tools-log4j.properties" -cp "$(cat "$CLASSPATH_FILE")" \
    org.apache.kafka.tools.TopicCommand --bootstrap-server "127.0.0.1:$PORT" \
    --command-config "$CONF_DIR/probe.properties" --list >/dev/null 2>"$LOG_DIR/probe.out"; do
    live_pid >/dev/null || die "Kafka is not running; see $LOG_DIR/kafka.out"
    ((SECONDS < deadline)) ||
      die "Kafka answered no metadata request within ${WAIT_TIMEOUT} s; see $LOG_DIR/probe.out"
    sleep 1
  done
  echo "kafka.sh: ready on 127.0.0.1:$PORT after $((SECONDS - start)) s of waiting"
}

cmd_stop() {
  [[ -d $RUN_DIR ]] || { echo "kafka.sh: not running"; return 0; }
  check_settings
  local pid
  if ! pid=$(live_pid); then
    rm -f "$PID_FILE"
    echo "kafka.sh: not running"
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null || true
  if ! wait_for_exit "$pid" "$STOP_GRACE"; then
    echo "kafka.sh: Kafka (pid $pid) still running after ${STOP_GRACE} s, killing" >&2
    kill -KILL "$pid" 2>/dev/null || true
    wait_for_exit "$pid" 5 || die "could not stop Kafka (pid $pid)"
  fi
  rm -f "$PID_FILE"
  echo "kafka.sh: stopped"
}

cmd_status() {
  local pid
  if pid=$(live_pid); then
    echo "Kafka: running (pid $pid), 127.0.0.1:$PORT, controller 127.0.0.1:$CONTROLLER_PORT"
    echo "run dir: $RUN_DIR"
    return 0
  fi
  echo "Kafka: not running"
  echo "run dir: $RUN_DIR"
  return 1
}

case "${1:-}" in
  start) cmd_start ;;
  wait) cmd_wait ;;
  stop) cmd_stop ;;
  restart)
    cmd_stop
    FRESH=0
    cmd_start
    cmd_wait
    ;;
  status) cmd_status ;;
  *)
    echo "usage: $0 start|wait|stop|restart|status" >&2
    exit 2
    ;;
esac
