/// ncursesw for Swift: the wide-character API, plus shims for what Swift cannot import.
///
/// SwiftPM drops the `-D` flags that `pkg-config --cflags ncursesw` reports, so the wide API
/// (`cchar_t`, `wget_wch`, `setcchar`) would be missing; the feature macros are forced here,
/// before any system header. Everything prefixed `bc_` wraps a macro Swift cannot import or a
/// mutable C global (`stdscr`, `COLORS`, `ESCDELAY`) that Swift 6 would reject as unsafe shared
/// state. These shims are only called on the UI queue, where every ncurses call happens.
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

#include <locale.h>
#include <wchar.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <ncursesw/curses.h>
#include <ncursesw/term.h>

/* Swift's Glibc module builds <wchar.h> without _XOPEN_SOURCE, so it leaves wcwidth out. */
extern int wcwidth(wchar_t c);

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

static inline mmask_t bc_BUTTON1_PRESSED(void) { return BUTTON1_PRESSED; }
static inline mmask_t bc_BUTTON1_CLICKED(void) { return BUTTON1_CLICKED; }
static inline mmask_t bc_BUTTON1_RELEASED(void) { return BUTTON1_RELEASED; }

/// Enables left-button clicks; returns the mask the terminal accepted.
static inline mmask_t bc_enable_clicks(void) {
    mouseinterval(0); /* report presses at once instead of waiting to synthesise clicks */
    return mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED, NULL);
}

/// Reads the pending mouse event; returns 1 for a left press or click at (*x, *y).
static inline int bc_get_click(int *x, int *y) {
    MEVENT event;
    if (getmouse(&event) != OK) { return 0; }
    if (!(event.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED))) { return 0; }
    *x = event.x;
    *y = event.y;
    return 1;
}

// MARK: - Character width

/// A UTF-8 LC_CTYPE locale used only for `wcwidth`, so cell widths do not depend on the
/// process locale (tests run under "C"). glibc's wcwidth reads the thread's locale, which
/// `uselocale` switches cheaply and without touching other threads. `pthread_once` makes the
/// lazy creation safe from any thread.
static inline locale_t *bc_width_locale(void) {
    static locale_t locale = (locale_t)0;
    return &locale;
}

static inline void bc_make_width_locale(void) {
    locale_t made = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
    if (made == (locale_t)0) { made = newlocale(LC_CTYPE_MASK, "C.utf8", (locale_t)0); }
    *bc_width_locale() = made;
}

/// Columns a Unicode scalar takes: 2 for wide (CJK, most emoji), 0 for combining marks,
/// -1 for control characters.
static inline int bc_wcwidth(unsigned int scalar) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, bc_make_width_locale);
    locale_t utf8 = *bc_width_locale();
    if (utf8 == (locale_t)0) { return wcwidth((wchar_t)scalar); }
    locale_t previous = uselocale(utf8);
    int width = wcwidth((wchar_t)scalar);
    uselocale(previous);
    return width;
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

/// The terminal size from the kernel; 0 on failure. curses' own LINES/COLS are stale after a
/// SIGWINCH that libdispatch consumed.
static inline int bc_window_size(int fd, int *rows, int *cols) {
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) != 0) { return 0; }
    *rows = ws.ws_row;
    *cols = ws.ws_col;
    return 1;
}

/// Bytes waiting on `fd`, or -1 on error; 0 when a read source fires means end of input.
static inline int bc_bytes_available(int fd) {
    int n = 0;
    if (ioctl(fd, FIONREAD, &n) != 0) { return -1; }
    return n;
}

// MARK: - Emergency restore

/// What a crashing process writes to put the terminal back: the bytes that leave the alternate
/// screen, show the cursor, reset attributes and stop mouse reports, plus the termios saved
/// before curses changed it. Filled by `bc_emergency_prepare` before any handler is installed,
/// then only read, from signal handlers, with async-signal-safe calls.
struct bc_emergency_state {
    char bytes[256];
    size_t length;
    struct termios termios;
    int have_termios;
    volatile sig_atomic_t armed;
    struct sigaction previous[65];
};

/// The one emergency state. A function-local static, because Swift's Clang importer does not
/// emit file-level static aggregates from a header into the module that uses them.
static inline struct bc_emergency_state *bc_emergency(void) {
    static struct bc_emergency_state state;
    return &state;
}

static inline void bc_emergency_append(const char *s) {
    struct bc_emergency_state *e = bc_emergency();
    if (s == NULL || s == (const char *)-1) { return; }
    size_t n = strlen(s);
    if (e->length + n >= sizeof e->bytes) { return; }
    memcpy(e->bytes + e->length, s, n);
    e->length += n;
}

/// Saves the terminal state to restore; call before curses starts (for termios) and again with
/// `after_setup` = 1 once terminfo is loaded (for the reset strings).
static inline void bc_emergency_prepare(int after_setup) {
    struct bc_emergency_state *e = bc_emergency();
    if (!after_setup) {
        e->have_termios = tcgetattr(STDIN_FILENO, &e->termios) == 0;
        return;
    }
    e->length = 0;
    bc_emergency_append("\033[?1000l\033[?1002l\033[?1006l\033[?2004l"); /* mouse reports, bracketed paste */
    bc_emergency_append(tigetstr("sgr0"));
    bc_emergency_append(tigetstr("rmkx"));
    bc_emergency_append(tigetstr("cnorm"));
    bc_emergency_append(tigetstr("rmcup"));
}

/// Restores the terminal using only async-signal-safe calls (write, tcsetattr).
static inline void bc_emergency_restore(void) {
    struct bc_emergency_state *e = bc_emergency();
    if (!e->armed) { return; }
    e->armed = 0;
    if (e->length > 0) {
        ssize_t ignored = write(STDOUT_FILENO, e->bytes, e->length);
        (void)ignored;
    }
    if (e->have_termios) {
        tcsetattr(STDIN_FILENO, TCSANOW, &e->termios);
    }
}

/// Fatal-signal handler: restore the terminal, put back whoever handled the signal before us
/// (Swift's backtracer or the default action) and let it run. A fault the kernel raised
/// (si_code > 0 for SEGV, BUS, ILL, FPE) returns and re-executes the faulting instruction, so
/// the previous handler sees the original context; anything else (abort, a trap, a `kill`) is
/// raised again, and then once more with the default action in case that handler returned.
static inline void bc_emergency_handler(int sig, siginfo_t *info, void *context) {
    (void)context;
    bc_emergency_restore();
    if (sig > 0 && sig < 65) { sigaction(sig, &bc_emergency()->previous[sig], NULL); }
    int is_fault = sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE;
    if (is_fault && info != NULL && info->si_code > 0) { return; }
    raise(sig);
    /* The previous handler returned (Swift's backtracer does, expecting a fault to repeat):
       make sure the process still dies of the signal. */
    signal(sig, SIG_DFL);
    raise(sig);
}

static inline void bc_emergency_install(void) {
    static const int signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP };
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = bc_emergency_handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_SIGINFO | SA_NODEFER; /* NODEFER: the handler raises the same signal again */
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        sigaction(signals[i], &action, &bc_emergency()->previous[signals[i]]);
    }
    bc_emergency()->armed = 1;
}

static inline void bc_emergency_disarm(void) { bc_emergency()->armed = 0; }

/// Blocks the signals the event loop receives through libdispatch, on the calling thread and so
/// on every thread created after it. libdispatch reads them with signalfd, which sees only a
/// blocked signal (its own handler repairs a delivery to an unblocked thread by blocking and
/// re-sending); blocking up front means a signal that arrives before the source is registered
/// waits, pending, instead of being discarded or killing the process.
static inline void bc_block_signals(const int *signals, int count) {
    sigset_t set;
    sigemptyset(&set);
    for (int i = 0; i < count; i++) { sigaddset(&set, signals[i]); }
    pthread_sigmask(SIG_BLOCK, &set, NULL);
}

#endif
