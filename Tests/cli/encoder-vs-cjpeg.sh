#!/usr/bin/env bash
# Pare's JPEG encoder against libjpeg-turbo's cjpeg -dct int, from the same PPM/PGM input:
#   - standard tables, qualities 50 75 85 95 100, samplings 2x2 2x1 1x1 (gray: one
#     component): the whole file identical (so the entropy-coded data too);
#   - --optimize: identical to cjpeg -optimize (at least: the same decoded pixels, no larger);
#   - --progressive and --restart N / NB: identical to cjpeg's;
#   - qualities 1, 10 and 24 (16-bit tables), with and without --baseline: identical;
#   - every Pare output decodes with djpeg without a warning, and `pare decode` gives
#     djpeg's pixels.
# Inputs: odd sizes (1x1, 7x9, 17x33, 1023x1, colour and gray, made here), the corpus camera
# photos decoded to PPM, and any PPMs named in EXTRA_PPMS (e.g. the 12 and 24 MP photos of
# Benchmarks/compare.sh, decoded). QUICK=1 (what .ci/run uses) takes three small camera
# photos and progressive/restart at quality 75 only.
# Usage: Tests/cli/encoder-vs-cjpeg.sh PATH/TO/pare. Prints "N passed, M failed".
set -u
pare=${1:?usage: encoder-vs-cjpeg.sh PATH/TO/pare}
cd "$(dirname "$0")/../.."
for tool in cjpeg djpeg python3; do
    command -v "$tool" > /dev/null || { echo "encoder-vs-cjpeg: $tool is needed"; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }

# Inputs.
python3 - "$work" <<'PY'
import random, sys
random.seed(17)
for w, h in [(1, 1), (7, 9), (17, 33), (1023, 1)]:
    for gray in (False, True):
        data = bytearray()
        for y in range(h):
            for x in range(w):
                if gray:
                    data.append((x * 7 + y * 3 + random.randint(0, 40)) & 255)
                else:
                    data += bytes([(x * 5 + random.randint(0, 30)) & 255, (y * 3 + random.randint(0, 60)) & 255,
                                   ((x + y) * 2 + random.randint(0, 90)) & 255])
        name = "%s/odd-%dx%d.%s" % (sys.argv[1], w, h, "pgm" if gray else "ppm")
        open(name, "wb").write(b"%s\n%d %d\n255\n" % (b"P5" if gray else b"P6", w, h) + data)
PY
cameras=../shared/corpus/exif/cameras
if [ -d "$cameras" ]; then
    if [ "${QUICK:-0}" = 1 ]; then
        photos=(Canon_40D Pentax_K10D Sony_Cybershot_3)
    else
        photos=()
        for f in "$cameras"/*.jpg; do photos+=("$(basename "$f" .jpg)"); done
    fi
    for p in "${photos[@]}"; do
        djpeg -pnm -outfile "$work/cam-$p.ppm" "$cameras/$p.jpg" 2> /dev/null
    done
else
    echo "encoder-vs-cjpeg: $cameras is missing; only the odd sizes are checked"
fi
# (nullglob: without the corpus there are no cam-*.ppm, and the pattern must not stay as a name.)
shopt -s nullglob
inputs=("$work"/odd-*.p?m "$work"/cam-*.ppm ${EXTRA_PPMS:-})
shopt -u nullglob

# One encode by both; $1 input, $2 name, $3 pare options, $4 cjpeg options, $5 "exact" or "optimize".
compare() {
    local input=$1 name=$2 popts=$3 copts=$4 rule=$5
    local p="$work/p.jpg" c="$work/c.jpg"
    # shellcheck disable=SC2086
    if ! "$pare" convert "$input" -o "$p" $popts 2> "$work/pare.err"; then
        fail "$name: pare convert failed: $(head -1 "$work/pare.err")"
        return
    fi
    # shellcheck disable=SC2086
    cjpeg -dct int $copts -outfile "$c" "$input" 2> /dev/null
    if cmp -s "$p" "$c"; then
        passed=$((passed + 1))
    elif [ "$rule" = optimize ]; then
        djpeg -pnm -outfile "$work/dp.ppm" "$p" 2> /dev/null
        djpeg -pnm -outfile "$work/dc.ppm" "$c" 2> /dev/null
        if cmp -s "$work/dp.ppm" "$work/dc.ppm" && [ "$(stat -c %s "$p")" -le "$(stat -c %s "$c")" ]; then
            passed=$((passed + 1))
        else
            fail "$name: pixels or size differ from cjpeg -optimize ($(stat -c %s "$p") vs $(stat -c %s "$c") bytes)"
        fi
    else
        fail "$name: $(cmp "$p" "$c" | head -1) ($(stat -c %s "$p") vs $(stat -c %s "$c") bytes)"
    fi
    # The output decodes cleanly, and Pare's decoder agrees with djpeg on it.
    if ! djpeg -pnm -outfile "$work/d.ppm" "$p" 2> "$work/djpeg.err" || [ -s "$work/djpeg.err" ]; then
        fail "$name: djpeg: $(head -1 "$work/djpeg.err")"
    elif ! "$pare" decode "$p" -o "$work/pd.ppm" 2> /dev/null || ! cmp -s "$work/pd.ppm" "$work/d.ppm"; then
        fail "$name: pare decode differs from djpeg"
    else
        passed=$((passed + 1))
    fi
}

for input in "${inputs[@]}"; do
    base=$(basename "$input")
    if [[ $input == *.pgm ]]; then samplings=(gray); else samplings=(2x2 2x1 1x1); fi
    for q in 50 75 85 95 100; do
        for s in "${samplings[@]}"; do
            case $s in
                2x2) popt="--sampling 4:2:0"; copt="-sample 2x2" ;;
                2x1) popt="--sampling 4:2:2"; copt="-sample 2x1" ;;
                1x1) popt="--sampling 4:4:4"; copt="-sample 1x1" ;;
                gray) popt=""; copt="" ;;
            esac
            compare "$input" "$base q$q $s" "--quality $q $popt" "-quality $q $copt" exact
            compare "$input" "$base q$q $s optimize" "--quality $q $popt --optimize" "-quality $q $copt -optimize" optimize
            if [ "${QUICK:-0}" != 1 ] || [ "$q" = 75 ]; then
                compare "$input" "$base q$q $s progressive" "--quality $q $popt --progressive" \
                    "-quality $q $copt -progressive" exact
                compare "$input" "$base q$q $s restart 1" "--quality $q $popt --restart 1" \
                    "-quality $q $copt -restart 1" exact
                compare "$input" "$base q$q $s restart 5B optimize" "--quality $q $popt --restart 5B --optimize" \
                    "-quality $q $copt -restart 5B -optimize" optimize
            fi
        done
    done
done

# Quality under 25, where IJG's tables pass 255: 16-bit tables (SOF1) as cjpeg writes them,
# and with --baseline (cjpeg -baseline) the tables clamped to 8 bits.
for input in "${inputs[@]}"; do
    for q in 1 10 24; do
        compare "$input" "$(basename "$input") q$q" "--quality $q" "-quality $q" exact
        compare "$input" "$(basename "$input") q$q baseline" "--quality $q --baseline" "-quality $q -baseline" exact
    done
done

echo "encoder-vs-cjpeg: ${#inputs[@]} inputs, $passed passed, $failed failed"
[ "$failed" = 0 ]
