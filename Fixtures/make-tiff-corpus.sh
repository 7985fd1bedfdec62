#!/usr/bin/env bash
# Recreates the TIFF corpus (.build/made-corpus/tiff, or $MADE_CORPUS/tiff; never committed):
# every kind of file of Fixtures/make-tiff-fixtures.py made from three of the corpus's
# camera photos, 12-megapixel timing files, and tiff2rgba's pictures of the corpus's real
# TIFFs (exif/tiff). Tests over it are reported skipped when it is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS=${CORPUS:-../shared/corpus}
MADE_CORPUS=${MADE_CORPUS:-.build/made-corpus}
python3 Fixtures/make-tiff-fixtures.py "$MADE_CORPUS/tiff" --large \
    "$CORPUS/exif/cameras/Panasonic_Lumix_DMC-LX7.jpg" "$CORPUS/exif/cameras/Nikon_D70.jpg" \
    "$CORPUS/exif/cameras/Apple_iPhone_5.jpg" "$CORPUS"/exif/tiff/*.tif*
