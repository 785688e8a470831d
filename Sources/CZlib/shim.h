#ifndef GALLERY_CZLIB_SHIM_H
#define GALLERY_CZLIB_SHIM_H
#include <zlib.h>

/* zlib's init entry points are macros that Swift cannot import; these wrappers pass the
   version and struct size the macros would. */
static inline int czlib_inflateInit(z_streamp strm) { return inflateInit(strm); }
static inline int czlib_inflateInit2(z_streamp strm, int windowBits) { return inflateInit2(strm, windowBits); }
static inline int czlib_deflateInit(z_streamp strm, int level) { return deflateInit(strm, level); }
static inline int czlib_deflateInit2(z_streamp strm, int level, int method, int windowBits, int memLevel, int strategy) {
    return deflateInit2(strm, level, method, windowBits, memLevel, strategy);
}
#endif
