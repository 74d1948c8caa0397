/// libspng for Swift: PNG decoding (a row at a time, within set limits) and encoding.
#ifndef BYTECLUB_CSPNG_H
#define BYTECLUB_CSPNG_H
#include <stddef.h>
#include <spng.h>
#endif
