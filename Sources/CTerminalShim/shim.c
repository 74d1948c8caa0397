// The terminal's C shims; see include/CTerminalShim.h for what each function promises.

// The wide-character and locale calls (wcwidth, newlocale, uselocale) need these before any
// system header.
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE 1
#endif

#include "CTerminalShim.h"

#include <locale.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>
#include <wchar.h>
#include <ncursesw/curses.h>
#include <ncursesw/term.h>

// MARK: - Emergency restore

/// One more than the highest signal number the handlers are installed for (SIGTRAP, SIGSEGV, …
/// are all far below it); indexes `previous`.
#define BC_SIGNAL_SLOTS 65

/// What a crashing process writes to put the terminal back, and the handlers it hands over to.
///
/// Filled on the UI thread before the handlers are armed, then only read, from signal handlers,
/// with async-signal-safe calls; `armed` is the one field both sides write.
static struct {
    char bytes[256];
    size_t length;
    int input_fd;
    int output_fd;
    struct termios termios;
    int have_termios;
    int installed;
    volatile sig_atomic_t armed;
    struct sigaction previous[BC_SIGNAL_SLOTS];
} emergency = { .input_fd = STDIN_FILENO, .output_fd = STDOUT_FILENO };

/// The signals a crash arrives as.
static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP };

static void emergency_append(const char *s) {
    // tigetstr answers (char *)-1 for a name that is not a string capability.
    if (s == NULL || s == (const char *)-1) { return; }
    size_t n = strlen(s);
    if (emergency.length + n >= sizeof emergency.bytes) { return; }
    memcpy(emergency.bytes + emergency.length, s, n);
    emergency.length += n;
}

void bc_emergency_save_terminal(int input_fd, int output_fd) {
    emergency.input_fd = input_fd;
    emergency.output_fd = output_fd;
    emergency.have_termios = tcgetattr(input_fd, &emergency.termios) == 0;
}

void bc_emergency_save_reset(void) {
    emergency.length = 0;
    emergency_append("\033[?1000l\033[?1002l\033[?1006l\033[?2004l"); /* mouse reports, bracketed paste */
    emergency_append(tigetstr("sgr0"));
    emergency_append(tigetstr("rmkx"));
    emergency_append(tigetstr("cnorm"));
    emergency_append(tigetstr("rmcup"));
}

void bc_emergency_restore(void) {
    if (!emergency.armed) { return; }
    emergency.armed = 0;
    if (emergency.length > 0) {
        ssize_t ignored = write(emergency.output_fd, emergency.bytes, emergency.length);
        (void)ignored;
    }
    if (emergency.have_termios) {
        tcsetattr(emergency.input_fd, TCSANOW, &emergency.termios);
    }
}

/// Fatal-signal handler: restore the terminal, put back whoever handled the signal before us
/// (Swift's backtracer or the default action) and let it run. A fault the kernel raised
/// (si_code > 0 for SEGV, BUS, ILL, FPE) returns and re-executes the faulting instruction, so
/// the previous handler sees the original context; anything else (abort, a trap, a `kill`) is
/// raised again, and then once more with the default action in case that handler returned.
static void emergency_handler(int sig, siginfo_t *info, void *context) {
    (void)context;
    bc_emergency_restore();
    if (sig > 0 && sig < BC_SIGNAL_SLOTS) { sigaction(sig, &emergency.previous[sig], NULL); }
    int is_fault = sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE;
    if (is_fault && info != NULL && info->si_code > 0) { return; }
    raise(sig);
    /* The previous handler returned (Swift's backtracer does, expecting a fault to repeat):
       make sure the process still dies of the signal. */
    signal(sig, SIG_DFL);
    raise(sig);
}

void bc_emergency_install(void) {
    // A second install would save this handler as the "previous" one, and a crash would then
    // raise into itself instead of reaching the backtracer.
    if (!emergency.installed) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = emergency_handler;
        sigemptyset(&action.sa_mask);
        action.sa_flags = SA_SIGINFO | SA_NODEFER; /* NODEFER: the handler raises the same signal again */
        for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
            sigaction(fatal_signals[i], &action, &emergency.previous[fatal_signals[i]]);
        }
        emergency.installed = 1;
    }
    emergency.armed = 1;
}

void bc_emergency_disarm(void) { emergency.armed = 0; }

void bc_emergency_uninstall(void) {
    emergency.armed = 0;
    if (!emergency.installed) { return; }
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
        sigaction(fatal_signals[i], &emergency.previous[fatal_signals[i]], NULL);
    }
    emergency.installed = 0;
}

int bc_emergency_handles(int sig) {
    struct sigaction current;
    if (sigaction(sig, NULL, &current) != 0) { return 0; }
    return (current.sa_flags & SA_SIGINFO) && current.sa_sigaction == emergency_handler;
}

// MARK: - Signals

/// libdispatch reads the event loop's signals with signalfd, which sees only a blocked signal (its
/// own handler repairs a delivery to an unblocked thread by blocking and re-sending); blocking up
/// front means a signal that arrives before the source is registered waits, pending, instead of
/// being discarded or killing the process.
void bc_block_signals(const int *signals, int count) {
    sigset_t set;
    sigemptyset(&set);
    for (int i = 0; i < count; i++) { sigaddset(&set, signals[i]); }
    pthread_sigmask(SIG_BLOCK, &set, NULL);
}

// MARK: - Terminal queries

/// curses' own LINES/COLS are stale after a SIGWINCH that libdispatch consumed, hence the ioctl.
int bc_window_size(int fd, int *rows, int *cols) {
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) != 0) { return 0; }
    *rows = ws.ws_row;
    *cols = ws.ws_col;
    return 1;
}

int bc_window_pixels(int fd, int *width, int *height) {
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) != 0) { return 0; }
    *width = ws.ws_xpixel;
    *height = ws.ws_ypixel;
    return 1;
}

/// 0 when a read source fires means end of input.
int bc_bytes_available(int fd) {
    int n = 0;
    if (ioctl(fd, FIONREAD, &n) != 0) { return -1; }
    return n;
}

// MARK: - Character width

/// A UTF-8 LC_CTYPE locale used only for `wcwidth`, so cell widths do not depend on the process
/// locale (tests run under "C"). glibc's wcwidth reads the thread's locale, which `uselocale`
/// switches cheaply and without touching other threads. `pthread_once` makes the lazy creation
/// safe from any thread.
static locale_t width_locale = (locale_t)0;
static pthread_once_t width_locale_once = PTHREAD_ONCE_INIT;

static void make_width_locale(void) {
    locale_t made = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
    if (made == (locale_t)0) { made = newlocale(LC_CTYPE_MASK, "C.utf8", (locale_t)0); }
    width_locale = made;
}

int bc_wcwidth(unsigned int scalar) {
    pthread_once(&width_locale_once, make_width_locale);
    locale_t utf8 = width_locale;
    if (utf8 == (locale_t)0) { return wcwidth((wchar_t)scalar); }
    locale_t previous = uselocale(utf8);
    int width = wcwidth((wchar_t)scalar);
    uselocale(previous);
    return width;
}

// MARK: - The process's memory

int bc_limit_malloc_arenas(int count) {
    return mallopt(M_ARENA_MAX, count);
}
