import Foundation
import Markdown
import Remote

/// What a shell asks of a club, through the core: the command line reads, lists, watches and
/// transfers through these, and writes through ``Backend/writes`` (``OutboxSender/Direct``), so
/// no command holds the store itself (issue 69: `Sources/ClubCLI` makes no store call). Each
/// is the core's one way of doing it, the same one the app's controllers use.
extension Backend {
    /// The members' names, asked of the server once per id (``MemberNames``).
    public var names: MemberNames { MemberNames(store: store) }

    /// A note's bytes and what was read.
    public func read(_ path: String) async throws(RemoteError) -> (data: Data, entry: RemoteEntry) {
        try await store.read(path)
    }

    /// What `path` is on the server now.
    public func metadata(_ path: String) async throws(RemoteError) -> RemoteEntry {
        try await store.metadata(path)
    }

    /// The last `limit` revisions of a file, newest first, with who wrote them.
    public func revisions(_ path: String, limit: Int) async throws(RemoteError) -> RemoteRevisions {
        try await store.revisions(path, limit: limit)
    }

    /// Who this member is on the server; nil where it has no accounts (WebDAV) or cannot say.
    public func me() async -> RemoteAccount? {
        try? await store.currentAccount()
    }

    /// Every file and folder under `folder`.
    public func listRecursively(_ folder: String) async throws(RemoteError) -> [RemoteEntry] {
        try await store.listRecursively(folder)
    }

    /// A file downloaded to `destination`, over `streams` connections where the remote can
    /// (``RemoteStore/get(_:to:resumeData:progress:onResumeData:streams:)``).
    public func get(_ path: String, to destination: URL, resumeData: Data?, progress: ProgressHandler?,
                    onResumeData: (@Sendable (Data) -> Void)?, streams: Int?) async throws(RemoteError) -> RemoteEntry {
        try await store.get(path, to: destination, resumeData: resumeData, progress: progress, onResumeData: onResumeData, streams: streams)
    }

    /// The files tagged `tag` or a tag nested under it, in `folder` and every folder under it.
    public func tagged(_ tag: String, in folder: String) async throws(RemoteError) -> [RemoteEntry] {
        try await FileTags.tagged(tag, in: folder, store: store)
    }

    /// What deleting `path` would take (``Removal``: one rule for every backend).
    public func removal(of path: String) async throws(RemoteError) -> Removal {
        try await Removal.of(path, on: store)
    }

    /// The notes `text` (the note at `path`) embeds, read for a rendered view.
    public func embeds(of text: String, at path: String) async -> [String: EmbeddedNote] {
        await NoteEmbeds.notes(of: text, at: path, store: store, root: folder)
    }

    /// A transfer of a folder's files to or from this club; an upload's notes land through
    /// ``OutboxSender/Direct/putFolder(_:into:mode:transfer:)``.
    public func folderTransfer(streams: Int?, dryRun: Bool, progress: @escaping @Sendable (Int, Int64, Int64) -> Void,
                               wouldCopy: @escaping (String, String) -> Void) -> FolderTransfer {
        FolderTransfer(store: store, streams: streams, dryRun: dryRun, progress: progress, wouldCopy: wouldCopy)
    }

    /// An export of `folder` (the club's by default) to a vault at `destination`.
    public func export(_ folder: String?, to destination: URL, dryRun: Bool) -> VaultExport {
        VaultExport(store: store, folder: folder ?? self.folder, clubFolder: self.folder, destination: destination, dryRun: dryRun)
    }

    /// An import of `vault` into `folder` (the club's by default), its pictures into the club's photos.
    public func importing(_ vault: VaultFiles, into folder: String?, flatten: Bool, dryRun: Bool) -> VaultImport {
        VaultImport(store: store, vault: vault, folder: folder ?? self.folder, photos: self.folder + "/photos", flatten: flatten, dryRun: dryRun)
    }

    /// Whether a watch of this club compares listings rather than reading the server's changes:
    /// WebDAV keeps no feed of them, so a change undone before the next look (a note put, moved
    /// and removed in one go) is not seen, only what differs between two looks.
    public var watchComparesListings: Bool { store is WebDAVStore }

    /// A watch of `folder`'s changes, told as they come (``ChangeWatcher``).
    public func watcher(of folder: String, recursive: Bool, pollTimeout: TimeInterval,
                        tell: @escaping (WatchNotice) async -> Void) -> ChangeWatcher {
        ChangeWatcher(store: store, folder: folder, recursive: recursive, pollTimeout: pollTimeout, tell: tell)
    }

    /// What adopting `text`'s front matter as the note's club tags kept and left out, the tags
    /// added (a note the agent uploaded: its tags are the command's to add).
    public func adoptFrontMatter(_ text: String, at path: String) async throws(RemoteError) -> FrontMatterNotes.Adoption {
        try await FrontMatterNotes.adoption(of: text, at: path, store: store)
    }

    /// The club's notes whose links led into `from`, rewritten for its move to `to` and saved
    /// over the version read (`entries`: the club's files as listed before the move).
    public func updateLinks(from: String, to: String, entries: [RemoteEntry]) async throws(RemoteError) -> LinkUpdates.Report {
        try await LinkUpdates.afterMove(from: from, to: to, entries: entries, root: folder, store: store)
    }

    /// This club's share links, or why it has none (a remote that cannot share).
    func sharing() throws(RemoteError) -> any SharingStore {
        try sharingStore(store)
    }

    /// Whether a link of this club shares a decrypted copy (an encrypted club), which the user
    /// must agree to first; or why the club cannot share (``ShareLinks/sharesDecryptedCopies(_:)``).
    public func sharesDecryptedCopies() throws(RemoteError) -> Bool {
        try ShareLinks.sharesDecryptedCopies(store)
    }

    /// The share links the club has, each with the path it shares.
    public func sharedLinks() async throws(RemoteError) -> [RemoteSharedLink] {
        try await ShareLinks.listed(try sharing(), club: store)
    }

    /// The encrypted club's store, when this club is one (its keys, roster and notices).
    public var encrypted: EncryptedStore? { store as? EncryptedStore }

    /// What a read showed less of than was asked (an encrypted club's refused newest version),
    /// each once.
    public func takeNotices() -> [String] {
        encrypted?.takeNotices() ?? []
    }
}
