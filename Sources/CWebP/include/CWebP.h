/// libwebp for Swift: the decoder (scaling as it decodes), the simple encoder, and the demuxer's
/// animation decoder (an animated WebP's first frame).
#ifndef BYTECLUB_CWEBP_H
#define BYTECLUB_CWEBP_H
#include <stddef.h>
#include <webp/decode.h>
#include <webp/encode.h>
#include <webp/demux.h>
#endif
