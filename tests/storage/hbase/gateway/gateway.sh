#!/usr/bin/env bash
# A THBaseService (Thrift2) gateway in front of the local HBase, for the
# hbase backend's tests where the Maven repository does not serve HBase's
# own hbase-thrift artifact (so deploy/hbase/hbase.sh runs HBase without its
# gateway). See src/main/java/rtb/gateway/Thrift2Gateway.java.
#
# Usage: gateway.sh start|wait|stop
#   start   build if needed (Java generated from storage/thrift/hbase.thrift,
#           classpath from pom.xml), then start the gateway in the background
#   wait    until it accepts connections (bounded, 60 s)
#   stop    stop it
#
# Environment (defaults in brackets):
#   RTB_GATEWAY_PORT        port on 127.0.0.1 [9090]
#   RTB_GATEWAY_TRANSPORT   buffered or framed [buffered]
#   RTB_HBASE_RUN_DIR       run dir of deploy/hbase/hbase.sh; its conf/ holds
#                           the hbase-site.xml the gateway reads [${TMPDIR:-/tmp}/rtb-hbase]
#   RTB_GATEWAY_DIR         build output, log and pid file [${TMPDIR:-/tmp}/rtb-thrift2-gateway]
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../../.." && pwd)
PORT=${RTB_GATEWAY_PORT:-9090}
TRANSPORT=${RTB_GATEWAY_TRANSPORT:-buffered}
HBASE_CONF=${RTB_HBASE_RUN_DIR:-${TMPDIR:-/tmp}/rtb-hbase}/conf
OUT=${RTB_GATEWAY_DIR:-${TMPDIR:-/tmp}/rtb-thrift2-gateway}
PID_FILE=$OUT/gateway.pid

JDK_FLAGS=(
  --add-modules jdk.unsupported
  --add-opens java.base/java.io=ALL-UNNAMED
  --add-opens java.base/java.nio=ALL-UNNAMED
  --add-opens java.base/sun.nio.ch=ALL-UNNAMED
  --add-opens java.base/java.lang=ALL-UNNAMED
  --add-opens java.base/java.lang.reflect=ALL-UNNAMED
  --add-opens java.base/java.util=ALL-UNNAMED
  --add-opens java.base/java.util.concurrent=ALL-UNNAMED
  --add-exports java.base/jdk.internal.misc=ALL-UNNAMED
)

die() {
  echo "gateway.sh: $*" >&2
  exit 1
}

build() {
  mkdir -p "$OUT"
  local stamp=$OUT/build.stamp
  if [[ -f $stamp && $stamp -nt "$ROOT/storage/thrift/hbase.thrift" &&
        $stamp -nt "$HERE/src/main/java/rtb/gateway/Thrift2Gateway.java" &&
        $stamp -nt "$HERE/pom.xml" ]]; then
    return
  fi
  rm -rf "$OUT/gen" "$OUT/classes"
  mkdir -p "$OUT/gen" "$OUT/classes"
  thrift --gen java:generated_annotations=suppress -out "$OUT/gen" "$ROOT/storage/thrift/hbase.thrift"
  mvn -B -q -f "$HERE/pom.xml" dependency:build-classpath -Dmdep.outputFile="$OUT/classpath.txt" \
    >"$OUT/maven.log" 2>&1 || die "Maven failed; see $OUT/maven.log"
  find "$OUT/gen" "$HERE/src/main/java" -name '*.java' >"$OUT/sources.txt"
  javac -nowarn -encoding UTF-8 -d "$OUT/classes" -cp "$(cat "$OUT/classpath.txt")" @"$OUT/sources.txt" \
    >"$OUT/javac.log" 2>&1 || die "javac failed; see $OUT/javac.log"
  touch "$stamp"
}

running() {
  [[ -f $PID_FILE ]] && kill -0 "$(cat "$PID_FILE")" 2>/dev/null
}

cmd_start() {
  [[ $TRANSPORT == buffered || $TRANSPORT == framed ]] ||
    die "RTB_GATEWAY_TRANSPORT must be buffered or framed, got '$TRANSPORT'"
  [[ -f $HBASE_CONF/hbase-site.xml ]] ||
    die "no $HBASE_CONF/hbase-site.xml: start HBase first (deploy/hbase/hbase.sh start)"
  if running; then
    echo "gateway.sh: already running (pid $(cat "$PID_FILE"))"
    return
  fi
  build
  local args=("$PORT")
  [[ $TRANSPORT == framed ]] && args+=(framed)
  nohup java -Xmx512m "${JDK_FLAGS[@]}" \
    -cp "$HBASE_CONF:$OUT/classes:$(cat "$OUT/classpath.txt")" \
    rtb.gateway.Thrift2Gateway "${args[@]}" >"$OUT/gateway.log" 2>&1 &
  echo $! >"$PID_FILE"
  echo "gateway.sh: starting on 127.0.0.1:$PORT ($TRANSPORT), pid $(cat "$PID_FILE"), log $OUT/gateway.log"
}

cmd_wait() {
  local deadline=$((SECONDS + 60))
  while ((SECONDS < deadline)); do
    running || die "gateway exited; see $OUT/gateway.log"
    if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
      echo "gateway.sh: ready on 127.0.0.1:$PORT"
      return
    fi
    sleep 1
  done
  die "gateway not listening on 127.0.0.1:$PORT after 60 s; see $OUT/gateway.log"
}

cmd_stop() {
  running || { rm -f "$PID_FILE"; return; }
  local pid
  pid=$(cat "$PID_FILE")
  kill "$pid"
  for _ in $(seq 1 30); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 1
  done
  kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
  rm -f "$PID_FILE"
  echo "gateway.sh: stopped"
}

case "${1:-}" in
  start) cmd_start ;;
  wait) cmd_wait ;;
  stop) cmd_stop ;;
  *) die "usage: gateway.sh start|wait|stop" ;;
esac
