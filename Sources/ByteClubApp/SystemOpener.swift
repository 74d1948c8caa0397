import Foundation

/// Hands a file to the desktop: `$BYTECLUB_OPEN` when it is set (a program's name on the PATH,
/// or its path), else `xdg-open`, run detached from the terminal (its output would draw over
/// the screen, so it goes nowhere) with the file's path as its one argument.
enum SystemOpener {
    enum Outcome: Equatable {
        /// Started; the program's name, for the status bar.
        case opened(String)
        /// No `$BYTECLUB_OPEN` and no `xdg-open` on the PATH (a server, a container).
        case noOpener
        /// The program could not be started, and why.
        case failed(String)
    }

    static func open(_ argument: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> Outcome {
        let own = environment["BYTECLUB_OPEN"].flatMap { $0.isEmpty ? nil : $0 }
        let chosen = own ?? "xdg-open"
        let executable: String?
        if chosen.contains("/") {
            executable = FileManager.default.isExecutableFile(atPath: chosen) ? chosen : nil
        } else {
            executable = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map { String($0) + "/" + chosen }
                .first { FileManager.default.isExecutableFile(atPath: $0) }
        }
        guard let executable else {
            return own == nil ? .noOpener : .failed("BYTECLUB_OPEN names \(chosen), which is no program here")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [argument]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return .failed(error.localizedDescription)
        }
        return .opened((chosen as NSString).lastPathComponent)
    }
}
