import Dispatch
import Foundation
internal import CTerminalShim

/// `--images`: ask the terminal, or force a mode.
public enum ImagesOption: Equatable, Sendable {
    case auto
    case forced(PixelMode)

    /// `auto`, `kitty`, `iterm`, `sixel` or `symbols`; nil for anything else.
    public init?(argument: String) {
        if argument == "auto" {
            self = .auto
        } else if let mode = PixelMode(rawValue: argument) {
            self = .forced(mode)
        } else {
            return nil
        }
    }
}

extension Terminal {
    /// Asks the terminal what it can draw (see ``GraphicsDetection``), or takes the forced mode.
    ///
    /// Nothing waits for the answers: the app draws symbols until they are in, and the
    /// deadline settles it for a terminal that never answers. Once settled, every cell is
    /// repainted, which also wipes any question a terminal printed instead of reading.
    func startGraphicsDetection() {
        let environment = ProcessInfo.processInfo.environment
        let inTmux = !(environment["TMUX"] ?? "").isEmpty
        let passthrough = inTmux && Self.tmuxAllowsPassthrough()
        graphics.wrapsForTmux = inTmux && passthrough
        graphics.tmuxWithoutPassthrough = inTmux && !passthrough
        updateCellSize()
        switch options.images {
        case .forced(let mode):
            graphics.mode = mode
            return
        case .auto:
            break
        }
        // The Linux console shows an APC string as text and has no pixels to offer.
        guard environment["TERM"] != "linux", !(inTmux && !passthrough) else {
            onGraphicsDetected?(nil)
            return
        }
        let detection = GraphicsDetection(inTmux: inTmux, tmuxPassthrough: passthrough, cellSize: windowCellSize())
        self.detection = detection
        decoder.awaitingReplies = true
        writeToTerminal(detection.questions)
        DispatchQueue.main.asyncAfter(deadline: .now() + options.queryDeadline) { [weak self] in
            MainActor.assumeIsolated {
                guard let self, var current = self.detection, current.timeOut() else { return }
                self.detection = current
                self.finishGraphicsDetection()
            }
        }
    }

    /// Feeds answers taken out of the input to the detection.
    func handleReplies(_ replies: [TerminalReply]) {
        guard var detection, !replies.isEmpty else { return }
        var finished = false
        for reply in replies where detection.receive(reply) { finished = true }
        self.detection = detection
        if finished { finishGraphicsDetection() }
    }

    private func finishGraphicsDetection() {
        decoder.awaitingReplies = false
        // A lone ESC held in case it began an answer is the Esc key after all.
        for key in decoder.flush() { send(key) }
        guard let detection else { return }
        if let size = detection.cellSize, (1...1000).contains(size.width), (1...1000).contains(size.height) { graphics.cellSize = size }
        graphics.mode = detection.mode
        onGraphicsDetected?(detection)
        forceRedraw()
    }

    /// A cell in pixels from the kernel's window size, when the terminal filled in its pixels.
    func windowCellSize() -> Size? {
        var width: Int32 = 0, height: Int32 = 0, rows: Int32 = 0, columns: Int32 = 0
        guard bc_window_pixels(STDOUT_FILENO, &width, &height) != 0, bc_window_size(STDOUT_FILENO, &rows, &columns) != 0,
              width > 0, height > 0, rows > 0, columns > 0 else { return nil }
        // Pixel fields smaller than the cell counts (a terminal filling them in badly) say nothing.
        guard width >= columns, height >= rows else { return nil }
        return Size(width: Int(width / columns), height: Int(height / rows))
    }

    /// Takes the cell size from the kernel after a resize (fonts can change with it).
    func updateCellSize() {
        if let size = windowCellSize(), size.width > 0, size.height > 0 { graphics.cellSize = size }
    }

    /// Writes raw bytes after curses' own output.
    func writeBytes(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        var offset = 0
        bytes.withUnsafeBytes { buffer in
            while offset < buffer.count {
                let written = write(STDOUT_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR || errno == EAGAIN {
                    continue
                } else {
                    return
                }
            }
        }
    }

    /// Whether tmux lets sequences through to the terminal outside (`allow-passthrough` is
    /// `on` or `all`); asks tmux itself, and says no if it cannot be asked.
    nonisolated static func tmuxAllowsPassthrough() -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["tmux", "show", "-gv", "allow-passthrough"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return false }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let answer = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return process.terminationStatus == 0 && (answer == "on" || answer == "all")
    }
}
