import Foundation
import Transfer

extension WebDAVStore {
    /// The whole folder in one page: PROPFIND `Depth: 1` has no paging.
    public func listPage(_ folder: String, cursor: String?, limit: Int) async throws(RemoteError) -> (entries: [RemoteEntry], next: String?) {
        (try await listFolder(folder), nil)
    }

    public func list(_ folder: String) async throws(RemoteError) -> [RemoteEntry] {
        try await listFolder(folder)
    }

    /// The folder's children. Every href must lie inside the folder asked for (the folder itself
    /// is dropped): an answer naming anything else is refused whole, as a Dropbox listing is.
    func listFolder(_ folder: String) async throws(RemoteError) -> [RemoteEntry] {
        try await listWithETag(folder).entries
    }

    public func metadata(_ path: String) async throws(RemoteError) -> RemoteEntry {
        let resources = try await propfind(path, depth: "0")
        guard let first = resources.first(where: { $0.status.map { (200..<300).contains($0) } ?? true }), let entry = entry(first),
              entry.path == path || path.isEmpty else {
            throw .server(status: 0, detail: "the server answered PROPFIND on \(path) about something else")
        }
        return entry
    }

    /// Files under `folder` with one of `extensions`, folder by folder with `Depth: 1` (many
    /// servers refuse `Depth: infinity`), within the listing limits.
    public func search(in folder: String, extensions: [String]) async throws(RemoteError) -> [RemoteEntry] {
        let wanted = Set(extensions.map { $0.lowercased() })
        var matches: [RemoteEntry] = []
        var folders = [folder]
        var seen = 0
        while let next = folders.popLast() {
            for entry in try await listFolder(next) {
                seen += 1
                if seen > listingLimits.maxEntries {
                    throw .server(status: 0, detail: "the search of \(folder.isEmpty ? "/" : folder) passed \(listingLimits.maxEntries) entries; stopped")
                }
                if entry.kind == .folder {
                    folders.append(entry.path)
                } else if let dot = entry.name.lastIndex(of: "."), wanted.contains(entry.name[entry.name.index(after: dot)...].lowercased()) {
                    matches.append(entry)
                }
            }
        }
        return matches
    }

    public func delete(_ path: String) async throws(RemoteError) -> RemoteEntry {
        guard !path.isEmpty else { throw .malformedPath(path) }
        let entry = try await metadata(path)
        do throws(RemoteError) {
            _ = try await send("DELETE", try url(path, folder: entry.kind == .folder), path: path)
        } catch {
            throw await readOnlyOr(error, writing: path)
        }
        return entry
    }

    /// Moves with `Overwrite: F`: an existing target is a conflict (or, with `autorename`,
    /// the next free name "name (1).txt" is taken).
    public func move(from: String, to: String, autorename: Bool) async throws(RemoteError) -> RemoteEntry {
        try await relocate("MOVE", from: from, to: to, autorename: autorename, overwrite: false)
    }

    /// MOVE, replacing what is at `to` when `overwrite` (`Overwrite: T`).
    public func move(from: String, to: String, overwrite: Bool) async throws(RemoteError) -> RemoteEntry {
        try await relocate("MOVE", from: from, to: to, autorename: false, overwrite: overwrite)
    }

    public func copy(from: String, to: String, autorename: Bool) async throws(RemoteError) -> RemoteEntry {
        try await relocate("COPY", from: from, to: to, autorename: autorename, overwrite: false)
    }

    /// COPY, replacing what is at `to` when `overwrite` (`Overwrite: T`).
    public func copy(from: String, to: String, overwrite: Bool) async throws(RemoteError) -> RemoteEntry {
        try await relocate("COPY", from: from, to: to, autorename: false, overwrite: overwrite)
    }

    /// MOVE or COPY with an explicit `Overwrite` header (servers default to T, which would
    /// replace a file silently).
    private func relocate(_ method: String, from: String, to: String, autorename: Bool, overwrite: Bool) async throws(RemoteError) -> RemoteEntry {
        do throws(RemoteError) {
            return try await relocateOnce(method, from: from, to: to, autorename: autorename, overwrite: overwrite)
        } catch {
            throw await readOnlyOr(error, writing: to)
        }
    }

    private func relocateOnce(_ method: String, from: String, to: String, autorename: Bool, overwrite: Bool) async throws(RemoteError) -> RemoteEntry {
        guard !from.isEmpty, !to.isEmpty else { throw .malformedPath(from.isEmpty ? from : to) }
        let source = try await metadata(from)
        let folder = source.kind == .folder
        var madeParents = false
        var candidates = Self.candidates(to, autorename: autorename)[...]
        while let candidate = candidates.first {
            do throws(RemoteError) {
                _ = try await send(method, try url(from, folder: folder), path: candidate,
                                   headers: ["Destination": try url(candidate, folder: folder).absoluteString, "Overwrite": overwrite ? "T" : "F",
                                             "Depth": "infinity"])
                return try await metadata(candidate)
            } catch .conflict(_) where autorename {
                candidates = candidates.dropFirst()
            } catch let error where !madeParents && Self.mayBeMissingParent(error) {
                // The source was there a moment ago; if the target's folder is missing (409 by
                // RFC 4918, 403 from rclone), make it, as Dropbox's move and copy do, and try
                // once more.
                let parent = Self.parent(of: candidate)
                do throws(RemoteError) {
                    if !parent.isEmpty { _ = try await metadata(parent) }
                    throw error
                } catch .notFound(_) {
                    madeParents = true
                    try await makeParents(of: candidate)
                }
            }
        }
        throw .conflict(to)
    }

    /// MKCOL, making missing parents first, as Dropbox's create_folder does.
    public func createFolder(_ path: String) async throws(RemoteError) -> RemoteEntry {
        guard !path.isEmpty else { throw .malformedPath(path) }
        // Some servers (rclone) answer MKCOL on an existing folder 201: ask first.
        do throws(RemoteError) {
            _ = try await metadata(path)
            throw RemoteError.conflict(path)
        } catch .notFound(_) {}
        do throws(RemoteError) {
            try await makeParents(of: path)
            _ = try await send("MKCOL", try url(path, folder: true), path: path)
        } catch {
            throw await readOnlyOr(error, writing: path, makingFolders: true)
        }
        return try await metadata(path)
    }

    /// MKCOL for every missing folder above `path`, from the top; existing ones answer 405.
    func makeParents(of path: String) async throws(RemoteError) {
        let parts = path.split(separator: "/").dropLast()
        var current = ""
        for part in parts {
            current += "/" + part
            let reply = await exchange("MKCOL", try url(current, folder: true))
            guard let error = reply.error else { continue }
            if reply.status == 405 || reply.status == 301 { continue }
            throw Self.remoteError(error, response: reply.response, path: current, method: "MKCOL")
        }
    }

    /// A MOVE or COPY failure that a missing target folder explains.
    static func mayBeMissingParent(_ error: RemoteError) -> Bool {
        switch error {
        case .notFound, .forbidden, .server(403, _), .server(409, _): return true
        default: return false
        }
    }

    /// "/a/b.txt" → "/a"; "/b.txt" → "".
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[..<slash])
    }

    /// `path`, then (with `autorename`) "name (1).ext", "name (2).ext", … as Dropbox names them.
    static func candidates(_ path: String, autorename: Bool) -> [String] {
        guard autorename else { return [path] }
        let folder = parent(of: path)
        let name = String(path.dropFirst(folder.count + 1))
        let dot = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : $0 }
        let stem = dot.map { String(name[..<$0]) } ?? name
        let ext = dot.map { String(name[$0...]) } ?? ""
        return [path] + (1...99).map { "\(folder)/\(stem) (\($0))\(ext)" }
    }
}
