/// libchafa for Swift: its canvas API, which turns pixels into terminal symbols and colors.
///
/// The header needs glib's include paths, which `pkg-config --cflags chafa` supplies. Chafa's
/// objects are reference counted and are used by one thread at a time here (see `ChafaRenderer`).
#ifndef BYTECLUB_CCHAFA_H
#define BYTECLUB_CCHAFA_H

#include <chafa.h>

#endif
