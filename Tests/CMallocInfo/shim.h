// glibc's heap statistics (mallinfo2), for tests that check the MemoryLedger against the
// real heap. Header only: nothing is linked beyond libc.
#include <malloc.h>
