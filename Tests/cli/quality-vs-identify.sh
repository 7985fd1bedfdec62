#!/usr/bin/env bash
# Compares the IJG quality estimate of `pare inspect --json` (summary.estimatedQuality, the
# figure `pare explain` shows) with ImageMagick's `identify -format %Q` on every JPEG of
# ../shared/corpus that both read. Passes when they are equal on every file, and the files
# compared are the 249 of the corpus as committed (EXPECTED, so that a corpus or identify
# that reads fewer files fails instead of passing on less); prints each file that differs.
# Fails when identify or the corpus is absent. Files identify cannot read are left out (it
# prints 92 for them all the same). Where the tables are too far from IJG's for an estimate, identify prints
# its default quality, 92, and pare none: those count as agreeing and are listed.
# Usage: Tests/cli/quality-vs-identify.sh PATH/TO/pare [CORPUS]
set -u
pare=${1:?usage: $0 PATH/TO/pare [CORPUS]}
here=$(cd "$(dirname "$0")/../.." && pwd)
corpus=${2:-$here/../shared/corpus}
expected=${EXPECTED:-249}
command -v identify >/dev/null 2>&1 || { echo "quality-vs-identify: FAIL: ImageMagick's identify is not installed (Debian: imagemagick)"; exit 1; }
[ -d "$corpus" ] || { echo "quality-vs-identify: FAIL: $corpus is absent"; exit 1; }
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
find "$corpus" -type f \( -name '*.jpg' -o -name '*.jpeg' -o -name '*.JPG' -o -name '*.mpo' \) \
    ! -path '*/ref/*' | sort | while read -r file; do
    # Only files identify reads without error count: on a failed read it still prints 92.
    magick=$(identify -format '%Q\n' "$file" 2>/dev/null) || magick=""
    magick=${magick%%$'\n'*}
    ours=$("$pare" inspect --json "$file" 2>/dev/null | python3 -c '
import json, sys
try:
    q = json.load(sys.stdin).get("summary", {}).get("estimatedQuality")
except Exception:
    q = None
print("" if q is None else q)')
    printf '%s\t%s\t%s\n' "$file" "$magick" "$ours"
done >"$tmp"
python3 - "$tmp" "$corpus" "$expected" <<'PY'
import sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1])]
compared = equal = 0
worst = 0
for path, magick, ours in rows:
    name = path[len(sys.argv[2]) + 1:]
    if not magick.isdigit():
        continue                     # identify could not read it
    compared += 1
    m = int(magick)
    if ours == "":
        # No estimate: the tables are not IJG-like. identify then prints its default, 92.
        if m == 92:
            equal += 1
            print("no estimate: %s (identify prints its default 92)" % name)
        else:
            print("differs: %s: identify %d, pare none" % (name, m))
            worst = max(worst, 100)
        continue
    o = int(ours)
    if o == m:
        equal += 1
    else:
        print("differs: %s: identify %d, pare %d" % (name, m, o))
        worst = max(worst, abs(o - m))
share = 100.0 * equal / compared if compared else 0
print("quality-vs-identify: %d JPEGs compared, %d equal (%.1f%%), largest difference %d" % (compared, equal, share, worst))
expected = int(sys.argv[3])
if compared != expected:
    print("quality-vs-identify: FAIL: %d files compared, expected %d" % (compared, expected))
sys.exit(0 if compared == expected and equal == compared else 1)
PY
