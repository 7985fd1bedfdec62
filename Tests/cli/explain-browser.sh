#!/usr/bin/env bash
# Opens `pare explain` reports in headless Chromium and checks what a reader would see:
# the page raises no script or console error, every section its format promises is in the
# DOM Chromium dumps, every embedded picture decodes (the page's own script writes each
# img's state into a #selfcheck element), and the full-height screenshot is not blank
# (its pixels vary; the PNG is read back with `pare decode`). Inputs: the sample, a
# progressive fixture, a truncated progressive fixture and an EXIF file with MPF from
# Fixtures/, and from ../shared/corpus (skipped with a message when absent) an Adam7 PNG, a
# CMYK JPEG, a truncated baseline photo and a camera file with an MPF preview; a missing
# corpus file fails the run (the corpus ones only when the corpus folder is there at all).
# Screenshots of the sample's and the progressive file's reports stay in OUT.
# Usage: Tests/cli/explain-browser.sh PATH/TO/pare [OUT]  (OUT defaults to .build/explain)
set -u
pare=${1:?usage: $0 PATH/TO/pare [OUT]}
here=$(cd "$(dirname "$0")/../.." && pwd)
out=${2:-$here/.build/explain}
corpus=$here/../shared/corpus
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! command -v chromium >/dev/null 2>&1; then
    echo "explain-browser: installing chromium"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=600 chromium >/dev/null
fi
command -v chromium >/dev/null 2>&1 || { echo "explain-browser: chromium is not available"; exit 1; }

# A fresh profile per run: Chromium keeps the last window size in its profile.
browser() {
    rm -rf "$tmp/profile"
    timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
        --allow-file-access-from-files --hide-scrollbars --user-data-dir="$tmp/profile" "$@"
}

failures=0
checked=0
fail() { echo "explain-browser: FAIL $1: $2"; failures=$((failures + 1)); }

# NAME FILE SECTIONS [SCREENSHOT]
check() {
    local name=$1 file=$2 sections=$3 keep=${4:-}
    if [ ! -f "$file" ]; then
        case "$file" in
            "$corpus"/*) [ -d "$corpus" ] || { echo "explain-browser: skipped $name: the corpus is absent"; return; } ;;
        esac
        fail "$name" "$file is absent"
        return
    fi
    local report="$out/$name.html"
    local t0=$(date +%s%N)
    if ! "$pare" explain "$file" -o "$report" 2>"$tmp/$name.err"; then
        fail "$name" "pare explain exited $?: $(head -c 300 "$tmp/$name.err")"
        return
    fi
    local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    browser --window-size=1280,800 --enable-logging=stderr --v=0 --virtual-time-budget=15000 --dump-dom "file://$report" \
        >"$tmp/$name.dom" 2>"$tmp/$name.log"
    # The page writes nothing to the console: any console message (Chromium logs them as
    # ":CONSOLE:" lines, uncaught exceptions included) is a failure.
    if grep -qE ':CONSOLE[:(]|Uncaught' "$tmp/$name.log"; then
        fail "$name" "console message: $(grep -E ':CONSOLE[:(]|Uncaught' "$tmp/$name.log" | head -3)"
    fi
    local check
    check=$(python3 - "$tmp/$name.dom" "$sections" <<'PY'
import re, sys
dom = open(sys.argv[1], encoding="utf-8", errors="replace").read()
problems = []
for section in sys.argv[2].split():
    if not re.search(r'<section id="%s"' % re.escape(section), dom):
        problems.append("section %s missing" % section)
m = re.search(r'<div id="selfcheck"[^>]*>', dom)
if not m:
    problems.append("no #selfcheck: the page script did not run to its end")
else:
    tag = m.group(0)
    get = lambda k: re.search(r'%s="([^"]*)"' % k, tag).group(1)
    if get("data-errors") != "0": problems.append("%s script errors" % get("data-errors"))
    if get("data-broken-images") != "0": problems.append("%s of %s images do not decode" % (get("data-broken-images"), get("data-images")))
    pictured = {"stages", "chunks"} & set(sys.argv[2].split())
    if pictured and get("data-images") == "0": problems.append("no images")
    print("HEIGHT", get("data-height"))
print("IMAGES", m and re.search(r'data-images="(\d+)"', m.group(0)).group(1))
for p in problems: print("PROBLEM", p)
PY
)
    if grep -q '^PROBLEM' <<<"$check"; then
        fail "$name" "$(grep '^PROBLEM' <<<"$check" | cut -c9- | tr '\n' ';')"
    fi
    local height
    height=$(awk '/^HEIGHT/ {print $2}' <<<"$check")
    case "$height" in ''|*[!0-9]*) height=4000 ;; esac
    [ "$height" -gt 16000 ] && height=16000
    local shot="$tmp/$name.png"
    [ -n "$keep" ] && shot="$out/$name.png"
    # A screenshot left by an earlier run must not stand in for one Chromium failed to take.
    rm -f "$shot"
    browser --window-size=1280,"$height" --virtual-time-budget=15000 --screenshot="$shot" "file://$report" \
        >/dev/null 2>&1
    if ! "$pare" decode "$shot" -o "$tmp/$name.pam" 2>/dev/null; then
        fail "$name" "no screenshot"
    else
        local spread
        spread=$(python3 - "$tmp/$name.pam" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
end = data.index(b"ENDHDR\n") + 7
pixels = data[end:]
sample = pixels[::97]
mean = sum(sample) / len(sample)
print(int((sum((v - mean) ** 2 for v in sample) / len(sample)) ** 0.5))
PY
)
        [ "${spread:-0}" -ge 8 ] || fail "$name" "screenshot is blank (sample spread $spread)"
    fi
    checked=$((checked + 1))
    echo "explain-browser: ok $name: $(wc -c <"$report") bytes in $ms ms, $(awk '/^IMAGES/ {print $2}' <<<"$check") images, screenshot ${height}px high"
}

jpeg="bytes frame quantization huffman scans stages blocks"
check sample "$here/Fixtures/sample.jpg" "$jpeg" keep
check progressive "$here/Fixtures/progressive/px-q95-photo.jpg" "$jpeg" keep
check truncated "$here/Fixtures/progressive/px-cut-in-ac-420.jpg" "$jpeg error"
check exif-mpf "$here/Fixtures/exif/fx-mpf.jpg" "$jpeg metadata"
check adam7 "$corpus/png/pngsuite/basi2c08.png" "bytes chunks"
check adam7-palette "$corpus/png/pngsuite/basi3p08.png" "bytes chunks"
check cmyk "$corpus/jpeg/conformance/jdmoz-jpg-cmyk-1.jpg" "$jpeg"
check ycck "$corpus/jpeg/conformance/jd-ycck.jpg" "$jpeg"
check camera-mpf "$corpus/exif/cameras/Panasonic_Lumix_DMC-LX7.jpg" "$jpeg metadata"
check truncated-photo "$corpus/jpeg/malformed/made-truncated50-kodak-dc240.jpg" "$jpeg error"
check tiff "$here/Fixtures/tiff/gray8-deflate-tiles.tif" "bytes metadata image"
check not-an-image "$here/Fixtures/README.md" "bytes error"
check broken-header "$corpus/jpeg/malformed/pil-truncated_app14.jpg" "bytes error"

echo "explain-browser: $checked reports checked, $failures failures; screenshots in $out"
[ "$failures" -eq 0 ]
