# Sourced by run.sh and profile.sh: the address a freshly started skiff listens on.
#
#   addr=$(skiff_address LOG_FILE PID) || exit 1
#
# skiff is started with listeners=PLAINTEXT://127.0.0.1:0 and logs the port the kernel chose;
# this polls its log for that line for up to 10 s. Fails (printing the log) if skiff exits or
# never says where it listens.
skiff_address() {
  local log_file=$1 pid=$2 addr=''
  for _ in $(seq 200); do
    addr=$(grep -o 'skiff listening on 127\.0\.0\.1:[0-9]*' "$log_file" 2>/dev/null \
      | head -1 | sed 's/.* on //') || true
    [ -n "$addr" ] && { echo "$addr"; return 0; }
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  cat "$log_file" >&2
  echo "skiff (pid $pid) did not start listening" >&2
  return 1
}
