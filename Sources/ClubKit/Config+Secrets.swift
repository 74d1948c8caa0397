import ByteClubConfig
import Foundation

/// Runs a config's `token_command` or `password_command` and takes its secret.
///
/// The command runs through `/bin/sh -c`, as a user would type it (`pass show byteclub/club`),
/// with our stdin and stderr, so a GPG agent or a password manager can ask its own questions.
/// Its first line of stdout is the secret; the rest is ignored. The secret reaches no log, no
/// message and no process title: it comes back through a pipe, and a failure says what failed
/// (which command key of which remote, and how) but never what was printed.
public enum SecretCommand {
    /// Why a command gave no secret (messages hold no output).
    public enum Failure: Error, Equatable {
        case couldNotStart(String)
        case exited(Int32)
        case killed(Int32)
        case printedNothing

        public var explanation: String {
            switch self {
            case .couldNotStart(let reason): return "could not be run (\(reason))"
            case .exited(let status): return "failed (exit status \(status))"
            case .killed(let signal): return "was killed by signal \(signal)"
            case .printedNothing: return "printed nothing on its first line"
            }
        }
    }

    /// The first line of what `command` prints on stdout.
    public static func run(_ command: String) throws(Failure) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let output = Pipe()
        process.standardOutput = output
        do {
            try process.run()
        } catch {
            throw .couldNotStart(error.localizedDescription)
        }
        // Read to the end before waiting: a command printing more than a pipe holds would
        // otherwise block for ever on a full pipe.
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        if process.terminationReason == .uncaughtSignal { throw .killed(process.terminationStatus) }
        guard process.terminationStatus == 0 else { throw .exited(process.terminationStatus) }
        var line = String(decoding: data, as: UTF8.self).split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first
            .map(String.init) ?? ""
        if line.hasSuffix("\r") { line.removeLast() }
        guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { throw .printedNothing }
        return line
    }
}

extension ClubConfig {
    /// The config at `file` (the user's own by default), or nil when there is none; `~/` in it
    /// means `$HOME`.
    public static func load(from file: URL = Paths.config) throws(ConfigError) -> ClubConfig? {
        try load(from: file, home: Paths.home)
    }


    /// The token for a club remote, from the file's `token`, its `token_file` or its `token_command`; nil when it
    /// has neither (the caller then falls back to `BYTECLUB_TOKEN`).
    ///
    /// The remote's own token comes before the environment's: `BYTECLUB_TOKEN`, set for one
    /// server, must never be sent to another that has its own.
    public func token(for remote: RemoteConfig) throws(ConfigError) -> String? {
        if let token = remote.token {
            guard !token.isEmpty else {
                throw problem(remote, key: "token", message: "the token of remote \"\(remote.name)\" is empty")
            }
            return token
        }
        if let file = remote.tokenFile {
            // Kept by `byteclub join`: the first line, as a token_command's.
            guard let data = FileManager.default.contents(atPath: file.path),
                  let line = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first, !line.isEmpty else {
                throw problem(remote, key: "token_file", message: "the token_file of remote \"\(remote.name)\" (\(file.path)) cannot be read or is empty")
            }
            return String(line)
        }
        guard let command = remote.tokenCommand else { return nil }
        return try secret(remote, key: "token_command", command: command)
    }

    /// The WebDAV password: the remote's own `password_command`, then `BYTECLUB_WEBDAV_PASSWORD`;
    /// nil when neither gives one (the caller then asks on the terminal). The remote's own
    /// command comes first, as a club remote's token does, so that a password exported for one
    /// server is never sent to another remote that says where its password is.
    public func password(for remote: RemoteConfig, environment: [String: String] = Paths.environment) throws(ConfigError) -> String? {
        if let command = remote.passwordCommand { return try secret(remote, key: "password_command", command: command) }
        if let password = environment["BYTECLUB_WEBDAV_PASSWORD"], !password.isEmpty { return password }
        return nil
    }

    private func secret(_ remote: RemoteConfig, key: String, command: String) throws(ConfigError) -> String {
        do {
            return try SecretCommand.run(command)
        } catch {
            throw problem(remote, key: key, message: "the \(key) of remote \"\(remote.name)\" \(error.explanation)")
        }
    }

    private func problem(_ remote: RemoteConfig, key: String, message: String) -> ConfigError {
        let path = ["remote", remote.name, key]
        return ConfigError(file: file, line: ConfigLines.line(of: path, in: text), key: path.joined(separator: "."), message: message)
    }
}
