# Sourced by e2e scripts that stop a background train, once they set $train: makes their scratch
# folder $dir, defines fail MESSAGE, and on exit kills the train in $pid (if any) and removes
# $dir. (Not a test itself.)
dir="$(mktemp -d)"
pid=""
trap '[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# start NAME ARGS...: train in the background, output in $dir/NAME.out and .err, pid in $pid.
start() {
  local name="$1"
  shift
  "$train" "$@" >"$dir/$name.out" 2>"$dir/$name.err" &
  pid=$!
}
# wait_for PATTERN FILE: until a line of FILE matches (a hang guard of 120 s, not a timing goal).
wait_for() {
  for _ in $(seq 1200); do
    grep -qE "$1" "$2" && return 0
    kill -0 "$pid" 2>/dev/null || { cat "$2"; fail "train ended before printing '$1'"; }
    sleep 0.1
  done
  fail "no '$1' in $2 after 120 s"
}
# finish NAME EXPECTED_EXIT: waits for $pid (a hang guard of 120 s) and checks its exit code.
finish() {
  local name="$1" expected="$2"
  for _ in $(seq 1200); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$pid" 2>/dev/null && { kill -KILL "$pid"; fail "$name: still running 120 s after the stop"; }
  wait "$pid"
  local code=$?
  pid=""
  [ "$code" -eq "$expected" ] ||
    { tail -n 3 "$dir/$name.out"; cat "$dir/$name.err"; fail "$name: exit $code, expected $expected"; }
}
