import ArgumentParser
import ClubKit
import Foundation
import Logging
import Remote
#if canImport(Glibc)
import Glibc
#endif

extension BackendOptions {
    /// `--webdav URL --user NAME`: an http(s) URL, a user, and no other backend beside them.
    func validateWebDAV() throws {
        guard let webdav else {
            if user != nil { throw ValidationError("--user goes with --webdav URL") }
            return
        }
        if server != nil || dropbox { throw ValidationError("use one of --webdav, --server or --dropbox") }
        guard let url = URL(string: webdav), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
            throw ValidationError("--webdav must be an http:// or https:// URL, e.g. https://cloud.example.org/remote.php/dav/files/ray/")
        }
        guard url.user == nil, url.password == nil else {
            throw ValidationError("put no user or password in the --webdav URL: use --user, and BYTECLUB_WEBDAV_PASSWORD or the prompt")
        }
        guard let user, !user.isEmpty else { throw ValidationError("--webdav needs --user NAME") }
    }
}

/// Where a WebDAV password comes from: `BYTECLUB_WEBDAV_PASSWORD`, else a prompt on the
/// terminal with echo off. It is never an argument, so it shows in no process title.
enum WebDAVPassword {
    static let variable = "BYTECLUB_WEBDAV_PASSWORD"

    ///
    /// No password at all is an authentication failure, as a refused one is: it says why and
    /// exits 5 (not 64, a usage error), so a script can tell it from a typo in its flags.
    static func obtain(user: String, url: URL) throws -> String {
        if let password = Paths.variable(variable), !password.isEmpty { return password }
        guard isatty(STDIN_FILENO) == 1 else {
            throw missing("--webdav needs a password: set \(variable), or run byteclub on a terminal to be asked")
        }
        // Ctrl-C or Ctrl-D at the prompt: stop as an interrupted command does, the terminal restored.
        guard let password = prompt("Password for \(user) at \(url.host ?? url.absoluteString): ") else { throw ExitCode(130) }
        guard !password.isEmpty else { throw missing("no password given for \(user)") }
        return password
    }

    /// Says `message` on stderr and gives the authentication exit status (5).
    private static func missing(_ message: String) -> ExitCode {
        say(message)
        return ExitCode(5)
    }

    /// Reads one line from the terminal with echo off, restoring the terminal's mode on every
    /// path; nil when the user gives up with Ctrl-C or Ctrl-D.
    ///
    /// The terminal's own signals are off while it reads (Ctrl-C arrives as a byte), so that a
    /// Ctrl-C cannot kill the process with echo still off; line editing is done here instead.
    ///
    /// Echo goes off before the prompt is shown, as getpass(3) does: what was typed before it
    /// is dropped, and nothing typed once it shows is dropped or echoed (the prompt came first
    /// once, and a password typed at once was echoed, then flushed, and the read waited forever).
    private static func prompt(_ text: String) -> String? {
        var saved = termios()
        let hasMode = tcgetattr(STDIN_FILENO, &saved) == 0
        if hasMode {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG)
            withUnsafeMutableBytes(of: &quiet.c_cc) { cc in
                cc[Int(VMIN)] = 1
                cc[Int(VTIME)] = 0
            }
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
        }
        FileHandle.standardError.write(Data(text.utf8))
        defer {
            // TCSADRAIN, not TCSAFLUSH: keys typed after Enter stay for the app.
            if hasMode { tcsetattr(STDIN_FILENO, TCSADRAIN, &saved) }
            FileHandle.standardError.write(Data("\n".utf8))
        }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(STDIN_FILENO, &byte, 1) == 1 {
            switch byte {
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"): return String(decoding: line, as: UTF8.self)
            case 0x03: return nil                                  // Ctrl-C
            case 0x04 where line.isEmpty: return nil               // Ctrl-D on an empty line
            case 0x15: line.removeAll()                            // Ctrl-U
            case 0x7F, 0x08:                                       // Backspace: one character
                while let last = line.popLast(), last & 0xC0 == 0x80 {}
            default: line.append(byte)
            }
        }
        return String(decoding: line, as: UTF8.self)
    }
}
