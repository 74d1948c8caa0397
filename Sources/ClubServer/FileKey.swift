import Foundation

/// What identifies one version of a file on disk: a write is a rename of a new inode.
struct FileKey: Hashable, Sendable {
    var inode: UInt64
    var size: Int64
    var ctimeNanoseconds: Int64
    var mtimeNanoseconds: Int64
}

extension FileKey {
    /// The key of what `stat` saw.
    init(_ info: stat) {
        // Wrapping: a time after 2262 (`touch -d 2300-01-01`, which ext4 keeps) has more
        // nanoseconds than an Int64 holds, and the plain product trapped the server's listing.
        // A key only has to tell versions apart, and wrapped values still do.
        self.init(inode: UInt64(info.st_ino), size: Int64(info.st_size),
                  ctimeNanoseconds: Int64(info.st_ctim.tv_sec) &* 1_000_000_000 &+ Int64(info.st_ctim.tv_nsec),
                  mtimeNanoseconds: Int64(info.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(info.st_mtim.tv_nsec))
    }

    /// A rev that changes with every write: each write renames a fresh inode into place, which
    /// also sets a new ctime. 16 hex digits, like Dropbox's revs.
    var rev: String {
        // SplitMix64 over the four numbers: cheap, and any change of any of them changes the rev.
        var state = inode
        for value in [UInt64(bitPattern: ctimeNanoseconds), UInt64(bitPattern: mtimeNanoseconds), UInt64(bitPattern: size)] {
            state = (state ^ value) &+ 0x9E37_79B9_7F4A_7C15
            state = (state ^ (state >> 30)) &* 0xBF58_476D_1CE4_E5B9
            state = (state ^ (state >> 27)) &* 0x94D0_49BB_1331_11EB
            state ^= state >> 31
        }
        let hex = String(state, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
