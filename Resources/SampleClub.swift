import Foundation

/// The sample club folder that seeds the embedded server on first run: a welcome note, a
/// challenge note (with Chinese and German text) and four panoramic photos.
public enum SampleClub {
    /// The bundled folder; its `byteclub/` becomes `ROOT/byteclub/`.
    public static var folder: URL? {
        Bundle.module.url(forResource: "SampleClub", withExtension: nil)
    }

    /// Copies the sample into `root` unless `root/byteclub` already exists. Returns whether it did.
    @discardableResult
    public static func seed(into root: URL) throws -> Bool {
        let target = root.appendingPathComponent("byteclub")
        guard !FileManager.default.fileExists(atPath: target.path) else { return false }
        guard let source = folder?.appendingPathComponent("byteclub") else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "the sample club is missing from the build"])
        }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        // Copy to a temp name, then rename: a half-seeded club never looks seeded.
        let staging = root.appendingPathComponent(".byteclub-seed-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: source, to: staging)
        try FileManager.default.moveItem(at: staging, to: target)
        return true
    }
}
