/// ncursesw for Swift: the wide-character API, plus shims for what Swift cannot import.
///
/// SwiftPM drops the `-D` flags that `pkg-config --cflags ncursesw` reports, so the wide API
/// (`cchar_t`, `wget_wch`, `setcchar`) would be missing; the feature macros are forced here,
/// before any system header. Everything prefixed `bc_` wraps a macro Swift cannot import or a
/// mutable C global (`stdscr`, `COLORS`, `ESCDELAY`) that Swift 6 would reject as unsafe shared
/// state. These shims are only called on the UI queue, where every ncurses call happens.
///
/// Only declarations and those small wrappers live here. C with state of its own (the crash
/// handlers that restore the terminal, the width locale) is compiled once, in the CTerminalShim
/// target.
#ifndef BYTECLUB_CNCURSESW_H
#define BYTECLUB_CNCURSESW_H

#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE 1
#endif
#define NCURSES_WIDECHAR 1

#include <wchar.h>
#include <stdio.h>
#include <ncursesw/curses.h>
#include <ncursesw/term.h>

// MARK: - Globals and macros

static inline WINDOW *bc_stdscr(void) { return stdscr; }
static inline WINDOW *bc_curscr(void) { return curscr; }
static inline int bc_COLORS(void) { return COLORS; }
static inline int bc_COLOR_PAIRS(void) { return COLOR_PAIRS; }
static inline int bc_ERR(void) { return ERR; }
static inline int bc_OK(void) { return OK; }

static inline void bc_getmaxyx(WINDOW *win, int *y, int *x) {
    int yy, xx;
    getmaxyx(win, yy, xx);
    *y = yy;
    *x = xx;
}

/// Sets `ESCDELAY`, how long a lone ESC waits for the rest of a sequence.
static inline int bc_set_escdelay(int ms) { return set_escdelay(ms); }

/// Opens curses on the process's stdin/stdout; unlike `initscr` it returns NULL instead of
/// exiting when the terminal is unusable, so the caller can report the error.
static inline SCREEN *bc_newterm(void) { return newterm(NULL, stdout, stdin); }

// MARK: - Attributes

static inline attr_t bc_A_NORMAL(void) { return A_NORMAL; }
static inline attr_t bc_A_BOLD(void) { return A_BOLD; }
static inline attr_t bc_A_REVERSE(void) { return A_REVERSE; }
static inline attr_t bc_A_UNDERLINE(void) { return A_UNDERLINE; }
static inline attr_t bc_A_DIM(void) { return A_DIM; }
static inline attr_t bc_A_ITALIC(void) { return A_ITALIC; }

// MARK: - Keys

static inline int bc_KEY_F(int n) { return KEY_F(n); }
static inline int bc_KEY_CODE_YES(void) { return KEY_CODE_YES; }
static inline int bc_KEY_DOWN(void) { return KEY_DOWN; }
static inline int bc_KEY_UP(void) { return KEY_UP; }
static inline int bc_KEY_LEFT(void) { return KEY_LEFT; }
static inline int bc_KEY_RIGHT(void) { return KEY_RIGHT; }
static inline int bc_KEY_HOME(void) { return KEY_HOME; }
static inline int bc_KEY_END(void) { return KEY_END; }
static inline int bc_KEY_NPAGE(void) { return KEY_NPAGE; }
static inline int bc_KEY_PPAGE(void) { return KEY_PPAGE; }
static inline int bc_KEY_BACKSPACE(void) { return KEY_BACKSPACE; }
static inline int bc_KEY_DC(void) { return KEY_DC; }
static inline int bc_KEY_IC(void) { return KEY_IC; }
static inline int bc_KEY_ENTER(void) { return KEY_ENTER; }
static inline int bc_KEY_BTAB(void) { return KEY_BTAB; }
static inline int bc_KEY_MOUSE(void) { return KEY_MOUSE; }
static inline int bc_KEY_RESIZE(void) { return KEY_RESIZE; }
static inline int bc_KEY_F0(void) { return KEY_F0; }

// MARK: - Mouse

/// Leaves mouse reports to the app: curses no longer turns terminfo's `kmous` (`\E[M` or
/// `\E[<`) into KEY_MOUSE, so the report's bytes reach `wget_wch` and the app's own decoder,
/// which reads every button, the wheel and modifiers in both encodings. The app turns the
/// terminal's reporting on itself (SGR, mode 1006, whatever terminfo says).
static inline int bc_pass_mouse_reports(void) {
    return keyok(KEY_MOUSE, FALSE);
}

// MARK: - Drawing

/// Puts one cell: a spacing character plus up to four combining marks, with attributes and an
/// extended color pair (which may exceed the 16-bit pair field, hence the `opts` pointer).
static inline int bc_put_cell(WINDOW *win, int y, int x, const wchar_t *chars, attr_t attrs, int pair) {
    cchar_t cell;
    int extended = pair;
    if (setcchar(&cell, chars, attrs, 0, &extended) != OK) { return ERR; }
    return mvwadd_wch(win, y, x, &cell);
}

/// Fills `n` cells of row `y` from column `x` with blanks, letting curses do the run.
static inline int bc_fill_row(WINDOW *win, int y, int x, int n, attr_t attrs, int pair) {
    cchar_t cell;
    wchar_t blank[2] = { L' ', 0 };
    int extended = pair;
    if (setcchar(&cell, blank, attrs, 0, &extended) != OK) { return ERR; }
    return mvwhline_set(win, y, x, &cell, n);
}

/// Forgets what curses believes is on the screen, so the next update repaints everything.
static inline void bc_force_repaint(void) { clearok(curscr, TRUE); }

#endif
