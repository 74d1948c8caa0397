/// librsvg for Swift, loaded on the first SVG rather than linked: librsvg brings cairo, pango,
/// harfbuzz, fontconfig, gdk-pixbuf and libxml2 (about 50 libraries, 4 MiB resident and 7 ms of
/// start-up in every process), which only a process that draws an SVG should pay for.
///
/// These are the few calls Imaging's SVG makes, under names of our own (glib's and cairo's own
/// headers are not included, so nothing here meets the types chafa's glib declares), and a
/// loader that fills them from `librsvg-2.so.2` with dlopen/dlsym: cairo's and GIO's symbols
/// resolve through librsvg's handle, being its dependencies. The declarations follow
/// librsvg 2.54's, cairo's and GLib's headers (Debian's librsvg2-dev); their ABI has been stable
/// across librsvg 2.x.
#ifndef BYTECLUB_CRSVG_H
#define BYTECLUB_CRSVG_H
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/// GLib's GError.
typedef struct { uint32_t domain; int code; char *message; } BCGError;
/// librsvg's RsvgRectangle.
typedef struct { double x, y, width, height; } BCRsvgRectangle;
/// librsvg's RsvgLength (a length and its RsvgUnit).
typedef struct { double length; int unit; } BCRsvgLength;

/// cairo's CAIRO_FORMAT_ARGB32 and CAIRO_STATUS_SUCCESS; librsvg's RSVG_HANDLE_FLAGS_NONE.
enum { BC_CAIRO_FORMAT_ARGB32 = 0, BC_CAIRO_STATUS_SUCCESS = 0, BC_RSVG_HANDLE_FLAGS_NONE = 0 };

typedef struct {
    /// GIO: a GInputStream over bytes the caller keeps alive.
    void *(*memory_input_stream_new_from_data)(const void *data, ssize_t length, void (*destroy)(void *));
    void (*object_unref)(void *object);
    void (*error_free)(BCGError *error);
    /// librsvg: a handle read from a stream with no base file (nothing outside it is loaded).
    void *(*handle_new_from_stream_sync)(void *stream, void *base_file, int flags, void *cancellable, BCGError **error);
    void (*handle_set_dpi)(void *handle, double dpi);
    int (*handle_get_intrinsic_size_in_pixels)(void *handle, double *width, double *height);
    void (*handle_get_intrinsic_dimensions)(void *handle, int *has_width, BCRsvgLength *width, int *has_height,
                                            BCRsvgLength *height, int *has_viewbox, BCRsvgRectangle *viewbox);
    int (*handle_render_document)(void *handle, void *cairo, const BCRsvgRectangle *viewport, BCGError **error);
    /// cairo: an ARGB32 image surface and a context drawing on it.
    void *(*image_surface_create)(int format, int width, int height);
    int (*surface_status)(void *surface);
    void (*surface_flush)(void *surface);
    void (*surface_destroy)(void *surface);
    unsigned char *(*image_surface_get_data)(void *surface);
    int (*image_surface_get_stride)(void *surface);
    void *(*create)(void *surface);
    void (*scale)(void *cairo, double x, double y);
    void (*destroy)(void *cairo);
} BCRsvgLibrary;

/// Loads librsvg and fills `library`; 0 when it is not installed or lacks a call (librsvg
/// before 2.52 has no intrinsic size in pixels).
static inline int bc_rsvg_load(BCRsvgLibrary *library) {
    void *handle = dlopen("librsvg-2.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!handle) { return 0; }
#define BC_RSVG_SYMBOL(field, name) if (!(*(void **)&library->field = dlsym(handle, name))) { return 0; }
    BC_RSVG_SYMBOL(memory_input_stream_new_from_data, "g_memory_input_stream_new_from_data")
    BC_RSVG_SYMBOL(object_unref, "g_object_unref")
    BC_RSVG_SYMBOL(error_free, "g_error_free")
    BC_RSVG_SYMBOL(handle_new_from_stream_sync, "rsvg_handle_new_from_stream_sync")
    BC_RSVG_SYMBOL(handle_set_dpi, "rsvg_handle_set_dpi")
    BC_RSVG_SYMBOL(handle_get_intrinsic_size_in_pixels, "rsvg_handle_get_intrinsic_size_in_pixels")
    BC_RSVG_SYMBOL(handle_get_intrinsic_dimensions, "rsvg_handle_get_intrinsic_dimensions")
    BC_RSVG_SYMBOL(handle_render_document, "rsvg_handle_render_document")
    BC_RSVG_SYMBOL(image_surface_create, "cairo_image_surface_create")
    BC_RSVG_SYMBOL(surface_status, "cairo_surface_status")
    BC_RSVG_SYMBOL(surface_flush, "cairo_surface_flush")
    BC_RSVG_SYMBOL(surface_destroy, "cairo_surface_destroy")
    BC_RSVG_SYMBOL(image_surface_get_data, "cairo_image_surface_get_data")
    BC_RSVG_SYMBOL(image_surface_get_stride, "cairo_image_surface_get_stride")
    BC_RSVG_SYMBOL(create, "cairo_create")
    BC_RSVG_SYMBOL(scale, "cairo_scale")
    BC_RSVG_SYMBOL(destroy, "cairo_destroy")
#undef BC_RSVG_SYMBOL
    return 1;
}

#endif
