#!/usr/bin/env bash
# The photo grid's costs (issue 38), whole processes, alternating rounds, medians:
#   1. a placeholder (`pare placeholder encode`) of a 24 MP camera photo against its 256 px
#      thumbnail: from the photo's EXIF thumbnail, and, with the EXIF stripped, from a
#      DC-only decode (which reads every Huffman code, as the thumbnail's 1/8 decode does);
#   2. a 256×256 cover crop (centre, and attention) against `--size 256` of the same photo;
#   3. one screen of 60 cover cells opened at once (Benchmarks/ScrollSimulation `--screen`):
#      when the first and the last placeholder and thumbnail arrive, through a
#      ThumbnailPipeline and through a plain loop.
# The 24 MP photo is a corpus camera photo upscaled with grain (as compare.sh makes its
# inputs), given back that camera's EXIF; the screen's 60 photos are the corpus camera photos, copied under new names
# where there are fewer than 60.
#
#   Benchmarks/grid.sh               (a release build of this checkout)
#   PARE=/path/to/pare RUNS=21 Benchmarks/grid.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/pare-binary.sh
pare=$PARE
cameras=../shared/corpus/exif/cameras
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A 4:3 camera's photo at 5664×4248 (24 MP), with that camera's EXIF (its 160×120
# thumbnail included, which fits the picture's shape), and the same without EXIF.
camera=Panasonic_Lumix_DMC-LX7
convert "$cameras/$camera.jpg" -strip -resize '5664x4248!' -attenuate 0.3 +noise Gaussian "ppm:$work/24.ppm"
cjpeg -quality 90 -sample 2x2 -outfile "$work/24-plain.jpg" "$work/24.ppm"
rm "$work/24.ppm"
exiftool -q -TagsFromFile "$cameras/$camera.jpg" -exif:all -o "$work/24.jpg" "$work/24-plain.jpg"
mkdir "$work/screen"
i=0
while [ "$i" -lt 60 ]; do
    for photo in "$cameras"/*.jpg; do
        [ "$i" -lt 60 ] || break
        cp "$photo" "$work/screen/$(printf %02d "$i")-$(basename "$photo")"
        i=$((i + 1))
    done
done
python3 - "$pare" "$work" "${RUNS:-15}" <<'PY'
import os, statistics, subprocess, sys, time
pare, work, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
photo = os.path.join(work, "24.jpg")
plain = os.path.join(work, "24-plain.jpg")
out = os.path.join(work, "out.jpg")
def run(args):
    start = time.perf_counter()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start
cases = {
    "thumbnail --size 256": [pare, "thumbnail", photo, "--size", "256", "-o", out],
    "placeholder encode (ThumbHash), from the EXIF thumbnail": [pare, "placeholder", "encode", photo],
    "thumbnail --size 256, no EXIF": [pare, "thumbnail", plain, "--size", "256", "-o", out],
    "placeholder encode, no EXIF (DC-only decode)": [pare, "placeholder", "encode", plain],
    "--size 256x256 --fit cover": [pare, "thumbnail", photo, "--size", "256x256", "--fit", "cover", "-o", out],
    "--size 256x256 --fit cover --crop attention": [pare, "thumbnail", photo, "--size", "256x256", "--fit", "cover",
                                                    "--crop", "attention", "-o", out],
}
times = {name: [] for name in cases}
for _ in range(runs):
    for name, args in cases.items():
        times[name].append(run(args))
m = {name: statistics.median(v) * 1000 for name, v in times.items()}
base = m["thumbnail --size 256"]
goals = {"placeholder encode (ThumbHash), from the EXIF thumbnail": "≤ 0.4", "--size 256x256 --fit cover": "≤ 1.05"}
print(f"24 MP camera photo (5664×4248), medians of {runs}:")
print("| case | ms | / its thumbnail --size 256 | goal |")
print("|---|---|---|---|")
for name in cases:
    reference = m["thumbnail --size 256, no EXIF"] if "no EXIF" in name else base
    print(f"| {name} | {m[name]:.1f} | {m[name] / reference:.2f} | {goals.get(name, '')} |")
PY
driver_scratch=${DRIVER_SCRATCH:-.build/scroll-simulation}
swift build -c release --package-path Benchmarks/ScrollSimulation --scratch-path "$driver_scratch" >/dev/null
driver=$(swift build -c release --package-path Benchmarks/ScrollSimulation --scratch-path "$driver_scratch" --show-bin-path)/scroll-simulation
for round in 1 2 3; do
    "$driver" "$work/screen" --mode pipeline --screen --cells 60 --size 200
    "$driver" "$work/screen" --mode loop --screen --cells 60 --size 200
done
