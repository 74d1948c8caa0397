import Dispatch
internal import CNcursesw
#if canImport(Glibc)
import Glibc
#endif

/// How a program the app handed the terminal to ended.
public enum ExternalProgramExit: Equatable, Sendable {
    /// It exited with this status.
    case exited(Int32)
    /// A signal ended it (`kill`, a crash).
    case killed(signal: Int32)
    /// It could not be started at all (no `/bin/sh`, fork failed).
    case notStarted(String)
}

/// The user's own editor: `$VISUAL`, else `$EDITOR`, else `vi`, as git, crontab and less choose.
public enum ExternalEditor {
    /// The editor command from `environment`. Empty values count as unset.
    public static func command(environment: [String: String]) -> String {
        for name in ["VISUAL", "EDITOR"] {
            if let value = environment[name], value.contains(where: { $0 != " " && $0 != "\t" }) { return value }
        }
        return "vi"
    }

    /// The program's name for messages: the command's first word, without its folder
    /// (`code --wait` → "code", `/usr/bin/vim` → "vim").
    public static func name(of command: String) -> String {
        let first = command.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init) ?? command
        return first.split(separator: "/").last.map(String.init) ?? first
    }

    /// `/bin/sh -c 'COMMAND "$1"' byteclub FILE`: the shell splits the command as it would on
    /// a command line (so `code --wait` and `emacs -nw` work, quotes included), and the file
    /// goes in as `$1`, never through the shell's parsing, whatever its name holds.
    static func arguments(command: String, file: String) -> [String] {
        ["/bin/sh", "-c", command + " \"$1\"", "byteclub", file]
    }

    /// Runs `command` over `file` on this process's terminal and waits for it: the app through
    /// ``Terminal/runEditor(_:file:)``, the command line (`byteclub edit`) as it is.
    ///
    /// The child gets an empty signal mask and default dispositions for the signals this process
    /// blocks and ignores (SIGINT, SIGWINCH, …), which it would otherwise inherit: vim must see
    /// its own Ctrl-C and resizes.
    public static func run(_ command: String, file: String) -> ExternalProgramExit {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGWINCH, SIGQUIT, SIGTSTP, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        // POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK (glibc's spawn.h: 0x04 and 0x08).
        posix_spawnattr_setflags(&attributes, Int16(0x04 | 0x08))

        var argv: [UnsafeMutablePointer<CChar>?] = arguments(command: command, file: file).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, "/bin/sh", nil, &attributes, &argv, environ)
        guard status == 0 else { return .notStarted(String(cString: strerror(status))) }
        var waited: Int32 = 0
        while waitpid(pid, &waited, 0) < 0 {
            if errno != EINTR { return .notStarted("waitpid: " + String(cString: strerror(errno))) }
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which are macros.
        if waited & 0x7F == 0 { return .exited((waited >> 8) & 0xFF) }
        return .killed(signal: waited & 0x7F)
    }
}

extension Terminal {
    /// Hands the terminal to `command` editing `file`, waits for it, and takes the screen back
    /// exactly as it was, however the program ends.
    ///
    /// On the way out: mouse reports and bracketed paste off and curses' `endwin`, so the editor
    /// finds the terminal in its normal mode (``ExternalEditor/run(_:file:)`` starts it). On the way back: the
    /// modes on again, a full repaint, and a resize check (the window may have changed size
    /// meanwhile). The main queue waits while the editor runs; nothing else may read the
    /// keyboard then anyway.
    public func runEditor(_ command: String, file: String) -> ExternalProgramExit {
        writeToTerminal(Self.mouseReportsOff + Self.bracketedPasteOff)
        def_prog_mode()
        endwin()
        defer { takeScreenBack() }
        return ExternalEditor.run(command, file: file)
    }

    /// Curses, the modes and the whole screen back after another program had the terminal.
    private func takeScreenBack() {
        reset_prog_mode()
        writeToTerminal(Self.bracketedPasteOn)
        if options.mouse { writeToTerminal(Self.mouseReportsOn) }
        forceRedraw()
        send(.resize)
    }
}
