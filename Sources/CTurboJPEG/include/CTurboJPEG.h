#ifndef BYTECLUB_CTURBOJPEG_H
#define BYTECLUB_CTURBOJPEG_H
#include <stddef.h>
#include <turbojpeg.h>
#endif
