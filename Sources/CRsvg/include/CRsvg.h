/// librsvg for Swift: an SVG parsed from memory with no base file (so it can load nothing from
/// outside: no file, no URL) and rendered onto a cairo image surface. Its headers need glib's,
/// gio's and cairo's include paths, which `pkg-config --cflags librsvg-2.0` supplies.
#ifndef BYTECLUB_CRSVG_H
#define BYTECLUB_CRSVG_H
#include <librsvg/rsvg.h>
#include <cairo.h>
#include <gio/gio.h>
#endif
