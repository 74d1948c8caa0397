import DropboxWire
import Foundation

/// `files/tags/add`, `files/tags/get` and `files/tags/remove`, as files.stone has them: add and
/// remove answer `null` (Void), get answers `{"paths_to_tags":[{"path","tags":[…]}]}`. A tag
/// text that breaks `TagText` is a 400, as Dropbox's argument validation answers; the stored
/// tags live in FolderStore+Tags.
extension ClubAPI {
    func tagEndpoints() -> [(String, @Sendable (Arguments) async throws -> Any)] {
        [
            (Endpoint.addTag.route, addTag),
            (Endpoint.getTags.route, getTags),
            (Endpoint.removeTag.route, removeTag),
        ]
    }

    private func addTag(_ arguments: Arguments) async throws -> Any {
        let (target, tag) = try tagArguments(arguments, what: "files/tags/add")
        try await store.addTag(tag, to: target)
        return RawJSON(text: "null")
    }

    private func removeTag(_ arguments: Arguments) async throws -> Any {
        let (target, tag) = try tagArguments(arguments, what: "files/tags/remove")
        try await store.removeTag(tag, from: target)
        return RawJSON(text: "null")
    }

    private func getTags(_ arguments: Arguments) async throws -> Any {
        let argument = try arguments.decode(GetTagsArg.self)
        guard argument.paths.count <= 1000 else { throw APIError.badRequest("files/tags/get: at most 1000 paths at a time") }
        var answer = GetTagsResult(pathsToTags: [])
        for text in argument.paths {
            let target: DropboxPath
            do { target = try DropboxPath.checked(text) } catch { throw APIError.malformedPath() }
            let tags = try await store.tags(of: target)
            answer.pathsToTags.append(PathToTags(path: text, tags: tags.map(TagEntry.init(userGenerated:))))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return RawJSON(text: String(decoding: try encoder.encode(answer), as: UTF8.self))
    }

    /// The path and the normalised tag of an add or a remove.
    private func tagArguments(_ arguments: Arguments, what: String) throws -> (DropboxPath, String) {
        let argument = try arguments.decode(TagArg.self)
        let target: DropboxPath
        do { target = try DropboxPath.checked(argument.path) } catch { throw APIError.malformedPath() }
        do {
            return (target, try TagText.normalised(argument.tagText))
        } catch {
            throw APIError.badRequest("\(what): tag_text: \(error.reason) (the pattern is '[\\w]+', parts of a nested tag joined by '/', at most \(TagText.maximumLength) characters)")
        }
    }
}
