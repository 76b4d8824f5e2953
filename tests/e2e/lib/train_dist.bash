# Sourced by e2e scripts that run scripts/train_dist on the build of $train (set first): defines
# train_dist ARGS..., and train_dist_exec ARGS... for a background job (`train_dist_exec ... &`),
# where exec makes train_dist itself the process $! names and the test signals. (Not a test
# itself: tests/CMakeLists.txt runs tests/e2e/*.sh only.)
# train_dist builds first: with the tree's own configuration it finds it up to date, where a
# portable tree tested without XTRAIN_PORTABLE=1 would be reconfigured and rebuilt (longer than
# the tests wait, and under the other tests' feet). Tests of two processes pass --oversubscribe,
# which changes nothing on two hardware threads or more, and lets them run on one.
XTRAIN_BUILD="$(dirname "$(dirname "$train")")"
XTRAIN_PORTABLE=0
grep -q '^XTRAIN_PORTABLE:BOOL=ON' "$XTRAIN_BUILD/CMakeCache.txt" && XTRAIN_PORTABLE=1
export XTRAIN_BUILD XTRAIN_PORTABLE
train_dist_script="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)/scripts/train_dist"
train_dist() { "$train_dist_script" "$@"; }
train_dist_exec() { exec "$train_dist_script" "$@"; }
