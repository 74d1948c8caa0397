import ClubCrypt
import Foundation
import Imaging
import Remote

/// Thumbnails in an encrypted club: the server cannot see a photo, so the member who uploads
/// one makes its grid thumbnail and seals it beside the club's keys
/// (`.clubkeys/thumbnails/ID.age`, `ID` a keyed hash of the photo's path), signed for that
/// photo. Other sizes, and photos uploaded without one, are made by the app from the photo.
extension EncryptedStore {
    /// The size made at upload: the PanoPhotos grid's.
    public static let uploadedThumbnail = ThumbnailSize.w128h128
    /// A photo larger than this gets no thumbnail at upload (the app makes one when shown).
    static let thumbnailSourceLimit = 64 << 20

    static func isPhoto(_ path: String) -> Bool { PictureFormat.fileExtensions.contains((path as NSString).pathExtension.lowercased()) }

    func thumbnailPath(of path: String) -> String {
        ClubKeyFiles(clubFolder: folder).folder + "/thumbnails/" + keyedID(of: path, for: "thumbnail") + ".age"
    }

    /// What a thumbnail's signature names: its photo, so it cannot stand for another.
    func thumbnailSignedPath(of path: String) -> String { "thumbnail:" + signedPath(path) }

    /// Seals and uploads the grid thumbnail of the photo in `file`, uploaded at `path`. Best
    /// effort: a photo that will not decode, or a failed upload, leaves the app to make one.
    func uploadThumbnail(from file: URL, for path: String) async {
        guard Self.isPhoto(path), let data = try? Data(contentsOf: file, options: .mappedIfSafe) else { return }
        await uploadThumbnail(from: data, for: path)
    }

    func uploadThumbnail(from data: Data, for path: String) async {
        guard Self.isPhoto(path), data.count <= Self.thumbnailSourceLimit else { return }
        let box = Self.uploadedThumbnail.box
        guard let jpeg = try? Thumbnail.make(from: data, boxWidth: box.width, boxHeight: box.height, fit: .within,
                                             limits: Thumbnail.Limits(maxPixels: 100_000_000, maxBufferedBytes: 128 << 20)),
              let sealed = try? ClubSeal.seal(jpeg, path: thumbnailSignedPath(of: path), version: ClubSeal.nextVersion(after: nil),
                                              to: [keyring.recipient], by: keyring.me) else { return }
        _ = try? await inner.upload(data: sealed, to: thumbnailPath(of: path), mode: .overwrite, autorename: false)
    }

    /// The grid thumbnail its uploader sealed; any other size, or none there, is the app's to make.
    public func thumbnail(_ path: String, size: ThumbnailSize) async throws(RemoteError) -> Data {
        guard size == Self.uploadedThumbnail, Self.isPhoto(path) else { throw .notSupported("thumbnails of other sizes") }
        let sealed: Data
        do {
            sealed = try await inner.read(thumbnailPath(of: path)).data
        } catch .notFound {
            throw .notSupported("a photo uploaded without its thumbnail")
        }
        do {
            return try ClubSeal.open(sealed, path: thumbnailSignedPath(of: path), shown: path + " (its thumbnail)", identities: identities,
                                     roster: keyring.roster).plaintext
        } catch {
            throw error.remote
        }
    }
}
