#!/usr/bin/env bash
# What `--gain-map keep` costs: an Ultra HDR photo → 256 px (and 1024 px) with and without its
# gain map, whole processes, alternating rounds, medians. Inputs: the gain-map files that
# Fixtures/gainmap/make-gainmap-files.py makes from corpus photos (4000×2666 with a quarter-size
# map, 3264×2448 with a quarter-size map, 3008×2000 with a half-size one).
#
#   Benchmarks/gainmap-cost.sh [PARE]     (default: a release build of this checkout)
#   RUNS=21 Benchmarks/gainmap-cost.sh
set -euo pipefail
cd "$(dirname "$0")/.."
pare=${1:-}
if [ -z "$pare" ]; then
    swift build -c release --product pare >/dev/null
    pare="$(swift build -c release --show-bin-path)/pare"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 Fixtures/gainmap/make-gainmap-files.py "$work" ../shared/corpus >/dev/null
python3 - "$pare" "$work" "${RUNS:-15}" <<'PY'
import glob, os, statistics, subprocess, sys, time
pare, work, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
files = [f for f in sorted(glob.glob(os.path.join(work, "*-iso.jpg")))
         if any(k in f for k in ("Kodak", "Apple", "Nikon"))]
print("| file | size | drop ms | keep ms | keep / drop |")
print("|---|---|---|---|---|")
for path in files:
    for size in ("256", "1024"):
        times = {"drop": [], "keep": []}
        for _ in range(runs):
            for mode in ("drop", "keep"):
                start = time.perf_counter()
                subprocess.run([pare, "thumbnail", path, "--size", size, "--gain-map", mode,
                                "-o", os.path.join(work, "out.jpg")], check=True)
                times[mode].append(time.perf_counter() - start)
        drop, keep = statistics.median(times["drop"]) * 1000, statistics.median(times["keep"]) * 1000
        print(f"| {os.path.basename(path)} | {size} | {drop:.1f} | {keep:.1f} | {keep / drop:.2f} |")
PY
