// Writes libpng's decode of a PNG, as Fuzz/differential-png.swift compares it, as a PAM on
// stdout: DEPTH the channel count (gray, gray+alpha, RGB, RGBA), MAXVAL 255 or 65535
// (16-bit samples big-endian, as PAM and Pare's Image store them). Exit 1 if libpng refuses
// the file. Built and run by Fixtures/regressions/make-differential-references.sh.
#include "reference.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: png-reference FILE.png > FILE.pam\n"); return 2; }
    FILE *file = fopen(argv[1], "rb");
    if (!file) { perror(argv[1]); return 2; }
    size_t capacity = 1 << 16, size = 0, got;
    uint8_t *data = malloc(capacity);
    while (data && (got = fread(data + size, 1, capacity - size, file)) > 0) {
        size += got;
        if (size == capacity) data = realloc(data, capacity *= 2);
    }
    fclose(file);
    if (!data) return 2;
    uint8_t *image;
    int width, height, channels, depth, warnings;
    // The same pixel limit as the fuzz target.
    if (!reference_decode_png(data, size, 1L << 22, &image, &width, &height, &channels, &depth, &warnings)) {
        fprintf(stderr, "%s: libpng refuses it\n", argv[1]);
        return 1;
    }
    static const char *const types[] = {"", "GRAYSCALE", "GRAYSCALE_ALPHA", "RGB", "RGB_ALPHA"};
    printf("P7\nWIDTH %d\nHEIGHT %d\nDEPTH %d\nMAXVAL %d\nTUPLTYPE %s\nENDHDR\n", width, height, channels,
           depth == 16 ? 65535 : 255, types[channels]);
    fwrite(image, 1, (size_t)width * height * channels * (depth / 8), stdout);
    free(image);
    free(data);
    return 0;
}
