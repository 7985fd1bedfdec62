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
def run(args):
    """Wall and CPU (user + system) seconds of one whole process."""
    start = time.perf_counter()
    child = subprocess.Popen(args)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        sys.exit(f"{args}: exit {child.returncode}")
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime

print("| file | size | drop ms | keep ms | keep / drop | drop CPU ms | keep CPU ms | keep / drop (CPU) |")
print("|---|---|---|---|---|---|---|---|")
for path in files:
    for size in ("256", "1024"):
        wall = {"drop": [], "keep": []}
        cpu = {"drop": [], "keep": []}
        for _ in range(runs):
            for mode in ("drop", "keep"):
                w, c = run([pare, "thumbnail", path, "--size", size, "--gain-map", mode,
                            "-o", os.path.join(work, "out.jpg")])
                wall[mode].append(w)
                cpu[mode].append(c)
        m = {k: statistics.median(v) * 1000 for k, v in wall.items()}
        c = {k: statistics.median(v) * 1000 for k, v in cpu.items()}
        print(f"| {os.path.basename(path)} | {size} | {m['drop']:.1f} | {m['keep']:.1f} | {m['keep'] / m['drop']:.2f} "
              f"| {c['drop']:.1f} | {c['keep']:.1f} | {c['keep'] / c['drop']:.2f} |")
PY
