// libpng behind setjmp, for Fuzz/differential-png.swift (see reference.h).
#include "reference.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

struct png_input {
    const uint8_t *data;
    size_t size, position;
    int warnings;
};

static void png_fail(png_structp png, png_const_charp message) {
    (void)message;
    png_longjmp(png, 1);
}

static void png_warned(png_structp png, png_const_charp message) {
    (void)message;
    ((struct png_input *)png_get_error_ptr(png))->warnings++;
}

static void png_read_memory(png_structp png, png_bytep target, size_t length) {
    struct png_input *input = png_get_io_ptr(png);
    if (length > input->size - input->position) png_error(png, "read past the end");
    memcpy(target, input->data + input->position, length);
    input->position += length;
}

int reference_decode_png(const uint8_t *data, size_t size, long max_pixels,
                         uint8_t **out, int *width, int *height, int *channels, int *bit_depth, int *warnings) {
    *out = NULL;
    *warnings = 0;
    // libpng allocates a text chunk's declared length before reading it (png_read_buffer),
    // past png_set_chunk_malloc_max: a 57-byte seed declaring a 620 MB tEXt made the harness
    // run out of memory. png_read_info reads every chunk before the first IDAT, so a file
    // where one of those runs past the end fails in libpng anyway: refuse it here instead.
    for (size_t at = 8; at + 8 <= size;) {
        size_t length = (size_t)data[at] << 24 | (size_t)data[at + 1] << 16 | (size_t)data[at + 2] << 8 | data[at + 3];
        if (memcmp(data + at + 4, "IDAT", 4) == 0) break;
        if (length > size - at - 8 || size - at - 8 - length < 4) return 0;
        at += 12 + length;
    }
    struct png_input input = {data, size, 0, 0};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &input, png_fail, png_warned);
    if (!png) return 0;
    png_infop info = png_create_info_struct(png);
    uint8_t *volatile image = NULL;
    png_bytep *volatile rows = NULL;
    if (!info || setjmp(png_jmpbuf(png))) {
        free(rows);
        free(image);
        png_destroy_read_struct(&png, &info, NULL);
        *warnings = input.warnings;
        return 0;
    }
    png_set_read_fn(png, &input, png_read_memory);
    png_set_chunk_malloc_max(png, 8L << 20);
    png_read_info(png, info);
    png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    if ((long)w * (long)h > max_pixels) png_error(png, "over the pixel limit");
    // Pare's native layout: palette, low-depth gray and tRNS expanded; 16 bits kept
    // big-endian (libpng's default); Adam7 passes combined into whole rows.
    png_set_expand(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    size_t stride = png_get_rowbytes(png, info);
    image = malloc(stride * h + 1);
    rows = malloc(sizeof(png_bytep) * h + 1);
    if (!image || !rows) png_error(png, "out of memory");
    for (png_uint_32 y = 0; y < h; y++) rows[y] = image + stride * y;
    // Only the image data is compared: png_read_end (the chunks after the image data) is
    // not called, so that a file libpng would refuse only for what follows its last row
    // still has its pixels compared.
    png_read_image(png, rows);
    *width = (int)w; *height = (int)h;
    *channels = png_get_channels(png, info);
    *bit_depth = png_get_bit_depth(png, info);
    *warnings = input.warnings;
    free(rows);
    png_destroy_read_struct(&png, &info, NULL);
    *out = image;
    return 1;
}
