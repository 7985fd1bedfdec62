/*
 * The board side of the firmware example: the C entry point, the input file through the
 * C library's file calls (semihosting on the QEMU boards, WASI under Node), the heap meter
 * and the stack paint. Everything else is Swift (Sources/).
 *
 * Heap: the C library's allocator hands out a fixed arena (the linker places it between
 * the end of .bss and __heap_end; run.sh sets its size). Every allocation the Swift code
 * makes goes through posix_memalign/malloc and free, which are wrapped here to count the
 * bytes in use (the allocator's usable size, so its rounding is counted) and their peak.
 *
 * Stack: before the Swift code runs, the free stack below the current frame is painted
 * with a pattern; afterwards the lowest word that changed gives the deepest the stack went.
 */
#include <fcntl.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int firmware_main(int argc, char **argv);

/* ---- heap meter ---- */

static size_t heap_in_use;
static size_t heap_peak;
static size_t heap_allocations;

/* An allocation the arena cannot serve ends the program with a message: Swift's runtime
 * does not check for null, and address 0 is writable RAM on these boards, so going on would
 * corrupt memory instead of faulting. The ledger's default limit (board_heap_free) keeps the
 * decoder's own buffers from getting here; this catches everything else. */
static void put_decimal(unsigned long value, FILE *file) {
    char digits[24];
    int count = 0;
    do {
        digits[count++] = (char)('0' + value % 10);
        value /= 10;
    } while (value > 0);
    while (count > 0) fputc(digits[--count], file);
}

static void heap_exhausted(size_t size) {
    fputs("board: out of heap: ", stderr);
    put_decimal(size, stderr);
    fputs(" bytes asked, ", stderr);
    put_decimal(heap_in_use, stderr);
    fputs(" in use\n", stderr);
    exit(3);
}

static void heap_count(void *p) {
    if (!p) return;
    heap_in_use += malloc_usable_size(p);
    heap_allocations += 1;
    if (heap_in_use > heap_peak) heap_peak = heap_in_use;
}

void *__real_malloc(size_t size);
void __real_free(void *p);
int __real_posix_memalign(void **out, size_t alignment, size_t size);

void *__wrap_malloc(size_t size) {
    void *p = __real_malloc(size);
    if (!p && size) heap_exhausted(size);
    heap_count(p);
    return p;
}

int __wrap_posix_memalign(void **out, size_t alignment, size_t size) {
    int status = __real_posix_memalign(out, alignment, size);
    if (status != 0) heap_exhausted(size);
    heap_count(*out);
    return status;
}

void __wrap_free(void *p) {
    if (!p) return;
    heap_in_use -= malloc_usable_size(p);
    __real_free(p);
}

size_t board_heap_peak(void) { return heap_peak; }
/* Starts a new peak from what is in use now (one per stage of the program). */
void board_heap_restart_peak(void) { heap_peak = heap_in_use; }
size_t board_heap_in_use(void) { return heap_in_use; }
size_t board_heap_allocations(void) { return heap_allocations; }

/* Bytes of the arena not in use, or 0 where the arena's size is not known (WASI's heap grows). */
size_t board_heap_free(void) {
#if defined(__wasm__)
    return 0;
#else
    /* build.sh places the arena at [__end, __heap_end). */
    extern char __end[], __heap_end[];
    size_t arena = (size_t)(__heap_end - __end);
    return arena > heap_in_use ? arena - heap_in_use : 0;
#endif
}

/* ---- input file ---- */

static int input_fd = -1;
static long input_size = -1;
static long input_position = -1;

/* Opens `path` for reading; returns its size, or -1. */
long board_open_input(const char *path) {
    input_fd = open(path, O_RDONLY);
    if (input_fd < 0) return -1;
    input_size = lseek(input_fd, 0, SEEK_END);
    input_position = -1;
    return input_size;
}

/* Copies up to `count` bytes at `offset` into `buffer`; returns how many, 0 at the end, -1 on failure. */
long board_read_input(void *buffer, long count, long offset) {
    if (input_fd < 0 || offset < 0 || count < 0) return -1;
    if (offset >= input_size) return 0;
    if (offset != input_position && lseek(input_fd, offset, SEEK_SET) != offset) return -1;
    long total = 0;
    while (total < count) {
        ssize_t n = read(input_fd, (char *)buffer + total, (size_t)(count - total));
        if (n < 0) return -1;
        if (n == 0) break;
        total += n;
    }
    input_position = offset + total;
    return total;
}

/* ---- output ---- */

#if defined(__arm__)
/* picolibc's start-up prints a fault with printf("ARM fault: %s\n", …) and
 * printf("\tR0:   0x%08x\n", …), and nothing else in the program calls printf: this one
 * knows those two conversions, so that the C library's (1.2 KB) is not linked. */
int printf(const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    for (const char *p = format; *p; p++) {
        if (*p != '%') {
            putchar(*p);
        } else if (p[1] == 's') {
            fputs(va_arg(arguments, const char *), stdout);
            p++;
        } else {
            while (*p && *p != 'x') p++; /* "%08x" */
            if (!*p) break;
            unsigned value = va_arg(arguments, unsigned);
            for (int shift = 28; shift >= 0; shift -= 4) putchar("0123456789abcdef"[(value >> shift) & 15]);
        }
    }
    va_end(arguments);
    return 0;
}
#endif

void board_write(const char *text, long count) {
    fwrite(text, 1, (size_t)count, stdout);
}

/* ---- instruction count marks ---- */

/* Called around the decode. Does nothing; run.sh --count has QEMU snapshot its instruction
 * count each time this function is entered (Tools/insn-count.c). */
__attribute__((noinline)) void board_mark(int which) {
    __asm__ volatile("" : : "r"(which) : "memory");
}

/* ---- stack paint ---- */

#if defined(__wasm__)
size_t board_stack_peak(void) { return 0; }
static void paint_stack(void) {}
#else
extern char __heap_end[];
extern char __stack[];
#define STACK_PAINT 0x5AA5C33Cu
static uint32_t *paint_low;
static uint32_t *paint_high;

static __attribute__((noinline)) void paint_stack(void) {
    /* From the arena's end up to a margin below this frame; the margin covers this call. */
    paint_low = (uint32_t *)(((uintptr_t)__heap_end + 3) & ~(uintptr_t)3);
    paint_high = (uint32_t *)(((uintptr_t)__builtin_frame_address(0) - 256) & ~(uintptr_t)3);
    for (volatile uint32_t *p = paint_low; p < paint_high; p++) *p = STACK_PAINT;
}

/* The deepest the stack went, in bytes below its top. */
size_t board_stack_peak(void) {
    uint32_t *p = paint_low;
    while (p < paint_high && *p == STACK_PAINT) p++;
    return (size_t)((uintptr_t)__stack - (uintptr_t)p);
}
#endif

/* ---- the Embedded Swift runtime's C needs ---- */

#if defined(__wasm__)
/* wasi-libc has neither the stack protector's symbols nor __multi3. */
uintptr_t __stack_chk_guard = 0x5AA5C33C;
void __stack_chk_fail(void) {
    fputs("board: stack smashing detected\n", stdout);
    exit(2);
}

/* 128-bit multiply (Swift's multipliedFullWidth on 64-bit values), from 32-bit halves. */
static uint64_t mul_64x64_high(uint64_t a, uint64_t b) {
    uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t middle = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
    return p11 + (p01 >> 32) + (p10 >> 32) + (middle >> 32);
}
__int128 __multi3(__int128 a, __int128 b) {
    uint64_t al = (uint64_t)a, ah = (uint64_t)((unsigned __int128)a >> 64);
    uint64_t bl = (uint64_t)b, bh = (uint64_t)((unsigned __int128)b >> 64);
    uint64_t high = mul_64x64_high(al, bl) + al * bh + ah * bl;
    return (__int128)(((unsigned __int128)high << 64) | (unsigned __int128)(al * bl));
}
#endif

int main(int argc, char **argv) {
    paint_stack();
    int status = firmware_main(argc, argv);
    fflush(stdout);
    return status;
}
