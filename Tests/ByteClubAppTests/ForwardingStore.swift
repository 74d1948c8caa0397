import Foundation
import Remote

/// A store that hands every call to `base`, the live ones included; a test store conforms and
/// writes only the calls it changes (a stamp on entries, a gate on uploads, a count).
protocol ForwardingStore: RemoteStore {
    var base: any RemoteStore { get }
}

extension ForwardingStore {
    var displayName: String { base.displayName }
    var keepsHistory: Bool { base.keepsHistory }
    var cursorIsAWholeListing: Bool { base.cursorIsAWholeListing }
    var namesIgnoreCase: Bool { base.namesIgnoreCase }

    // `read` is left to RemoteStore's own, which downloads: a test store that changes
    // `download` (a gate, hostile names, a count) changes what a note's read gives too.

    func listPage(_ folder: String, cursor: String?, limit: Int) async throws(RemoteError) -> (entries: [RemoteEntry], next: String?) {
        try await base.listPage(folder, cursor: cursor, limit: limit)
    }
    func metadata(_ path: String) async throws(RemoteError) -> RemoteEntry { try await base.metadata(path) }
    func search(in folder: String, extensions: [String]) async throws(RemoteError) -> [RemoteEntry] {
        try await base.search(in: folder, extensions: extensions)
    }
    func download(_ path: String, to destination: URL, resumeData: Data?, progress: ProgressHandler?,
                  onResumeData: (@Sendable (Data) -> Void)?) async throws(RemoteError) -> RemoteEntry {
        try await base.download(path, to: destination, resumeData: resumeData, progress: progress, onResumeData: onResumeData)
    }
    func upload(file: URL, to path: String, mode: WriteMode, autorename: Bool, progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry {
        try await base.upload(file: file, to: path, mode: mode, autorename: autorename, progress: progress)
    }
    func upload(data: Data, to path: String, mode: WriteMode, autorename: Bool) async throws(RemoteError) -> RemoteEntry {
        try await base.upload(data: data, to: path, mode: mode, autorename: autorename)
    }
    func thumbnail(_ path: String, size: ThumbnailSize) async throws(RemoteError) -> Data { try await base.thumbnail(path, size: size) }
    func delete(_ path: String) async throws(RemoteError) -> RemoteEntry { try await base.delete(path) }
    func move(from: String, to: String, autorename: Bool) async throws(RemoteError) -> RemoteEntry {
        try await base.move(from: from, to: to, autorename: autorename)
    }
    func createFolder(_ path: String) async throws(RemoteError) -> RemoteEntry { try await base.createFolder(path) }
    func latestCursor(_ folder: String, recursive: Bool) async throws(RemoteError) -> RemoteCursor {
        try await base.latestCursor(folder, recursive: recursive)
    }
    func longpoll(_ cursor: RemoteCursor, timeout: TimeInterval) async throws(RemoteError) -> LongpollAnswer {
        try await base.longpoll(cursor, timeout: timeout)
    }
    func listChanges(since cursor: RemoteCursor) async throws(RemoteError) -> RemoteChanges { try await base.listChanges(since: cursor) }
    func revisions(_ path: String, limit: Int, before: String?) async throws(RemoteError) -> RemoteRevisions {
        try await base.revisions(path, limit: limit, before: before)
    }
    func restore(_ path: String, rev: String) async throws(RemoteError) -> RemoteEntry { try await base.restore(path, rev: rev) }
    func copy(from: String, to: String, autorename: Bool) async throws(RemoteError) -> RemoteEntry {
        try await base.copy(from: from, to: to, autorename: autorename)
    }
    func currentAccount() async throws(RemoteError) -> RemoteAccount { try await base.currentAccount() }
    func account(id: String) async throws(RemoteError) -> RemoteAccount { try await base.account(id: id) }
}
