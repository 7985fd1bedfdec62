#!/usr/bin/env bash
# Runs `pare inspect` (human and --json) over every file of ../shared/corpus and Fixtures/.
# Valid files must exit 0; malformed ones (png/malformed, PngSuite x*.png) must exit 1 with
# one stderr line naming the byte offset; jpeg/malformed, jpeg/unsupported, exif/malformed
# and BigTIFF may do either, but when they fail the message must name the offset too. Every
# --json output must parse. Usage: Tests/cli/inspect-corpus.sh PATH/TO/pare [CORPUS]
set -u
pare=${1:?usage: $0 PATH/TO/pare [CORPUS]}
here=$(cd "$(dirname "$0")/../.." && pwd)
corpus=${2:-$here/../shared/corpus}
passed=0
failed=0
fail() { failed=$((failed + 1)); echo "FAIL $1: $2"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect: 0 (valid), 1 (malformed) or either
check() {
    local file=$1 expect=$2 status json_status
    "$pare" inspect "$file" >"$tmp/out" 2>"$tmp/err"
    status=$?
    "$pare" inspect "$file" --json >"$tmp/json" 2>"$tmp/jerr"
    json_status=$?
    if ! python3 -m json.tool "$tmp/json" >/dev/null 2>&1; then fail "$file" "--json output does not parse"; return; fi
    if [ "$status" != "$json_status" ]; then fail "$file" "exit $status, with --json $json_status"; return; fi
    case "$status" in
    0)  if [ "$expect" = 1 ]; then fail "$file" "exit 0, expected 1"; return; fi
        if [ -s "$tmp/err" ]; then fail "$file" "exit 0 with stderr: $(head -c 200 "$tmp/err")"; return; fi ;;
    1)  if [ "$expect" = 0 ]; then fail "$file" "exit 1, expected 0: $(head -c 200 "$tmp/err")"; return; fi
        if [ "$(wc -l <"$tmp/err")" != 1 ] || ! grep -q "^pare: .*byte [0-9]" "$tmp/err"; then
            fail "$file" "stderr is not one line with an offset: $(head -c 200 "$tmp/err")"; return
        fi ;;
    *)  fail "$file" "exit status $status"; return ;;
    esac
    passed=$((passed + 1))
}

if [ -d "$corpus" ]; then
    while IFS=$'\t' read -r path expect; do
        check "$corpus/$path" "$expect"
    done < <(python3 - "$corpus" <<'PY'
import json, sys, os
root = sys.argv[1]
for item in json.load(open(os.path.join(root, "index.json")))["files"]:
    path, category, expect = item["path"], item["category"], item["expect"]
    name = os.path.basename(path)
    if category == "png/malformed":
        verdict = "either" if expect.startswith("typed error, or decode") else "1"
    elif category == "png/pngsuite" and name.startswith("x"):
        verdict = "1"
    elif category in ("jpeg/malformed", "jpeg/unsupported", "exif/malformed") or "BigTIFF" in name:
        verdict = "either"
    else:
        verdict = "0"
    print(f"{path}\t{verdict}")
PY
)
else
    echo "corpus not found at $corpus: only Fixtures/ checked"
fi

while IFS= read -r file; do
    case "$file" in
    */regressions/*) check "$file" either ;;
    *) check "$file" 0 ;;
    esac
done < <(find "$here/Fixtures" -type f \( -iname '*.jpg' -o -iname '*.jpeg' -o -iname '*.png' -o -iname '*.tif' -o -iname '*.tiff' \) | sort)

echo "inspect: $passed passed, $failed failed"
[ "$failed" = 0 ]
