#!/usr/bin/env bash
# pare exif --json against exiftool -j -n on a camera photo with MPF (release build).
# usage: bash Benchmarks/exif.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-.build}
swift build -c release --product pare --scratch-path "$build" >/dev/null
photo=../shared/corpus/exif/cameras/Panasonic_Lumix_DMC-LX7.jpg
hyperfine -N --warmup 3 --runs 30 \
    "$build/release/pare exif $photo --json" \
    "exiftool -j -n -G1 $photo"
