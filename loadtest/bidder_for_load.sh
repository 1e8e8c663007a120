# Sourced by the load scripts that run the bidder on a fresh embedded store:
# fresh secrets, profiles seeded for rtb-load's devices, the bidder started
# and waited for. Expects BUILD_DIR, DEVICES, HIT_SHARE and a WORK directory;
# the caller's EXIT trap stops BIDDER_PID.

# Exports random device key and beacon secrets for the bidder and the seeder.
fresh_secrets() {
  export RTB_DEVICE_KEY_SECRET RTB_BEACON_SECRET
  RTB_DEVICE_KEY_SECRET=$(openssl rand -hex 32)
  RTB_BEACON_SECRET=$(openssl rand -hex 32)
}

seed_profiles() {  # config
  "$BUILD_DIR/loadtest/rtb-seed-profiles" --config "$1" --devices "$DEVICES" \
    --hit-share "$HIT_SHARE" >&2
}

# Starts rtb-bidder on `config` and waits up to 30 s for /readyz; sets
# BIDDER_PID and PORT, or exits showing the end of the bidder's log.
start_bidder() {  # config, name for messages
  local i
  "$BUILD_DIR/bidder/rtb-bidder" --config "$1" --port-file "$WORK/bidder.port" \
    2>"$WORK/bidder.log" &
  BIDDER_PID=$!
  for ((i = 0; i < 300; i++)); do
    [[ -s $WORK/bidder.port ]] &&
      curl -sf "http://127.0.0.1:$(cat "$WORK/bidder.port")/readyz" >/dev/null && break
    sleep 0.1
  done
  PORT=$(cat "$WORK/bidder.port" 2>/dev/null || true)
  [[ -n $PORT ]] && curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null ||
    { echo "$2: bidder not ready; log: $(tail -3 "$WORK/bidder.log")" >&2; exit 1; }
}

# Stops the bidder started by start_bidder (SIGTERM: a clean shutdown) and
# waits for it.
stop_bidder() {
  [[ -n ${BIDDER_PID:-} ]] || return 0
  kill -TERM "$BIDDER_PID" 2>/dev/null || true
  wait "$BIDDER_PID" 2>/dev/null || true
  BIDDER_PID=
  rm -f "$WORK/bidder.port"
}
