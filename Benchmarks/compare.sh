#!/usr/bin/env bash
# Pare against the C tools, side by side in one run (issue 10's table): full decode vs
# `djpeg -dct int`, 1/8 decode vs `djpeg -scale 1/8` (also with restart intervals), the
# 256 px thumbnail vs `djpeg -scale 1/8` and `vipsthumbnail -s 256`, a batch of five
# 24 MP files vs one `vipsthumbnail` invocation, PNG decode vs libpng (`pngtopnm`), and
# thumbnails (JPEG and PNG outputs) vs libvips 8.18 called in-process (`vips-*` rows).
#
#   Benchmarks/compare.sh                       # builds pare (release) first
#   PARE=/path/to/pare RUNS=7 Benchmarks/compare.sh
#   CALLGRIND=1 Benchmarks/compare.sh           # also callgrind instruction counts
#   CALLGRIND=only Benchmarks/compare.sh        # only the callgrind counts
#   WORK=/tmp/pare-compare Benchmarks/compare.sh  # reuse inputs made by an earlier run
#   ROWS='null|thumb1024' Benchmarks/compare.sh  # only the rows whose id matches
#   ROWS='^vips-' Benchmarks/compare.sh          # only the rows against libvips 8.18 in-process
#   BUILDS='portable haswell' Benchmarks/compare.sh  # each row for both builds, side by side
#
# Inputs are made in WORK (a new temporary folder unless given) from five corpus camera
# photos, upscaled with grain so that they compress like photos. Each row times Pare and
# its peer RUNS times, alternating run by run, and reports medians (min–max), Pare/peer
# (below 1 means Pare is faster), the peak RSS of one run of each and the issue's target.
# The table is printed and saved as WORK/table.md, callgrind counts as WORK/callgrind.md.
# Needs hyperfine, ImageMagick, cjpeg, exiftool, Python 3 with numpy; the peers (djpeg,
# vipsthumbnail, pngtopnm, and Benchmarks/libpng-pam.c when cc and libpng's headers are
# there) and valgrind are used when installed.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-7}
mode=${CALLGRIND:-0}
helper="python3 Benchmarks/compare.py"
cameras=../shared/corpus/exif/cameras
# Five cameras, landscape, orientation 1, baseline.
photos=(Panasonic_Lumix_DMC-LX7 Nikon_D70 HTC_One Kodak_DX4330 Canon_EOS_D60)
for p in "${photos[@]}"; do
    [ -f "$cameras/$p.jpg" ] || { echo "missing $cameras/$p.jpg" >&2; exit 1; }
done
for tool in hyperfine convert cjpeg exiftool python3; do
    command -v "$tool" >/dev/null || { echo "$tool is needed" >&2; exit 1; }
done

if [ -z "${PARE:-}" ]; then
    scratch=${SCRATCH:-/tmp/build-bench}
    swift build -c release --product pare --scratch-path "$scratch" >&2
    PARE="$scratch/release/pare"
fi
pare=$PARE
# BUILDS: the builds each timed row runs, "portable" ($PARE, no PARE_TARGET_CPU) and/or a CPU
# name given to PARE_TARGET_CPU (e.g. haswell), built into a scratch path of its own unless
# PARE_<CPU> (PARE_HASWELL) names a binary. Rows of the CPU builds get " [cpu]" in their label.
builds=${BUILDS:-portable}
declare -A build_bin
for b in $builds; do
    if [ "$b" = portable ]; then build_bin[$b]=$pare; continue; fi
    var=PARE_$(echo "$b" | tr '[:lower:]-' '[:upper:]_')
    if [ -n "${!var:-}" ]; then build_bin[$b]=${!var}; continue; fi
    cpu_scratch=${SCRATCH:-/tmp/build-bench}-$b
    PARE_TARGET_CPU=$b swift build -c release --product pare --scratch-path "$cpu_scratch" >&2
    build_bin[$b]=$cpu_scratch/release/pare
done
work=${WORK:-$(mktemp -d /tmp/pare-compare.XXXXXX)}
mkdir -p "$work/out"
in=$work/in
out=$work/out

# ---------------------------------------------------------------------------- inputs
grain() { # photo, size, output ppm
    convert "$cameras/$1.jpg" -strip -resize "$2!" -attenuate 0.3 +noise Gaussian "ppm:$3"
}
if [ ! -f "$in/done" ]; then
    mkdir -p "$in"
    echo "making inputs in $in" >&2
    grain "${photos[0]}" 4000x3000 "$in/12.ppm"
    cjpeg -quality 90 -sample 2x2 -outfile "$in/12-420.jpg" "$in/12.ppm"
    cjpeg -quality 90 -sample 1x1 -outfile "$in/12-444.jpg" "$in/12.ppm"
    cjpeg -quality 90 -sample 2x2 -restart 1 -outfile "$in/12-420-rst-row.jpg" "$in/12.ppm"
    cjpeg -quality 90 -sample 2x2 -restart 8B -outfile "$in/12-420-rst-8mcu.jpg" "$in/12.ppm"
    convert "$in/12.ppm" "PNG24:$in/12.png"
    convert "$in/12.ppm" -interlace PNG "PNG24:$in/12-adam7.png"
    rm "$in/12.ppm"
    for i in 0 1 2 3 4; do
        grain "${photos[$i]}" 6000x4000 "$in/24.ppm"
        cjpeg -quality 90 -sample 2x2 -outfile "$in/batch-$i.jpg" "$in/24.ppm"
        if [ "$i" = 0 ]; then
            cjpeg -quality 90 -sample 2x2 -restart 1 -outfile "$in/24-420-rst-row.jpg" "$in/24.ppm"
        fi
    done
    rm "$in/24.ppm"
    cp "$in/batch-0.jpg" "$in/24-420.jpg"
    # The camera's EXIF block (IFD0, Exif IFD, maker note, IFD1 thumbnail) on the same pixels.
    exiftool -q -TagsFromFile "$cameras/${photos[0]}.jpg" -exif:all -o "$in/24-420-exif.jpg" "$in/24-420.jpg"
    touch "$in/done"
fi
# Inputs of the second round (issue 19's rows), made when missing so that an older WORK
# gains them: a 12 MP progressive file (libjpeg's default script) from the same picture.
if [ ! -f "$in/12-prog.jpg" ]; then
    grain "${photos[0]}" 4000x3000 "$in/12.ppm"
    cjpeg -progressive -quality 90 -sample 2x2 -outfile "$in/12-prog.jpg" "$in/12.ppm"
    rm "$in/12.ppm"
fi
# Issue 36's rows: the same 12 MP picture as RGB TIFFs in 16-row strips, uncompressed, LZW
# and Deflate (ppm2tiff, libtiff-tools), made when missing.
if [ ! -f "$in/12-deflate.tif" ]; then
    grain "${photos[0]}" 4000x3000 "$in/12.ppm"
    for compression in none lzw zip; do
        name=$compression; [ "$compression" = zip ] && name=deflate
        ppm2tiff -c "$compression" -r 16 "$in/12.ppm" "$in/12-$name.tif"
    done
    rm "$in/12.ppm"
fi
# Issue 35's rows: the same 12 MP picture as lossy WebP (cwebp's default quality, 75) and
# lossless WebP, made when missing.
if [ ! -f "$in/12-lossless.webp" ] && command -v cwebp >/dev/null; then
    grain "${photos[0]}" 4000x3000 "$in/12.ppm"
    cwebp -quiet "$in/12.ppm" -o "$in/12-lossy.webp"
    cwebp -quiet -lossless "$in/12.ppm" -o "$in/12-lossless.webp"
    rm "$in/12.ppm"
fi
# libpng on its own, writing what pare decode writes (pngtopnm mostly measures Netpbm).
libpng_pam=
if command -v cc >/dev/null && pkg-config --exists libpng 2>/dev/null; then
    libpng_pam=$work/libpng-pam
    cc -O2 -o "$libpng_pam" Benchmarks/libpng-pam.c $(pkg-config --cflags --libs libpng)
fi
echo "inputs in $in; pare is $pare; builds: $(for b in $builds; do printf '%s=%s ' "$b" "${build_bin[$b]}"; done)"
echo "$runs runs per command; load: $(uptime | sed 's/.*load average/load average/')"
for f in "$in"/*.jpg; do
    printf '  %-20s %s, %s bytes\n' "$(basename "$f")" "$(identify -format '%wx%h sampling %[jpeg:sampling-factor]' "$f")" "$(stat -c %s "$f")"
done
for f in "$in"/*.png; do
    printf '  %-20s %s, %s bytes\n' "$(basename "$f")" "$(identify -format '%wx%h %[type] interlace %[interlace]' "$f")" "$(stat -c %s "$f")"
done

# ---------------------------------------------------------------------------- outputs
# Same pixels as the peer? Reported, not required: the table is about time.
same() { # label, pare output, peer output
    printf '  %-46s %s\n' "$1" "$($helper diff "$2" "$3")"
}
have() { command -v "$1" >/dev/null; }
if [ "$mode" != only ]; then
    echo "outputs against the peers:"
    if have djpeg; then
        for name in 12-420 12-444; do
            "$pare" decode "$in/$name.jpg" --scale 1 -o "$out/p.ppm"
            djpeg -dct int -pnm -outfile "$out/d.ppm" "$in/$name.jpg"
            same "$name full vs djpeg -dct int" "$out/p.ppm" "$out/d.ppm"
        done
        for name in 12-420 24-420 12-420-rst-row 12-420-rst-8mcu 24-420-rst-row; do
            "$pare" decode "$in/$name.jpg" --scale 1/8 -o "$out/p.ppm"
            djpeg -scale 1/8 -pnm -outfile "$out/d.ppm" "$in/$name.jpg"
            same "$name 1/8 vs djpeg -scale 1/8" "$out/p.ppm" "$out/d.ppm"
        done
    fi
    if have pngtopam; then
        for name in 12 12-adam7; do
            "$pare" decode "$in/$name.png" -o "$out/p.pam"
            pngtopam -alphapam "$in/$name.png" > "$out/l.pam"
            same "$name.png vs pngtopam -alphapam" "$out/p.pam" "$out/l.pam"
        done
    fi
    if [ -n "$libpng_pam" ]; then
        for name in 12 12-adam7; do
            "$pare" decode "$in/$name.png" -o "$out/p.pam"
            "$libpng_pam" "$in/$name.png" "$out/l.pam"
            same "$name.png vs libpng-pam" "$out/p.pam" "$out/l.pam"
        done
    fi
    "$pare" thumbnail "$in/24-420-exif.jpg" --size 256 -o "$out/exif.png" --json | sed 's/^/  with EXIF: /'
fi

# ---------------------------------------------------------------------------- timing
row() { # id, label, target ratio or "", RSS target (1/0), pare command, peer name, peer command
    # ROWS=REGEX times only the rows whose id matches (e.g. ROWS='null|thumb1024').
    if [ -n "${ROWS:-}" ] && ! [[ $1 =~ $ROWS ]]; then return; fi
    local tool=${7%% *}
    if ! have "$tool"; then
        $helper skip "$work" "$1" "$2" "$6" "$tool not installed"
        return
    fi
    local b id label
    for b in $builds; do
        id=$1 label=$2
        if [ "$b" != portable ]; then id="$1@$b" label="$2 [$b]"; fi
        $helper time "$work" "$id" "$label" "$3" "$4" "$runs" "${5//$pare/${build_bin[$b]}}" "$6" "$7"
    done
}
if [ "$mode" != only ]; then
    rm -f "$work/results.jsonl"
    d8="djpeg -scale 1/8"
    row full-12-420 "full decode 12 MP 4:2:0" 1.3 0 \
        "$pare decode $in/12-420.jpg --scale 1 -o $out/p.ppm" "djpeg -dct int" "djpeg -dct int -pnm -outfile $out/d.ppm $in/12-420.jpg"
    row full-12-444 "full decode 12 MP 4:4:4" "" 0 \
        "$pare decode $in/12-444.jpg --scale 1 -o $out/p.ppm" "djpeg -dct int" "djpeg -dct int -pnm -outfile $out/d.ppm $in/12-444.jpg"
    row e8-12-420 "1/8 decode 12 MP 4:2:0" 1.0 0 \
        "$pare decode $in/12-420.jpg --scale 1/8 -o $out/p.ppm" "$d8" "$d8 -pnm -outfile $out/d.ppm $in/12-420.jpg"
    row e8-24-420 "1/8 decode 24 MP 4:2:0" 1.0 0 \
        "$pare decode $in/24-420.jpg --scale 1/8 -o $out/p.ppm" "$d8" "$d8 -pnm -outfile $out/d.ppm $in/24-420.jpg"
    row e8-12-rst-row "1/8 decode 12 MP, RST every MCU row" 0.55 0 \
        "$pare decode $in/12-420-rst-row.jpg --scale 1/8 -o $out/p.ppm" "$d8" "$d8 -pnm -outfile $out/d.ppm $in/12-420-rst-row.jpg"
    row e8-12-rst-8mcu "1/8 decode 12 MP, RST every 8 MCUs" 0.55 0 \
        "$pare decode $in/12-420-rst-8mcu.jpg --scale 1/8 -o $out/p.ppm" "$d8" "$d8 -pnm -outfile $out/d.ppm $in/12-420-rst-8mcu.jpg"
    row e8-24-rst-row "1/8 decode 24 MP, RST every MCU row" 0.55 0 \
        "$pare decode $in/24-420-rst-row.jpg --scale 1/8 -o $out/p.ppm" "$d8" "$d8 -pnm -outfile $out/d.ppm $in/24-420-rst-row.jpg"
    row thumb-24-djpeg "thumbnail 24 MP → 256 (no EXIF)" 1.1 0 \
        "$pare thumbnail $in/24-420.jpg --size 256 -o $out/p.png" "$d8" "$d8 -pnm -outfile $out/d.ppm $in/24-420.jpg"
    row thumb-24-exif-djpeg "thumbnail 24 MP → 256 (camera EXIF)" 1.1 0 \
        "$pare thumbnail $in/24-420-exif.jpg --size 256 -o $out/p.png" "$d8" "$d8 -pnm -outfile $out/d.ppm $in/24-420-exif.jpg"
    row thumb-24-vips "thumbnail 24 MP → 256, one file" "" 0 \
        "$pare thumbnail $in/24-420.jpg --size 256 -o $out/p.png" "vipsthumbnail -s 256" "vipsthumbnail $in/24-420.jpg -s 256 -o $out/v.png"
    # Second round (issue 19): outputs to /dev/null (decodes) or a PPM (thumbnails), so that
    # writing a large file does not dilute the ratio.
    dn=/dev/null
    row full-12-420-null "full decode 12 MP 4:2:0 → /dev/null" 1.2 0 \
        "$pare decode $in/12-420.jpg --scale 1 -o $dn" "djpeg -dct int" "djpeg -dct int -outfile $dn $in/12-420.jpg"
    row full-24-420-null "full decode 24 MP 4:2:0 → /dev/null" 1.2 0 \
        "$pare decode $in/24-420.jpg --scale 1 -o $dn" "djpeg -dct int" "djpeg -dct int -outfile $dn $in/24-420.jpg"
    row full-12-prog-null "full decode 12 MP progressive → /dev/null" "" 0 \
        "$pare decode $in/12-prog.jpg --scale 1 -o $dn" "djpeg -dct int" "djpeg -dct int -outfile $dn $in/12-prog.jpg"
    if have dwebp && [ -f "$in/12-lossy.webp" ]; then
        row full-12-webp-null "full decode 12 MP lossy WebP → /dev/null (PAM)" 1.5 0 \
            "$pare decode $in/12-lossy.webp -o $dn" "dwebp -pam" "dwebp -quiet -pam $in/12-lossy.webp -o $dn"
        row full-12-webp-lossless-null "full decode 12 MP lossless WebP → /dev/null (PAM)" "" 0 \
            "$pare decode $in/12-lossless.webp -o $dn" "dwebp -pam" "dwebp -quiet -pam $in/12-lossless.webp -o $dn"
    fi
    row half-12-420-null "1/2 decode 12 MP 4:2:0 → /dev/null" 1.0 0 \
        "$pare decode $in/12-420.jpg --scale 1/2 -o $dn" "djpeg -scale 1/2" "djpeg -scale 1/2 -outfile $dn $in/12-420.jpg"
    row quarter-24-420-null "1/4 decode 24 MP 4:2:0 → /dev/null" 1.0 0 \
        "$pare decode $in/24-420.jpg --scale 1/4 -o $dn" "djpeg -scale 1/4" "djpeg -scale 1/4 -outfile $dn $in/24-420.jpg"
    row quarter-12-420-null "1/4 decode 12 MP 4:2:0 → /dev/null" 1.0 0 \
        "$pare decode $in/12-420.jpg --scale 1/4 -o $dn" "djpeg -scale 1/4" "djpeg -scale 1/4 -outfile $dn $in/12-420.jpg"
    row eighth-12-420-null "1/8 decode 12 MP 4:2:0 → /dev/null" 1.0 0 \
        "$pare decode $in/12-420.jpg --scale 1/8 -o $dn" "djpeg -scale 1/8" "djpeg -scale 1/8 -outfile $dn $in/12-420.jpg"
    for name in 12-420 12-444 24-420 12-prog; do
        target=0.6
        [ "$name" = 12-prog ] && target=0.8
        row "thumb1024-$name" "thumbnail $name → 1024 (PPM)" "$target" 0 \
            "$pare thumbnail $in/$name.jpg --size 1024 -o $out/p1024.ppm" "vipsthumbnail -s 1024" \
            "vipsthumbnail $in/$name.jpg -s 1024 -o $out/v1024.ppm"
    done
    row thumb1024-png "thumbnail 12 MP PNG → 1024 (PPM)" 0.6 0 \
        "$pare thumbnail $in/12.png --size 1024 -o $out/p1024.ppm" "vipsthumbnail -s 1024" \
        "vipsthumbnail $in/12.png -s 1024 -o $out/v1024.ppm"
    # The corpus camera photos as they are (34 files, 70 to 3648 pixels across), one
    # invocation each side; vipsthumbnail only shrinks ("1024x1024>"), as Pare does.
    mkdir -p "$out/cam-pare" "$out/cam-vips"
    row thumb1024-cameras "thumbnail 34 corpus camera JPEGs → 1024 (PPM)" 0.6 0 \
        "$pare thumbnail $cameras --size 1024 --format ppm --out-dir $out/cam-pare" "vipsthumbnail -s 1024x1024>" \
        "vipsthumbnail -s 1024x1024> -o $out/cam-vips/%s.ppm $(printf '%s ' "$cameras"/*.jpg)"
    row thumb256-12-djpeg "thumbnail 12 MP → 256 (PPM)" 1.0 0 \
        "$pare thumbnail $in/12-420.jpg --size 256 -o $out/p256.ppm" "$d8" "$d8 -outfile $dn $in/12-420.jpg"
    row thumb256-24-djpeg "thumbnail 24 MP → 256 (PPM)" 1.0 0 \
        "$pare thumbnail $in/24-420.jpg --size 256 -o $out/p256.ppm" "$d8" "$d8 -outfile $dn $in/24-420.jpg"
    row thumb256-prog-djpeg "thumbnail 12 MP progressive → 256 (PPM)" 0.8 0 \
        "$pare thumbnail $in/12-prog.jpg --size 256 -o $out/p256.ppm" "$d8" "$d8 -outfile $dn $in/12-prog.jpg"
    batch=$(printf "$in/batch-%d.jpg " 0 1 2 3 4)
    mkdir -p "$out/batch-pare" "$out/batch-vips"
    row batch-24-vips "batch of five 24 MP → 256" 0.7 1 \
        "$pare thumbnail $batch--size 256 --out-dir $out/batch-pare" "vipsthumbnail -s 256" "vipsthumbnail -s 256 -o $out/batch-vips/%s.png $batch"
    # pngtopnm writes to standard output, which hyperfine sends to /dev/null; pare writes there too.
    row png-12 "PNG decode 12 MP RGB" 1.2 0 \
        "$pare decode $in/12.png -o /dev/null" "pngtopnm" "pngtopnm $in/12.png"
    row png-12-adam7 "PNG decode 12 MP RGB, Adam7" "" 0 \
        "$pare decode $in/12-adam7.png -o /dev/null" "pngtopnm" "pngtopnm $in/12-adam7.png"
    if [ -n "$libpng_pam" ]; then
        row png-12-libpng "PNG decode 12 MP RGB" 1.2 0 \
            "$pare decode $in/12.png -o /dev/null" "libpng-pam" "$libpng_pam $in/12.png /dev/null"
        row png-12-adam7-libpng "PNG decode 12 MP RGB, Adam7" "" 0 \
            "$pare decode $in/12-adam7.png -o /dev/null" "libpng-pam" "$libpng_pam $in/12-adam7.png /dev/null"
    else
        $helper skip "$work" png-12-libpng "PNG decode 12 MP RGB" "libpng-pam" "no cc or libpng headers"
    fi
    # Third round (issue 37): libvips 8.18 called in-process as a server calls it (PyPI
    # pyvips + pyvips-binary; see compare.py time-vips), Pare as a whole process, so that its
    # start-up counts against it. JPEG outputs at quality 85 on both sides.
    vrow() { # id, label, target, bytes target (1/0), pare command, pare output, input, size, vips output
        if [ -n "${ROWS:-}" ] && ! [[ $1 =~ $ROWS ]]; then return; fi
        if ! python3 -c 'import pyvips' 2>/dev/null; then
            $helper skip "$work" "$1" "$2" "libvips 8.18 in-process" "pyvips not installed"
            return
        fi
        $helper time-vips "$work" "$1" "$2" "$3" "$4" "$runs" "$5" "$6" "$7" "$8" "$9"
    }
    for name in 12-420 24-420 12-prog 24-420-exif; do
        for size in 256 1024; do
            vrow "vips-$name-$size" "thumbnail $name → $size (JPEG)" 0.8 0 \
                "$pare thumbnail $in/$name.jpg --size $size -o $out/p.jpg" "$out/p.jpg" "$in/$name.jpg" "$size" "$out/v.jpg"
        done
    done
    vrow vips-camera8-1024 "thumbnail 8 MP camera JPEG (Apple iPhone 5) → 1024 (JPEG)" 0.8 0 \
        "$pare thumbnail $cameras/Apple_iPhone_5.jpg --size 1024 -o $out/p.jpg" "$out/p.jpg" \
        "$cameras/Apple_iPhone_5.jpg" 1024 "$out/v.jpg"
    for size in 256 1024; do
        vrow "vips-png-$size" "thumbnail 12 MP PNG → $size (JPEG)" 0.8 0 \
            "$pare thumbnail $in/12.png --size $size -o $out/p.jpg" "$out/p.jpg" "$in/12.png" "$size" "$out/v.jpg"
    done
    for compression in none lzw deflate; do
        vrow "vips-tiff-$compression-256" "thumbnail 12 MP RGB TIFF, $compression → 256 (JPEG)" 1.0 0 \
            "$pare thumbnail $in/12-$compression.tif --size 256 -o $out/p.jpg" "$out/p.jpg" "$in/12-$compression.tif" \
            256 "$out/v.jpg"
    done
    if [ -f "$in/12-lossy.webp" ]; then
        for kind in lossy lossless; do
            target=1.0; [ "$kind" = lossless ] && target=1.2
            vrow "vips-webp-$kind-256" "thumbnail 12 MP $kind WebP → 256 (JPEG)" "$target" 0 \
                "$pare thumbnail $in/12-$kind.webp --size 256 -o $out/p.jpg" "$out/p.jpg" "$in/12-$kind.webp" 256 "$out/v.jpg"
        done
    fi
    for compression in default fast small; do
        target="" bytes=0
        [ "$compression" = default ] && target=1.0 bytes=1
        vrow "vips-24-1024-png-$compression" "thumbnail 24-420 → 1024 written as PNG, --png-compression $compression" \
            "$target" "$bytes" "$pare thumbnail $in/24-420.jpg --size 1024 --png-compression $compression -o $out/p.png" \
            "$out/p.png" "$in/24-420.jpg" 1024 "$out/v.png"
        vrow "vips-png-1024-png-$compression" "thumbnail 12 MP PNG → 1024 written as PNG, --png-compression $compression" \
            "$target" "$bytes" "$pare thumbnail $in/12.png --size 1024 --png-compression $compression -o $out/p.png" \
            "$out/p.png" "$in/12.png" 1024 "$out/v.png"
    done
    echo
    $helper table "$work"
    echo "(table saved as $work/table.md)"
fi

# ---------------------------------------------------------------------------- callgrind
if [ "$mode" != 0 ]; then
    have valgrind || { echo "valgrind not installed: no instruction counts" >&2; exit 0; }
    rm -f "$work/callgrind.md" "$work/callgrind-totals.tsv"
    count() { # id, label, command...
        local id=$1 label=$2
        shift 2
        valgrind --tool=callgrind --callgrind-out-file="$work/callgrind-$id.out" "$@" 2>/dev/null
        $helper callgrind "$work" "$id" "$label" "$work/callgrind-$id.out"
    }
    # valgrind 3.19 dies (internal SIGSEGV) on any Swift program that runs a task group on
    # libdispatch's worker threads, as `pare thumbnail` does; the thumbnail is counted through
    # Benchmarks/ThumbnailDriver, the same library calls on the main thread, built from this
    # checkout (not from $PARE).
    driver_scratch=${DRIVER_SCRATCH:-/tmp/build-bench-driver}
    swift build -c release --package-path Benchmarks/ThumbnailDriver --scratch-path "$driver_scratch" >&2
    driver=$driver_scratch/release/thumbnail-driver
    "$driver" "$in/24-420.jpg" 256 "$out/driver.png"
    "$pare" thumbnail "$in/24-420.jpg" --size 256 -o "$out/p.png"
    cmp -s "$out/driver.png" "$out/p.png" && echo "thumbnail-driver output: same bytes as pare thumbnail" \
        || echo "thumbnail-driver output differs from pare thumbnail's (a different checkout?)"
    echo
    count full-12-420 "pare decode 12 MP 4:2:0 --scale 1" "$pare" decode "$in/12-420.jpg" --scale 1 -o "$out/p.ppm"
    count e8-12-420 "pare decode 12 MP 4:2:0 --scale 1/8" "$pare" decode "$in/12-420.jpg" --scale 1/8 -o "$out/p.ppm"
    count half-12-420 "pare decode 12 MP 4:2:0 --scale 1/2" "$pare" decode "$in/12-420.jpg" --scale 1/2 -o /dev/null
    count thumb1024-12 "thumbnail 12 MP 4:2:0 → 1024 (thumbnail-driver)" "$driver" "$in/12-420.jpg" 1024 "$out/driver1024.png"
    count thumb-24 "thumbnail 24 MP 4:2:0 → 256 (thumbnail-driver)" "$driver" "$in/24-420.jpg" 256 "$out/driver.png"
    count png-12 "pare decode 12 MP PNG" "$pare" decode "$in/12.png" -o /dev/null
    # The peers' totals for the same work, for a ratio of instructions.
    peer_count() { # id, peer name, command...
        local id=$1 name=$2
        shift 2
        have "$1" || return 0
        valgrind --tool=callgrind --callgrind-out-file="$work/callgrind-$id-peer.out" "$@" >/dev/null 2>&1
        $helper callgrind-peer "$work" "$id" "$name" "$work/callgrind-$id-peer.out"
    }
    peer_count full-12-420 "djpeg -dct int" djpeg -dct int -pnm -outfile "$out/d.ppm" "$in/12-420.jpg"
    peer_count e8-12-420 "djpeg -scale 1/8" djpeg -scale 1/8 -pnm -outfile "$out/d.ppm" "$in/12-420.jpg"
    peer_count half-12-420 "djpeg -scale 1/2" djpeg -scale 1/2 -outfile /dev/null "$in/12-420.jpg"
    peer_count thumb1024-12 "vipsthumbnail -s 1024" vipsthumbnail "$in/12-420.jpg" -s 1024 -o "$out/v1024.png"
    peer_count thumb-24 "djpeg -scale 1/8" djpeg -scale 1/8 -pnm -outfile "$out/d.ppm" "$in/24-420.jpg"
    if [ -n "$libpng_pam" ]; then
        peer_count png-12 "libpng-pam" "$libpng_pam" "$in/12.png" /dev/null
    else
        peer_count png-12 "pngtopnm" pngtopnm "$in/12.png"
    fi
    $helper callgrind-summary "$work"
    echo "(callgrind counts saved as $work/callgrind.md)"
fi
