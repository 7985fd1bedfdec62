# Sourced by the CLI tests over the corpus, after each sets `name`: takes pare's path from
# the test's first argument, moves to the package root, skips (exit 0) when
# ../shared/corpus is missing, makes a work folder that is removed on exit, and counts the
# checks that `report` prints and exits with.
pare=${1:?usage: $name.sh PATH/TO/pare}
cd "$(dirname "$0")/../.."
corpus=../shared/corpus
if [ ! -d "$corpus" ]; then
    echo "$name: ../shared/corpus is missing; skipped"
    exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
check() { # description, condition-status
    if [ "$2" = 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAILED: $1"; fi
}
# Prints the count; fails when any check did.
report() {
    echo "$name: $passed passed, $failed failed"
    [ "$failed" = 0 ]
}
