// The reference decoders of the differential fuzz targets: libjpeg-turbo and libpng behind
// plain functions, because their error handling longjmps and Swift cannot call setjmp.
// Linked into Fuzz/differential-*.swift only (reference-jpeg.c, reference-png.c), never into a SwiftPM product or the tests.
#ifndef PARE_FUZZ_REFERENCE_H
#define PARE_FUZZ_REFERENCE_H
#include <stddef.h>
#include <stdint.h>

// Decodes a JPEG as djpeg does by default (ISLOW IDCT, fancy upsampling, no block smoothing
// beyond libjpeg's default, scale 1/scale_denom): 8-bit gray for one component, RGB for
// three, and for four (CMYK/YCCK) RGB as djpeg -pnm writes it (R = round(C*K/255), ...).
// Returns 1 and a malloc'ed image in *out (free with free()) on success; 0 when libjpeg
// fails (error_exit), the image has more than max_pixels pixels at full size, or it has a
// component count other than 1, 3 or 4. *warnings is libjpeg's count of emit_message(-1)
// warnings (corrupt data it decoded past), also on failure; *data_warnings counts those of
// them that concern the image data, that is all but JWRN_EXTRANEOUS_DATA (stray bytes
// skipped before a marker) and JWRN_JFIF_MAJOR (an unknown JFIF version).
int reference_decode_jpeg(const uint8_t *data, size_t size, int scale_denom, long max_pixels,
                          uint8_t **out, int *width, int *height, int *components, int *warnings,
                          int *data_warnings);

// Decodes a PNG with libpng 1.6 into the layout of Pare's PNGOutput.native: palette expanded
// to RGB (RGBA with tRNS), gray below 8 bits scaled to 8 by replication, tRNS colour keys
// turned into an alpha channel, 16-bit samples kept big-endian, Adam7 deinterlaced. No gamma,
// background or sBIT transform. Returns 1 and a malloc'ed image in *out; 0 when libpng fails
// or the image has more than max_pixels pixels. *channels and *bit_depth (8 or 16) describe
// the samples; *warnings counts libpng warnings (benign errors included).
int reference_decode_png(const uint8_t *data, size_t size, long max_pixels,
                         uint8_t **out, int *width, int *height, int *channels, int *bit_depth, int *warnings);

#endif
