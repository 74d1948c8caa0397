/// The terminal's own C: crash handlers that restore the terminal, the signal mask, the
/// terminal-size and bytes-waiting `ioctl`s, and cell widths from a UTF-8 locale.
///
/// These are real functions, compiled once in `shim.c`, because they keep state (the saved
/// terminal, the handlers they replaced, a locale) that must exist once per process and be
/// reachable from a signal handler. The ncursesw system-library header keeps only wrappers for
/// macros and C globals. Only plain C types cross this header, so it needs no system headers.
#ifndef BYTECLUB_CTERMINALSHIM_H
#define BYTECLUB_CTERMINALSHIM_H

// MARK: - Emergency restore

/// Saves `input_fd`'s termios and remembers where the reset bytes go (`output_fd`); call before
/// curses changes the terminal. The app passes stdin and stdout.
void bc_emergency_save_terminal(int input_fd, int output_fd);

/// Composes the reset bytes from the loaded terminfo (leave the alternate screen, show the
/// cursor, reset attributes and keypad mode, stop mouse reports and bracketed paste); call once
/// curses has loaded the terminal's description.
void bc_emergency_save_reset(void);

/// Installs the fatal-signal handlers (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP) and arms
/// the restore. Calling it again only re-arms: the handlers saved the first time stay the ones
/// handed the crash.
void bc_emergency_install(void);

/// Disarms the restore, for when the terminal has been given back in the ordinary way.
void bc_emergency_disarm(void);

/// If armed, writes the reset bytes and restores the saved termios, with async-signal-safe
/// calls only, then disarms; what the crash handler runs first.
void bc_emergency_restore(void);

/// Puts back the handlers that `bc_emergency_install` replaced and disarms (for tests, which
/// must leave the process as they found it).
void bc_emergency_uninstall(void);

/// 1 when the emergency handler is the current handler of `sig`.
int bc_emergency_handles(int sig);

// MARK: - Signals

/// Blocks `signals` on the calling thread, and so on every thread created after it.
void bc_block_signals(const int *signals, int count);

// MARK: - Terminal queries

/// The terminal size from the kernel; 0 on failure.
int bc_window_size(int fd, int *rows, int *cols);

/// The window's size in pixels from `TIOCGWINSZ` (0 where the terminal does not say). Returns 0 on failure.
int bc_window_pixels(int fd, int *width, int *height);

/// Bytes waiting on `fd`, or -1 on error.
int bc_bytes_available(int fd);

// MARK: - Character width

/// Columns a Unicode scalar takes in a UTF-8 locale, whatever the process locale: 2 for wide
/// (CJK, most emoji), 0 for combining marks, -1 for control characters.
int bc_wcwidth(unsigned int scalar);

// MARK: - The process's memory

/// At most `count` malloc arenas for the process (glibc's `mallopt(M_ARENA_MAX)`), from now on;
/// 1 when set. Call it first thing, before threads allocate: glibc gives each thread that
/// allocates while another holds an arena one of its own, up to 8 per core, and each keeps what
/// was freed in it.
int bc_limit_malloc_arenas(int count);

#endif
