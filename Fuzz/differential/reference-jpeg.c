// libjpeg-turbo behind setjmp, for Fuzz/differential-jpeg.swift (see reference.h).
#include "reference.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

struct jpeg_failure {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    int data_warnings;
};

static void jpeg_fail(j_common_ptr cinfo) {
    longjmp(((struct jpeg_failure *)cinfo->err)->jump, 1);
}

// Counts warnings as libjpeg's own emit_message does (num_warnings), and apart those about
// the image data; prints nothing, so that a fuzzing log holds only findings. Trace messages
// (level >= 0) are dropped.
static void jpeg_count(j_common_ptr cinfo, int level) {
    struct jpeg_failure *failure = (struct jpeg_failure *)cinfo->err;
    if (level >= 0) return;
    failure->manager.num_warnings++;
    int code = failure->manager.msg_code;
    if (code != JWRN_EXTRANEOUS_DATA && code != JWRN_JFIF_MAJOR) failure->data_warnings++;
}

int reference_decode_jpeg(const uint8_t *data, size_t size, int scale_denom, long max_pixels,
                          uint8_t **out, int *width, int *height, int *components, int *warnings,
                          int *data_warnings) {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_failure failure;
    // volatile: assigned between setjmp and a longjmp back to it.
    uint8_t *volatile image = NULL;
    volatile int complete = 0;
    *out = NULL;
    *warnings = 0;
    *data_warnings = 0;
    cinfo.err = jpeg_std_error(&failure.manager);
    failure.manager.error_exit = jpeg_fail;
    failure.manager.emit_message = jpeg_count;
    failure.data_warnings = 0;
    if (setjmp(failure.jump)) {
        *warnings = (int)failure.manager.num_warnings;
        *data_warnings = failure.data_warnings;
        jpeg_destroy_decompress(&cinfo);
        if (complete) {
            // The whole image came out and only jpeg_finish_decompress failed (on what
            // follows the last scan): djpeg has written its output by then, so it counts.
            *out = image;
            return 1;
        }
        free(image);
        return 0;
    }
    jpeg_create_decompress(&cinfo);
    cinfo.mem->max_memory_to_use = 256L << 20;
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    if (jpeg_read_header(&cinfo, TRUE) != JPEG_HEADER_OK) longjmp(failure.jump, 1);
    if ((long)cinfo.image_width * (long)cinfo.image_height > max_pixels) longjmp(failure.jump, 1);
    // djpeg's defaults, spelled out: integer IDCT, fancy upsampling, 1/N scaling.
    cinfo.dct_method = JDCT_ISLOW;
    cinfo.do_fancy_upsampling = TRUE;
    cinfo.scale_num = 1;
    cinfo.scale_denom = (unsigned int)scale_denom;
    switch (cinfo.num_components) {
    case 1: cinfo.out_color_space = JCS_GRAYSCALE; break;
    case 3: cinfo.out_color_space = JCS_RGB; break;
    case 4:
        // djpeg -pnm converts only CMYK output (from CMYK or YCCK files); an Adobe-less
        // 4-component file is JCS_UNKNOWN, which djpeg refuses too.
        if (cinfo.jpeg_color_space != JCS_CMYK && cinfo.jpeg_color_space != JCS_YCCK) longjmp(failure.jump, 1);
        cinfo.out_color_space = JCS_CMYK;
        break;
    default: longjmp(failure.jump, 1);
    }
    jpeg_start_decompress(&cinfo);
    int w = (int)cinfo.output_width, h = (int)cinfo.output_height, n = cinfo.output_components;
    int channels = n == 4 ? 3 : n;
    image = malloc((size_t)w * (size_t)h * (size_t)channels + 1);
    JSAMPLE *row = malloc((size_t)w * (size_t)n + 1);
    if (!image || !row) { free(row); longjmp(failure.jump, 1); }
    while (cinfo.output_scanline < cinfo.output_height) {
        int y = (int)cinfo.output_scanline;
        JSAMPROW rows[1] = {row};
        if (jpeg_read_scanlines(&cinfo, rows, 1) != 1) { free(row); longjmp(failure.jump, 1); }
        uint8_t *target = image + (size_t)y * (size_t)w * (size_t)channels;
        if (n == 4) {
            // libjpeg-turbo's cmyk_to_rgb (cmyk.h), as djpeg's PPM writer applies it.
            for (int x = 0; x < w; x++) {
                double k = row[4 * x + 3];
                target[3 * x] = (uint8_t)((double)row[4 * x] * k / 255.0 + 0.5);
                target[3 * x + 1] = (uint8_t)((double)row[4 * x + 1] * k / 255.0 + 0.5);
                target[3 * x + 2] = (uint8_t)((double)row[4 * x + 2] * k / 255.0 + 0.5);
            }
        } else {
            memcpy(target, row, (size_t)w * (size_t)n);
        }
    }
    free(row);
    *width = w; *height = h; *components = channels;
    complete = 1;
    jpeg_finish_decompress(&cinfo);
    *warnings = (int)failure.manager.num_warnings;
    *data_warnings = failure.data_warnings;
    jpeg_destroy_decompress(&cinfo);
    *out = image;
    return 1;
}
