#!/usr/bin/env bash
# What converting a CMYK JPEG through its profile costs a thumbnail: a 24 MP (6000×4000)
# CMYK JPEG made by Fixtures/icc/make-cmyk-fixtures.py --big (a corpus photo upscaled by
# Pillow, converted to CMYK by LittleCMS through ghostscript's default_cmyk.icc, quality 90)
# with the profile embedded, and the same file without it (the naive conversion), each made
# into a 256-pixel thumbnail. Both are timed in one run, alternating, RUNS times each
# (default 11); the medians and their ratio tagged / untagged are printed, and with valgrind
# installed the callgrind instruction counts too (exact, whatever else the machine runs).
#
#   Benchmarks/cmyk-cost.sh            # builds pare (release) first
#   PARE=/path/to/pare RUNS=15 Benchmarks/cmyk-cost.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/pare-binary.sh
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
runs=${RUNS:-11}
[ -f "$work/big-tagged.jpg" ] || /usr/bin/python3 Fixtures/icc/make-cmyk-fixtures.py "$work" --big > /dev/null
if command -v valgrind > /dev/null; then
    count() { # file; prints the instructions of one thumbnail
        valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$PARE" thumbnail "$1" --size 256 \
            -o "$work/c.jpg" 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
    }
    tagged=$(count "$work/big-tagged.jpg")
    untagged=$(count "$work/big-untagged.jpg")
    python3 -c "print('callgrind: untagged %d, tagged %d instructions; tagged / untagged %.4f' % ($untagged, $tagged, $tagged / $untagged))"
fi
python3 - "$PARE" "$work" "$runs" <<'PY'
import statistics, subprocess, sys, time
pare, work, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
times = {"untagged": [], "tagged": []}
for _ in range(runs + 1):  # the first round warms the caches and is not counted
    for name in times:
        start = time.perf_counter()
        subprocess.run([pare, "thumbnail", f"{work}/big-{name}.jpg", "--size", "256", "-o", f"{work}/o.jpg"], check=True)
        times[name].append(time.perf_counter() - start)
u, t = (statistics.median(times[n][1:]) * 1000 for n in ("untagged", "tagged"))
print(f"{runs} runs each, medians: untagged {u:.1f} ms, tagged (through default_cmyk.icc) {t:.1f} ms; "
      f"tagged / untagged {t / u:.3f}")
PY
