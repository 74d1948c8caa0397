import Foundation

/// One share link: a random token that opens one file, by the file's id.
struct SharedLink: Codable, Sendable, Hashable {
    /// 144 random bits, base64url (24 characters): the whole secret of the link.
    var token: String
    /// The file's id, so the link follows the file through moves and renames, as Dropbox's do.
    var fileID: String
    /// The file's name when the link was made: the last segment of its URL.
    var name: String
    /// Seconds since 1970.
    var created: Int64
    /// Seconds since 1970 when it stops working; nil: never.
    var expires: Int64?

    enum CodingKeys: String, CodingKey { case token, fileID = "file_id", name, created, expires }

    func isLive(at now: Date) -> Bool {
        expires.map { Double($0) > now.timeIntervalSince1970 } ?? true
    }

    var expiryDate: Date? { expires.map { Date(timeIntervalSince1970: Double($0)) } }
}

/// The club's share links, kept in `.byteclub/shared-links.json` so they survive restarts.
///
/// An actor of its own rather than more state in `FolderStore`: serving a link asks the store
/// only where a file id is now, and the links' file is written without holding up commits.
/// Every change is written (temp file, `fsync`, rename) before it is answered, so a revoked
/// link stays revoked after a crash.
actor SharedLinks {
    private let path: String
    private let tempDirectory: String
    private var links: [SharedLink] = []
    /// The clock expiry is judged by; tests pass their own.
    private let now: @Sendable () -> Date

    init(metaDirectory: String, tempDirectory: String, now: @escaping @Sendable () -> Date = { Date() }) {
        path = metaDirectory + "/shared-links.json"
        self.tempDirectory = tempDirectory
        self.now = now
        if let data = FileManager.default.contents(atPath: path),
           let stored = try? JSONDecoder().decode([SharedLink].self, from: data) {
            links = stored
        }
    }

    /// The live link whose token is `presented`, or nil.
    ///
    /// Every stored token is compared, each in constant time, whichever matches: how long this
    /// takes says nothing about how much of a guess was right. An expired link found here is
    /// dropped for good.
    func live(token presented: String) -> SharedLink? {
        let bytes = Array(presented.utf8)
        var found: SharedLink?
        for link in links where BearerAuth.constantTimeEqual(bytes, Array(link.token.utf8)) {
            found = link
        }
        guard let found else { return nil }
        guard found.isLive(at: now()) else {
            try? remove { $0.token == found.token }
            return nil
        }
        return found
    }

    /// Live links, all of them or those of one file.
    func live(fileID: String? = nil) -> [SharedLink] {
        let at = now()
        let expired = links.filter { !$0.isLive(at: at) }
        if !expired.isEmpty { try? remove { !$0.isLive(at: at) } }
        return links.filter { link in fileID.map { link.fileID == $0 } ?? true }
    }

    /// Adds a new link for `fileID` unless the file has a live one, which is answered instead.
    /// Throws when the file cannot be written (the link is then not made).
    func make(fileID: String, name: String, expires: Date?) throws -> (link: SharedLink, existed: Bool) {
        if let existing = live(fileID: fileID).first { return (existing, true) }
        let link = SharedLink(token: FolderFiles.randomToken(bytes: 18), fileID: fileID, name: name,
                              created: Int64(now().timeIntervalSince1970), expires: expires.map { Int64($0.timeIntervalSince1970.rounded(.up)) })
        links.append(link)
        do {
            try save()
        } catch {
            links.removeLast()
            throw error
        }
        return (link, false)
    }

    /// Removes the link with this token; false if there was none.
    func revoke(token: String) throws -> Bool {
        let bytes = Array(token.utf8)
        guard links.contains(where: { BearerAuth.constantTimeEqual(bytes, Array($0.token.utf8)) }) else { return false }
        try remove { BearerAuth.constantTimeEqual(bytes, Array($0.token.utf8)) }
        return true
    }

    /// Ends every link to these files (they were deleted): a file later made at the same path
    /// may take up a deleted file's id, and must not bring its links back.
    func forget(fileIDs: Set<String>) {
        guard links.contains(where: { fileIDs.contains($0.fileID) }) else { return }
        try? remove { fileIDs.contains($0.fileID) }
    }

    /// In memory the links go at once, even when the file cannot be written: a revoked link
    /// must not keep working while the disk is full. The file catches up at the next save.
    private func remove(where predicate: (SharedLink) -> Bool) throws {
        let kept = links.filter { !predicate($0) }
        guard kept.count != links.count else { return }
        links = kept
        try save()
    }

    private func save() throws {
        try FolderFiles.writeJSONDurably(links, to: path, temporaryDirectory: tempDirectory)
    }
}
