/* libpng-pam IN.png OUT.pam: libpng's decode written the way `pare decode IN.png -o OUT.pam`
 * writes it (PAM RGB_ALPHA, 8-bit input; rows as they are read, an interlaced image whole),
 * so that Benchmarks/compare.sh can time PNG decoding against libpng itself: pngtopnm spends
 * most of its instructions in Netpbm's per-sample conversion, not in libpng or zlib.
 * Built by compare.sh when libpng's headers are installed; a peer for timing only. */
#include <png.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: libpng-pam IN.png OUT.pam\n");
        return 2;
    }
    FILE *in = fopen(argv[1], "rb");
    FILE *out = fopen(argv[2], "wb");
    if (!in || !out) {
        fprintf(stderr, "libpng-pam: cannot open a file\n");
        return 1;
    }
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (!png || !info || setjmp(png_jmpbuf(png))) {
        fprintf(stderr, "libpng-pam: %s: decode failed\n", argv[1]);
        return 1;
    }
    png_init_io(png, in);
    png_read_info(png, info);
    if (png_get_bit_depth(png, info) != 8) {
        fprintf(stderr, "libpng-pam: %s: only 8-bit input\n", argv[1]);
        return 1;
    }
    png_set_expand(png);
    png_set_gray_to_rgb(png);
    png_set_filler(png, 0xFF, PNG_FILLER_AFTER);
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    png_uint_32 width = png_get_image_width(png, info), height = png_get_image_height(png, info);
    size_t stride = png_get_rowbytes(png, info);
    fprintf(out, "P7\nWIDTH %u\nHEIGHT %u\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n", width, height);
    if (passes == 1) {
        png_bytep row = malloc(stride);
        for (png_uint_32 y = 0; y < height; y++) {
            png_read_row(png, row, NULL);
            fwrite(row, 1, stride, out);
        }
        free(row);
    } else {
        png_bytep image = malloc(stride * height);
        png_bytepp rows = malloc(sizeof(png_bytep) * height);
        for (png_uint_32 y = 0; y < height; y++) rows[y] = image + stride * y;
        png_read_image(png, rows);
        fwrite(image, 1, stride * height, out);
        free(rows);
        free(image);
    }
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    fclose(in);
    return fclose(out) == 0 ? 0 : 1;
}
