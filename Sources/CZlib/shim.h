#ifndef RECIPES_CZLIB_SHIM_H
#define RECIPES_CZLIB_SHIM_H

#include <zlib.h>

/* inflateInit2 is a macro (it passes zlib's version and the stream's size), which Swift cannot call: this is it as a
   function. `window_bits` is -15 for a raw deflate stream (a zip entry), 16 + 15 for a gzip member. */
static inline int recipes_inflate_init2(z_stream *stream, int window_bits) {
    return inflateInit2(stream, window_bits);
}

#endif
