#ifndef C_REALTIME_ZLIB_SHIM_H
#define C_REALTIME_ZLIB_SHIM_H
#include <zlib.h>

/* deflateInit2 / inflateInit2 are macros; wrap them so Swift can call them. */
static inline int crealtime_deflateInit2(z_streamp strm, int level, int method, int windowBits, int memLevel, int strategy) {
    return deflateInit2(strm, level, method, windowBits, memLevel, strategy);
}
static inline int crealtime_inflateInit2(z_streamp strm, int windowBits) {
    return inflateInit2(strm, windowBits);
}
#endif
