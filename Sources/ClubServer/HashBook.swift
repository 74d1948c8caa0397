/// The content-hash cache a `FolderStore` keeps in `.byteclub/content-hashes`, with no disk.
///
/// One line per file version: "inode size ctime-ns mtime-ns hash". Without it, the first listing
/// after a start reads every file to hash it. A damaged line is skipped; a file whose key
/// changed is hashed again, so a stale line can never give a wrong hash.
struct HashBook: Sendable, Equatable {
    private(set) var hashes: [FileKey: String]
    /// Hashes learnt since the file was last written.
    private(set) var isDirty = false
    /// The keys this run has used: once the file grows large it keeps only those, so stale
    /// versions do not pile up.
    private var used = Set<FileKey>()
    /// Past this many lines, a write keeps only the versions used this run.
    let limit: Int

    init(_ known: [FileKey: String] = [:], limit: Int = 50_000) {
        hashes = known
        self.limit = limit
    }

    static func parse(_ text: String) -> [FileKey: String] {
        var cache: [FileKey: String] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 5, let inode = UInt64(fields[0]), let size = Int64(fields[1]),
                  let ctime = Int64(fields[2]), let mtime = Int64(fields[3]), fields[4].count == 64,
                  fields[4].allSatisfy(\.isHexDigit) else { continue }
            cache[FileKey(inode: inode, size: size, ctimeNanoseconds: ctime, mtimeNanoseconds: mtime)] = String(fields[4])
        }
        return cache
    }

    /// The hash of the version `key`, computed by `compute` (nil: unreadable, not cached) only
    /// when not known.
    mutating func hash(for key: FileKey, compute: () -> String?) -> String {
        used.insert(key)
        if let known = hashes[key] { return known }
        guard let hash = compute(), !hash.isEmpty else { return "" }
        record(hash, for: key)
        return hash
    }

    /// A hash learnt another way (an upload hashed as it streamed in).
    mutating func record(_ hash: String, for key: FileKey) {
        used.insert(key)
        hashes[key] = hash
        isDirty = true
    }

    /// The file's text to write, with `disk` (what another server wrote meanwhile, if it did)
    /// merged under this server's own: a hash is a fact about a file version, so either server's
    /// is as good. Afterwards the book is clean.
    mutating func text(mergingDisk disk: [FileKey: String]?) -> String {
        if let disk { hashes.merge(disk) { mine, _ in mine } }
        if hashes.count > limit { hashes = hashes.filter { used.contains($0.key) } }
        isDirty = false
        var text = ""
        text.reserveCapacity(hashes.count * 110)
        for (key, hash) in hashes {
            text += "\(key.inode) \(key.size) \(key.ctimeNanoseconds) \(key.mtimeNanoseconds) \(hash)\n"
        }
        return text
    }
}
