#!/usr/bin/env bash
# Runs `pare inspect` (human and --json) over every file of ../shared/corpus and Fixtures/.
# Valid files must exit 0; malformed ones (png/malformed, PngSuite x*.png) must exit 1 with
# one stderr line naming the byte offset; jpeg/malformed, jpeg/unsupported, exif/malformed
# and BigTIFF may do either, but when they fail the message must name the offset too. Every
# --json output must parse. Files are checked JOBS at a time (default 2) and the JSON is
# parsed by one python3 at the end, which keeps the run short on a small machine.
# Usage: Tests/cli/inspect-corpus.sh PATH/TO/pare [CORPUS]
set -u
pare=${1:?usage: $0 PATH/TO/pare [CORPUS]}
here=$(cd "$(dirname "$0")/../.." && pwd)
corpus=${2:-$here/../shared/corpus}
jobs=${JOBS:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export pare tmp

# One line "N<TAB>FILE<TAB>EXPECT" (expect: 0 valid, 1 malformed, or either): runs both
# forms, keeps the JSON as $tmp/N.json and writes the verdict ("ok" or why not) to
# $tmp/N.verdict.
check() {
    local n file expect status json_status verdict=ok
    IFS=$'\t' read -r n file expect <<<"$1"
    "$pare" inspect "$file" >/dev/null 2>"$tmp/$n.err"
    status=$?
    "$pare" inspect "$file" --json >"$tmp/$n.json" 2>/dev/null
    json_status=$?
    if [ "$status" != "$json_status" ]; then
        verdict="exit $status, with --json $json_status"
    else
        case "$status" in
        0)  if [ "$expect" = 1 ]; then verdict="exit 0, expected 1"
            elif [ -s "$tmp/$n.err" ]; then verdict="exit 0 with stderr: $(head -c 200 "$tmp/$n.err")"
            fi ;;
        1)  if [ "$expect" = 0 ]; then verdict="exit 1, expected 0: $(head -c 200 "$tmp/$n.err")"
            elif [ "$(wc -l <"$tmp/$n.err")" != 1 ] || ! grep -q "^pare: .*byte [0-9]" "$tmp/$n.err"; then
                verdict="stderr is not one line with an offset: $(head -c 200 "$tmp/$n.err")"
            fi ;;
        *)  verdict="exit status $status" ;;
        esac
    fi
    printf '%s\n' "$verdict" | tr '\n' ' ' >"$tmp/$n.verdict"
}
export -f check

{
    if [ -d "$corpus" ]; then
        python3 - "$corpus" <<'PY'
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
    print(f"{os.path.join(root, path)}\t{verdict}")
PY
    else
        echo "corpus not found at $corpus: only Fixtures/ checked" >&2
    fi
    find "$here/Fixtures" -type f \( -iname '*.jpg' -o -iname '*.jpeg' -o -iname '*.png' -o -iname '*.tif' -o -iname '*.tiff' \) |
        sort | while IFS= read -r file; do
            case "$file" in
            */regressions/*) printf '%s\teither\n' "$file" ;;
            *) printf '%s\t0\n' "$file" ;;
            esac
        done
} | awk '{ print NR "\t" $0 }' >"$tmp/list"

xargs -d '\n' -n 1 -P "$jobs" bash -c 'check "$1"' _ <"$tmp/list"

python3 - "$tmp" <<'PY'
import json, os, sys
tmp = sys.argv[1]
passed = failed = 0
for line in open(os.path.join(tmp, "list"), encoding="utf-8"):
    n, path, _ = line.rstrip("\n").split("\t")
    try:
        verdict = open(os.path.join(tmp, n + ".verdict"), encoding="utf-8").read().strip()
    except OSError:
        verdict = "not checked"
    if verdict == "ok":
        try:
            json.load(open(os.path.join(tmp, n + ".json"), encoding="utf-8"))
        except ValueError:
            verdict = "--json output does not parse"
    if verdict == "ok":
        passed += 1
    else:
        failed += 1
        print(f"FAIL {path}: {verdict}")
print(f"inspect: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
