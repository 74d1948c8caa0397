import Foundation

/// The real vault of Tests/Fixtures/Tasks-Demo (the Obsidian Tasks plugin's sample vault, MIT:
/// see SOURCE.md there), as the tests of issue 55 read it.
///
/// `BYTECLUB_REAL_VAULT=FOLDER` puts another vault in its place, for a measure on a vault too big
/// or not free to keep here (`scripts/vault-links`): imported under its folder's name.
public enum RealVault {
    /// The vault's folder.
    public static let folder = ProcessInfo.processInfo.environment["BYTECLUB_REAL_VAULT"].map { URL(fileURLWithPath: $0) }
        ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/Tasks-Demo/vault")

    /// The club folder it is imported into, under the club's folder.
    public static let importedAs = ProcessInfo.processInfo.environment["BYTECLUB_REAL_VAULT"] == nil ? "Tasks-Demo" : folder.standardizedFileURL.lastPathComponent

    /// Every regular file under `folder` by relative path ("Test Data/x.md"), with its bytes;
    /// hidden ones (a name starting with `.`: the vault's `.obsidian/` settings) only with
    /// `hidden`, as import leaves them out.
    public static func tree(_ folder: URL = folder, hidden: Bool = false) -> [String: Data] {
        var files: [String: Data] = [:]
        let root = folder.standardizedFileURL.path
        let walk = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = walk?.nextObject() as? URL {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true, let data = try? Data(contentsOf: url) else { continue }
            let relative = String(url.standardizedFileURL.path.dropFirst(root.count + 1))
            if !hidden, relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }) { continue }
            files[relative] = data
        }
        return files
    }

    /// The pictures' extensions: what import moves under the club's photos/.
    public static let pictureExtensions: Set<String> = ["jpg", "jpeg", "png", "gif", "heic", "webp"]

    /// Where import puts a file of the vault imported into `/byteclub/Tasks-Demo`: a picture in
    /// the club's photos/ (album: its folder in the vault), every other file at its vault path.
    public static func clubPath(of vaultPath: String) -> String {
        let ext = (vaultPath as NSString).pathExtension.lowercased()
        return pictureExtensions.contains(ext) ? "/byteclub/photos/" + vaultPath : "/byteclub/\(importedAs)/" + vaultPath
    }
}
