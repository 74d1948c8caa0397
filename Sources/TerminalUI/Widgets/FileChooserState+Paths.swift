import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Paths typed into the field and shown on the folder line, worked out without touching the disk,
// and the real file system behind the default lister.

extension FileChooserState {
    /// The absolute, normalized path for what was typed.
    func resolve(_ typed: String) -> String {
        var text = typed.trimmingCharacters(in: .whitespaces)
        if text == "~" {
            text = homeDirectory.path
        } else if text.hasPrefix("~/") {
            text = homeDirectory.path + "/" + text.dropFirst(2)
        } else if !text.hasPrefix("/") {
            text = directory.path + "/" + text
        }
        return Self.normalize(text)
    }

    /// `path` with `.`, `..`, repeated and trailing slashes removed, without touching the disk.
    static func normalize(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch part {
            case ".": continue
            case "..": if !parts.isEmpty { parts.removeLast() }
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// `path` with the home folder written `~`.
    func display(_ path: String) -> String {
        let home = Self.normalize(homeDirectory.path)
        if home != "/", path == home { return "~" }
        if home != "/", path.hasPrefix(home + "/") { return "~" + path.dropFirst(home.count) }
        return path
    }

    /// An error as one short line.
    static func describe(_ error: any Error) -> String {
        let ns = error as NSError
        // The system's own words ("Permission denied") when the error wraps an errno.
        if ns.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(ns.code))) }
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if let localized = error as? any LocalizedError, let text = localized.errorDescription { return text }
        let text = ns.localizedDescription
        let boilerplate = "The operation could not be completed. "
        return text.hasPrefix(boilerplate) && text.count > boilerplate.count ? String(text.dropFirst(boilerplate.count)) : text
    }

    // MARK: The real file system

    /// Lists a folder on disk: symbolic links count as what they point to, sizes and
    /// readability come from `stat` and `access`.
    public static func listDirectory(_ url: URL) throws -> [FileEntry] {
        let names = try FileManager.default.contentsOfDirectory(atPath: url.path)
        return names.map { name in
            let path = url.appendingPathComponent(name).path
            var info = stat()
            guard stat(path, &info) == 0 else {
                // A dangling link: listed, but choosing it reports that it cannot be read.
                return FileEntry(name: name, isDirectory: false, size: nil, isReadable: false)
            }
            let isDirectory = (info.st_mode & S_IFMT) == S_IFDIR
            return FileEntry(
                name: name,
                isDirectory: isDirectory,
                size: isDirectory ? nil : Int64(info.st_size),
                isReadable: access(path, R_OK) == 0
            )
        }
    }
}
