import DropboxWire
import Foundation
import Transfer

/// Every way a remote operation fails, each with a one-line message for people.
/// Messages never include tokens or request headers.
///
/// The details often come from the server (an error body, a path in its answer), so
/// ``message`` is shown through ``TerminalSafe``: control characters become `\x1b`-style
/// escapes, and whoever prints a message, the CLI or the status bar, prints one safe line.
public enum RemoteError: Error, Sendable, Equatable, CustomStringConvertible {
    case notFound(String)
    case conflict(String)
    /// The server refused who we said we are; the credential says what to do about it.
    case unauthorized(Credential)
    case rateLimited(retryAfter: TimeInterval)
    case insufficientSpace
    case malformedPath(String)
    /// The server failed or answered something we cannot use (status 0: no status).
    case server(status: Int, detail: String)
    case network(String)
    /// The server sent nothing for `seconds`, the idle timeout the user set (`--timeout`): said
    /// then, never tried again, so a server that accepts and never answers costs what was asked.
    case stalled(seconds: TimeInterval)
    /// A reverse proxy answered for the server (502, 503 or 504 with a page of its own, not the
    /// server's answer): the server behind it cannot be reached. `proxy` is its host and port;
    /// `retryAfter` its `Retry-After`, when it said how long to wait.
    case gateway(status: Int, proxy: String, retryAfter: TimeInterval?)
    case cancelled
    /// A local file could not be read or written.
    case local(String)
    /// A change cursor the server no longer knows (Dropbox's `reset`): list the folder again.
    case cursorReset
    /// This kind of remote cannot do that (a WebDAV folder has no revisions, say).
    case notSupported(String)
    /// The club will not take this change from this member, and never will as things stand: a
    /// reader's write (Dropbox's `no_write_permission`, WebDAV's 403), or a write by a member
    /// removed from an encrypted club. Never retried and never queued to wait: the writer is
    /// told at once, with the sentence given, and the text stays a draft.
    case forbidden(String)
    /// Changes queued on this machine still write into the path, so it is not deleted yet (the
    /// outbox's rule, the same from both shells): said with the sentence given; it can be done
    /// once they are sent (`byteclub outbox --send`).
    case waiting(String)

    public var description: String { message }

    /// One line for people, with every control character escaped (``TerminalSafe``).
    public var message: String { TerminalSafe.escape(rawMessage) }

    /// The message as composed, before escaping.
    private var rawMessage: String {
        switch self {
        case .notFound(let path): return "Not found: \(path.isEmpty ? "/" : path)"
        case .conflict(let path): return "Conflict: \(path) was changed by someone else"
        case .unauthorized(let credential): return "Not authorized: " + credential.refusal
        case .rateLimited(let seconds): return "The server is busy; retry in \(Int(seconds.rounded(.up))) s"
        case .insufficientSpace: return "No space left on the server"
        case .malformedPath(let path): return "Not a valid path: \(path)"
        case .server(let status, let detail): return status == 0 ? "Server error: \(detail)" : "Server error \(status): \(detail)"
        case .network(let detail): return "Network error: \(detail)"
        case .stalled(let seconds):
            let shown = seconds == seconds.rounded() ? String(Int(seconds)) : String(format: "%.1f", seconds)
            return "Timed out: the server sent nothing for \(shown) s (--timeout sets how long to wait)"
        case .gateway(let status, let proxy, let retryAfter):
            // A short sentence, never the proxy's HTML page.
            let wait = retryAfter.map { "; it asks to wait \(Int($0.rounded(.up))) s" } ?? ""
            return "The proxy at \(proxy) answered \(status) \(Self.reasons[status] ?? "")".trimmingCharacters(in: .whitespaces)
                + ": the server behind it cannot be reached\(wait)"
        case .cancelled: return "Cancelled"
        case .local(let detail): return detail
        case .cursorReset: return "The server no longer knows this cursor (reset); list the folder again"
        case .notSupported(let what): return "Not supported by this remote: \(what)"
        case .forbidden(let why): return why
        case .waiting(let why): return why
        }
    }

    /// What a server refused, so that the message says how to get another: a club member's token
    /// comes only from the club's admin, a Dropbox login from logging in again, and a WebDAV
    /// password from wherever this machine keeps it.
    public enum Credential: Sendable, Equatable {
        /// A club member's token (`--token`, `token_command`, `byteclub join`).
        case memberToken
        /// The tokens of `byteclub login dropbox`.
        case dropboxLogin
        /// A WebDAV user's password (BYTECLUB_WEBDAV_PASSWORD, `password_command`, the prompt).
        case webdavPassword

        /// The sentence after "Not authorized: ".
        var refusal: String {
            switch self {
            case .memberToken:
                return "the club refused this member's token; ask the club's admin for a new invite (byteclub members add)"
            case .dropboxLogin:
                return "Dropbox refused the login; log in again (byteclub login dropbox)"
            case .webdavPassword:
                return "the WebDAV server refused the password; check BYTECLUB_WEBDAV_PASSWORD or the remote's password_command"
            }
        }
    }

    /// A read-only member's refusal: the club server says so of a reader, Dropbox of a viewer
    /// of a shared folder.
    public static func readOnlyRefusal(_ path: String) -> String {
        "You may only read in this club, not change \(path.isEmpty ? "/" : path) (a reader; an admin gives the editor role with byteclub members role)"
    }

    /// The server could not be reached at all (refused, reset, timed out, no route), or a
    /// gateway in front of it said it could not reach it (``gatewayStatuses``): the app goes
    /// offline and queues what it would have sent.
    public var isUnreachable: Bool {
        switch self {
        case .network, .gateway, .stalled: return true
        case .server(let status, _): return Self.gatewayStatuses.contains(status)
        default: return false
        }
    }

    /// Nothing listens at the server's address: the connection was refused (`ECONNREFUSED`),
    /// which a machine answers at once. Said as such within a second, never waited out as an
    /// outage (``RetryPolicy/refusedAttempts``).
    public var isRefused: Bool {
        guard case .network(let detail) = self else { return false }
        return detail.hasSuffix("(\(TransferError.refusedReason))")
    }

    /// How long the server (or the proxy in front of it) asked us to wait, when it said.
    public var retryAfter: TimeInterval? {
        switch self {
        case .rateLimited(let seconds): return seconds
        case .gateway(_, _, let seconds): return seconds
        default: return nil
        }
    }

    static let reasons = [502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout"]

    /// What a reverse proxy (nginx, Caddy, a load balancer) answers when the server behind it is
    /// down, restarting or silent: 502 Bad Gateway, 503 Service Unavailable, 504 Gateway
    /// Timeout. The connection worked, but nothing reached the club, so for the app this is
    /// offline, not an answer: a save waits in the outbox instead of failing. (A 503 with
    /// `Retry-After` from WebDAV is a rate limit, ``rateLimited(retryAfter:)``, and a 429 always is.)
    public static let gatewayStatuses: Set<Int> = [502, 503, 504]

    /// Worth retrying the same request later.
    public var isTransient: Bool {
        switch self {
        case .rateLimited, .network, .gateway, .stalled: return true
        case .server(let status, _): return status == 0 || status >= 500
        default: return false
        }
    }
}
