import Foundation
import Transfer

/// An add of bytes the file already holds is no conflict (issue 69): Dropbox answers an
/// identical upload in add mode with the file as it is, writing nothing, and so does a club
/// server (ClubServer's `CommitRule.unchanged`). WebDAV has no content hash to ask for, so the
/// file is read and compared byte for byte, and only when the add met a file of the body's size:
/// a taken name that differs costs one PROPFIND more, as before.
extension WebDAVStore {
    /// Whether the file at `path` holds exactly `body`'s bytes.
    func holds(_ body: Body, at path: String) async throws(RemoteError) -> Bool {
        let there: RemoteEntry
        do throws(RemoteError) {
            there = try await metadata(path)
        } catch .notFound(_) {
            return false
        }
        guard there.kind == .file, there.size == (try Self.length(of: body)) else { return false }
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-same-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: copy) }
        _ = try await downloadOverOneConnection(path, to: copy, resumeData: nil, progress: nil, onResumeData: nil)
        do {
            return try Self.sameBytes(body, as: copy)
        } catch {
            throw .local("Cannot compare \(path) with the file being put: \(error.localizedDescription)")
        }
    }

    /// How many bytes `body` sends.
    static func length(of body: Body) throws(RemoteError) -> Int64 {
        switch body {
        case .none: return 0
        case .data(let data): return Int64(data.count)
        case .source(let source): return source.length
        case .file(let file):
            guard let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value else {
                throw .local("Cannot read \(file.path)")
            }
            return size
        }
    }

    /// Compares `body` with the file at `local`, a chunk at a time (a file of any size in
    /// constant memory).
    static func sameBytes(_ body: Body, as local: URL) throws -> Bool {
        let theirs = try FileHandle(forReadingFrom: local)
        defer { try? theirs.close() }
        let chunk = 1 << 20
        switch body {
        case .none:
            return try theirs.read(upToCount: 1)?.isEmpty ?? true
        case .data(let data):
            var offset = 0
            while offset < data.count {
                let part = try theirs.read(upToCount: chunk) ?? Data()
                guard !part.isEmpty, data[data.startIndex + offset ..< data.startIndex + min(data.count, offset + part.count)] == part else { return false }
                offset += part.count
            }
            return try theirs.read(upToCount: 1)?.isEmpty ?? true
        case .file(let file):
            let ours = try FileHandle(forReadingFrom: file)
            defer { try? ours.close() }
            while true {
                let mine = try ours.read(upToCount: chunk) ?? Data()
                let other = try theirs.read(upToCount: chunk) ?? Data()
                guard mine == other else { return false }
                if mine.isEmpty { return true }
            }
        case .source(let source):
            let reader = try source.reader(offset: 0, length: source.length)
            var buffer = [UInt8](repeating: 0, count: chunk)
            while true {
                let count = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
                let other = try theirs.read(upToCount: max(count, 1)) ?? Data()
                if count == 0 { return other.isEmpty }
                guard other.count == count, other.elementsEqual(buffer[0..<count]) else { return false }
            }
        }
    }
}
