# Sourced by e2e scripts that check how a tool fails; they set $dir (their scratch folder) and
# define fail MESSAGE first. (Not a test itself: tests/CMakeLists.txt runs tests/e2e/*.sh only.)

# expect_error CODE TEXT COMMAND...: COMMAND must exit with CODE ("non-zero": any failure), print
# nothing on stdout and exactly one line on stderr, one that contains TEXT.
expect_error() {
  local code="$1" text="$2"
  shift 2
  "$@" >"$dir/expect.out" 2>"$dir/expect.err"
  local got=$?
  if [ "$code" = "non-zero" ]; then [ "$got" -ne 0 ]; else [ "$got" -eq "$code" ]; fi ||
    { cat "$dir/expect.err"; fail "'$*' exited $got, expected $code"; }
  [ "$(wc -l <"$dir/expect.err")" -eq 1 ] ||
    { cat "$dir/expect.err"; fail "'$*': expected one line on stderr"; }
  grep -qF -- "$text" "$dir/expect.err" ||
    { cat "$dir/expect.err"; fail "'$*': the error does not say '$text'"; }
  [ ! -s "$dir/expect.out" ] || { cat "$dir/expect.out"; fail "'$*' printed on stdout"; }
  echo "ok ($got): $(cat "$dir/expect.err")"
}
