/// giflib for Swift: a GIF read record by record (only the first frame is decoded) and written.
#ifndef BYTECLUB_CGIF_H
#define BYTECLUB_CGIF_H
#include <stddef.h>
#include <gif_lib.h>
#endif
