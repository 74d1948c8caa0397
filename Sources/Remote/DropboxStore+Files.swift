import DropboxWire
import Foundation
import Transfer

extension DropboxStore {
    public func listPage(_ folder: String, cursor: String?, limit: Int) async throws(RemoteError) -> (entries: [RemoteEntry], next: String?) {
        let page: ListFolderResult
        if let cursor {
            page = try await rpc(.listFolderContinue, ["cursor": cursor], path: folder, idempotent: true, decoding: ListFolderResult.self)
        } else {
            page = try await rpc(.listFolder, ["path": folder, "recursive": false, "limit": max(1, min(2000, limit))],
                                 path: folder, idempotent: true, decoding: ListFolderResult.self)
        }
        var entries: [RemoteEntry] = []
        entries.reserveCapacity(page.entries.count)
        for item in page.entries { entries.append(try Self.entry(item, in: folder)) }
        return (entries, page.hasMore ? page.cursor : nil)
    }

    /// An entry of an answer about `folder`, refused if its path lies outside it.
    static func entry(_ metadata: Metadata, in folder: String) throws(RemoteError) -> RemoteEntry {
        let entry = try RemoteEntry(metadata)
        try ListingGuard.check(entry, in: folder)
        return entry
    }

    /// Every entry of a folder. If the folder changes while paging (Dropbox's `reset`), it
    /// starts over, so the result is never a mix of two states. A listing that never ends
    /// stops at ``listingLimits``.
    public func list(_ folder: String) async throws(RemoteError) -> [RemoteEntry] {
        var restarts = 0
        while true {
            do {
                var entries: [RemoteEntry] = []
                try await forEachPage(of: folder) { entries += $0 }
                return entries
            } catch .cursorReset where restarts < 5 {
                restarts += 1
            }
        }
    }

    /// Pages as they arrive, within ``listingLimits``. Unlike ``list(_:)`` it cannot start
    /// over on a `reset` (the pages before it are handed over already): that throws
    /// `.cursorReset`, and the caller lists again.
    /// The next page is asked for while this one is decoded and handed over
    /// (``forEachPipelinedPage(_:recursive:limits:_:)``), so `byteclub ls` of a big folder costs
    /// the server's time or its own, not both added.
    public func forEachPage(of folder: String, _ each: (_ page: [RemoteEntry]) async -> Void) async throws(RemoteError) {
        try await forEachPipelinedPage(folder, recursive: false, limits: listingLimits) { (page: ListFolderResult) async throws(RemoteError) in
            var entries: [RemoteEntry] = []
            entries.reserveCapacity(page.entries.count)
            for item in page.entries { entries.append(try Self.entry(item, in: folder)) }
            await each(entries)
        }
    }

    public func metadata(_ path: String) async throws(RemoteError) -> RemoteEntry {
        try RemoteEntry(try await rpc(.getMetadata, ["path": path], path: path, idempotent: true, decoding: Metadata.self))
    }

    public func search(in folder: String, extensions: [String]) async throws(RemoteError) -> [RemoteEntry] {
        var matches: [RemoteEntry] = []
        var reply: SearchResult
        do {
            reply = try await rpc(.search, ["query": "", "options": ["path": folder, "file_extensions": extensions, "max_results": 1000, "filename_only": true]],
                                  path: folder, idempotent: true, decoding: SearchResult.self)
        } catch .server(400, _) {
            // Servers that insist on a query word: list the folder instead.
            return try await listRecursive(folder).filter { entry in
                entry.kind == .file && extensions.contains { entry.name.lowercased().hasSuffix("." + $0.lowercased()) }
            }
        }
        var paging = ListingGuard(folder: folder, limits: listingLimits)
        while true {
            try paging.page(count: reply.matches.count, next: reply.hasMore ? reply.cursor : nil)
            for match in reply.matches { matches.append(try Self.entry(match.metadata, in: folder)) }
            guard reply.hasMore, let cursor = reply.cursor else { return matches }
            reply = try await rpc(.searchContinue, ["cursor": cursor], path: folder, idempotent: true, decoding: SearchResult.self)
        }
    }

    func listRecursive(_ folder: String) async throws(RemoteError) -> [RemoteEntry] {
        var entries: [RemoteEntry] = []
        var reply = try await rpc(.listFolder, ["path": folder, "recursive": true, "limit": 2000], path: folder, idempotent: true,
                                  decoding: ListFolderResult.self)
        var paging = ListingGuard(folder: folder, limits: listingLimits)
        while true {
            try paging.page(count: reply.entries.count, next: reply.hasMore ? reply.cursor : nil)
            for item in reply.entries { entries.append(try Self.entry(item, in: folder)) }
            guard reply.hasMore else { return entries }
            reply = try await rpc(.listFolderContinue, ["cursor": reply.cursor], path: folder, idempotent: true, decoding: ListFolderResult.self)
        }
    }

    public func thumbnail(_ path: String, size: ThumbnailSize) async throws(RemoteError) -> Data {
        let argument = ThumbnailArgument(path: path, format: .jpeg, size: size, mode: .strict)
        return try await withRetries(idempotent: true) { () async throws(RemoteError) -> Data in
            let request = try await self.request(.thumbnail, arg: argument)
            let reply = await self.exchange(request, body: .none)
            do throws(RemoteError) {
                try self.check(reply, path: path)
            } catch .server(409, let detail) where detail.hasPrefix("unsupported_extension") {
                // Dropbox makes none of an SVG (nor an older club server of a PNG): the app
                // makes it from the picture, as for a store with no thumbnails.
                throw .notSupported("thumbnails of \((path as NSString).pathExtension) files")
            }
            guard reply.body.count > 2, reply.body.prefix(2) == Data([0xFF, 0xD8]) else {
                throw .server(status: 0, detail: "the thumbnail is not a JPEG")
            }
            return reply.body
        }
    }

    public func delete(_ path: String) async throws(RemoteError) -> RemoteEntry {
        try RemoteEntry(try await rpc(.delete, ["path": path], path: path, idempotent: false, decoding: MetadataResult.self).metadata)
    }

    /// A missing source is `.notFound(from)` (the message names the path that is missing, not
    /// the destination); a taken destination `.conflict(to)`.
    public func move(from: String, to: String, autorename: Bool) async throws(RemoteError) -> RemoteEntry {
        do {
            return try RemoteEntry(try await rpc(.move, ["from_path": from, "to_path": to, "autorename": autorename], path: to,
                                                 idempotent: false, decoding: MetadataResult.self).metadata)
        } catch .notFound {
            // `from_lookup/not_found`: the destination's folders are made as needed, so only the
            // source can be missing.
            throw .notFound(from)
        }
    }

    public func createFolder(_ path: String) async throws(RemoteError) -> RemoteEntry {
        try RemoteEntry(try await rpc(.createFolder, ["path": path, "autorename": false], path: path, idempotent: false,
                                      decoding: MetadataResult.self).metadata)
    }

    // MARK: - Download

    /// Over ``TransferStreams/automatic(for:)`` streams when the file is large (``download(_:to:resumeData:progress:onResumeData:streams:)``).
    public func download(_ path: String, to destination: URL, resumeData: Data?, progress: ProgressHandler?,
                         onResumeData: (@Sendable (Data) -> Void)?) async throws(RemoteError) -> RemoteEntry {
        try await download(path, to: destination, resumeData: resumeData, progress: progress, onResumeData: onResumeData,
                           streams: nil)
    }

    /// One connection, resuming from `resumeData` when given.
    func downloadOverOneConnection(_ path: String, to destination: URL, resumeData: Data?, progress: ProgressHandler?,
                                   onResumeData: (@Sendable (Data) -> Void)?) async throws(RemoteError) -> RemoteEntry {
        var resume = resumeData
        return try await withRetries(idempotent: true) { () async throws(RemoteError) -> RemoteEntry in
            let request = try await self.request(.download, arg: ["path": path])
            let attempt = await self.downloadOnce(request, path: path, resumeData: resume, destination: destination, progress: progress, onResumeData: onResumeData)
            return try attempt.entry(resuming: &resume)
        }
    }

    enum DownloadAttempt: Sendable {
        case success(RemoteEntry)
        case failure(RemoteError, partial: Data?)
    }

    private func downloadOnce(_ request: Request, path: String, resumeData: Data?, destination: URL, progress: ProgressHandler?,
                              onResumeData: (@Sendable (Data) -> Void)?) async -> DownloadAttempt {
        let credential = credential
        return await session.runDownload(request, resumeData: resumeData, rebase: { decoded in
            // Resume data never stores the token; add the current one. The endpoint is
            // today's too: an embedded server listens on a new port in every run.
            decoded.url = request.url
            decoded.headers["Authorization"] = request.header("Authorization")
            decoded.headers["Dropbox-API-Arg"] = request.header("Dropbox-API-Arg")
        }, router: router, progress: progress, onResumeData: onResumeData, failure: { error, response in
            Self.remoteError(error, response: response, path: path, credential: credential)
        }, finish: { location, response in
            Self.finishDownload(location: location, response: response, destination: destination)
        })
    }

    /// Places a finished download and describes it from its Dropbox-API-Result header.
    private static func finishDownload(location: URL, response: HTTPResponse, destination: URL) -> DownloadAttempt {
        let entry: RemoteEntry
        do { entry = try resultEntry(response) } catch { return .failure(error, partial: nil) }
        do {
            try place(location, at: destination)
        } catch {
            return .failure(error, partial: nil)
        }
        return .success(entry)
    }

    static func resultEntry(_ response: HTTPResponse) throws(RemoteError) -> RemoteEntry {
        guard let text = response.value(forHeader: "Dropbox-API-Result"), let data = text.data(using: .utf8) else {
            throw .server(status: 0, detail: "the download had no Dropbox-API-Result header")
        }
        return try RemoteEntry(try decode(FileMetadata.self, from: data))
    }

    /// Moves a finished download into place atomically, replacing what was there: by name,
    /// relative to the destination's folder held open (``LocalFolder``), so a symlink at the
    /// name is replaced and never followed. The folder is the caller's (created if missing);
    /// the name must be one safe path component.
    static func place(_ location: URL, at destination: URL) throws(RemoteError) {
        let folder = try LocalFolder(destination.deletingLastPathComponent(), create: true)
        try folder.moveIn(location, as: destination.lastPathComponent)
    }
}
