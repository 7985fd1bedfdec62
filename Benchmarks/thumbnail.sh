#!/usr/bin/env bash
# Thumbnail speed, side by side in one run: `pare thumbnail --size 256` against
# `vipsthumbnail -s 256` on ~12 MP and ~24 MP 4:2:0 JPEGs without EXIF thumbnails and on a
# ~12 MP PNG, and Pare's EXIF-thumbnail path against `--embedded never` on a camera JPEG.
# Inputs are made in a temporary folder from the shared corpus (ImageMagick and cjpeg).
# Needs: hyperfine, imagemagick, libjpeg-turbo-progs, libvips-tools. Prints medians and
# the ratio Pare / peer (below 1 means Pare is faster).
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=../shared/corpus
work=${WORK:-$(mktemp -d)}
runs=${RUNS:-7}

if [ -z "${PARE:-}" ]; then
    swift build -c release --product pare >/dev/null
    PARE=$(swift build -c release --show-bin-path)/pare
fi
pare=$PARE

photo=$corpus/exif/cameras/Apple_iPhone_5.jpg
if [ ! -f "$work/12mp.jpg" ]; then
    convert "$photo" -strip -resize 4000x3000! ppm:- | cjpeg -quality 90 -sample 2x2 > "$work/12mp.jpg"
    convert "$photo" -strip -resize 6000x4000! ppm:- | cjpeg -quality 90 -sample 2x2 > "$work/24mp.jpg"
    convert "$photo" -strip -resize 4000x3000! "$work/12mp.png"
fi

median() { # command... ; prints the median wall time in ms of $runs runs
    hyperfine --style none --warmup 1 --runs "$runs" --export-json "$work/h.json" "$@" >/dev/null 2>&1
    python3 -c "import json,statistics; r=json.load(open('$work/h.json'))['results'][0]; print('%.1f %.1f %.1f' % (statistics.median(r['times'])*1000, min(r['times'])*1000, max(r['times'])*1000))"
}

compare() { # label, pare command, peer command
    read -r pm pmin pmax < <(median "$2")
    read -r qm qmin qmax < <(median "$3")
    python3 -c "print('%-34s pare %7.1f ms (%.1f–%.1f)  peer %7.1f ms (%.1f–%.1f)  ratio %.2f' % ('$1', $pm, $pmin, $pmax, $qm, $qmin, $qmax, $pm/$qm))"
}

echo "inputs in $work; $runs runs each; median (min–max)"
compare "12 MP JPEG → 256 vs vipsthumbnail" "$pare thumbnail $work/12mp.jpg --size 256 -o $work/p.png" "vipsthumbnail $work/12mp.jpg -s 256 -o $work/v.png"
compare "24 MP JPEG → 256 vs vipsthumbnail" "$pare thumbnail $work/24mp.jpg --size 256 -o $work/p.png" "vipsthumbnail $work/24mp.jpg -s 256 -o $work/v.png"
compare "12 MP PNG → 256 vs vipsthumbnail" "$pare thumbnail $work/12mp.png --size 256 -o $work/p.png" "vipsthumbnail $work/12mp.png -s 256 -o $work/v.png"
compare "camera JPEG 160: EXIF thumb vs never" "$pare thumbnail $photo --size 160 -o $work/p.png" "$pare thumbnail $photo --size 160 --embedded never -o $work/p.png"
