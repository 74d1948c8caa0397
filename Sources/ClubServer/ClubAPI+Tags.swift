import DropboxWire
import Foundation

/// `files/tags/add`, `files/tags/get` and `files/tags/remove`, as files.stone has them: add and
/// remove answer `null` (Void), get answers `{"paths_to_tags":[{"path","tags":[…]}]}`. A tag
/// text that breaks `TagText` is a 400, as Dropbox's argument validation answers; the stored
/// tags live in FolderStore+Tags.
///
/// Dropbox's routes speak Dropbox's grammar (`[\w]+`): a nested tag (`project/alpha`) is a 400
/// there, and `tags/get` there leaves nested tags out, since the official SDK fails validation
/// reading one. The same calls under `/2/byteclub/files/tags/` take and answer nested tags too.
extension ClubAPI {
    func tagEndpoints() -> [(String, @Sendable (Arguments) async throws -> Any)] {
        [
            (Endpoint.addTag.route, { arguments in try await self.addTag(arguments, nested: false) }),
            (Endpoint.getTags.route, { arguments in try await self.getTags(arguments, nested: false) }),
            (Endpoint.removeTag.route, { arguments in try await self.removeTag(arguments, nested: false) }),
            (Endpoint.clubAddTag.route, { arguments in try await self.addTag(arguments, nested: true) }),
            (Endpoint.clubGetTags.route, { arguments in try await self.getTags(arguments, nested: true) }),
            (Endpoint.clubRemoveTag.route, { arguments in try await self.removeTag(arguments, nested: true) }),
            (Endpoint.clubAddTagsBatch.route, { arguments in try await self.addTagsBatch(arguments) }),
        ]
    }

    /// `/2/byteclub/files/tags/add_batch` (``AddTagsBatchArg``): many files' tags, one write of
    /// the club's tags for all. A malformed entry (a bad path's form, a tag that breaks
    /// `TagText`) is the whole call's 400, as the single add answers it, before anything is
    /// added; a file not there, or one past its limit, is that entry's failure.
    private func addTagsBatch(_ arguments: Arguments) async throws -> Any {
        let what = "files/tags/add_batch"
        let argument = try arguments.decode(AddTagsBatchArg.self)
        guard argument.entries.count <= AddTagsBatchArg.maxEntries else {
            throw APIError.badRequest("\(what): at most \(AddTagsBatchArg.maxEntries) entries at a time, not \(argument.entries.count)")
        }
        var entries: [(path: DropboxPath, tags: [String])] = []
        entries.reserveCapacity(argument.entries.count)
        for (index, entry) in argument.entries.enumerated() {
            let target: DropboxPath
            do { target = try DropboxPath.checked(entry.path) } catch { throw APIError.malformedPath() }
            var tags: [String] = []
            for text in entry.tags {
                do {
                    let tag = try TagText.normalised(text)
                    if !tags.contains(tag) { tags.append(tag) }
                } catch {
                    throw APIError.badRequest("\(what): entries[\(index)].tags: \(error.reason) (parts of a nested tag joined by '/', at most \(TagText.maximumLength) characters)")
                }
            }
            entries.append((target, tags))
        }
        let results = await store.addTags(entries)
        var text = "{\"entries\":["
        for (index, result) in results.enumerated() {
            if index > 0 { text += "," }
            switch result {
            case .success:
                text += "{\".tag\":\"success\"}"
            case .failure(let error):
                let union = error.wire?.error ?? ErrorUnion(tag: "other")
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                text += "{\".tag\":\"failure\",\"failure\":" + String(decoding: try encoder.encode(union), as: UTF8.self) + "}"
            }
        }
        return RawJSON(text: text + "]}")
    }

    private func addTag(_ arguments: Arguments, nested: Bool) async throws -> Any {
        let (target, tag) = try tagArguments(arguments, what: "files/tags/add", nested: nested)
        try await store.addTag(tag, to: target)
        return RawJSON(text: "null")
    }

    private func removeTag(_ arguments: Arguments, nested: Bool) async throws -> Any {
        let (target, tag) = try tagArguments(arguments, what: "files/tags/remove", nested: nested)
        try await store.removeTag(tag, from: target)
        return RawJSON(text: "null")
    }

    private func getTags(_ arguments: Arguments, nested: Bool) async throws -> Any {
        let argument = try arguments.decode(GetTagsArg.self)
        guard argument.paths.count <= 1000 else { throw APIError.badRequest("files/tags/get: at most 1000 paths at a time") }
        var answer = GetTagsResult(pathsToTags: [])
        for text in argument.paths {
            let target: DropboxPath
            do { target = try DropboxPath.checked(text) } catch { throw APIError.malformedPath() }
            let tags = try await store.tags(of: target).filter { nested || TagText.isDropboxTag($0) }
            answer.pathsToTags.append(PathToTags(path: text, tags: tags.map(TagEntry.init(userGenerated:))))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return RawJSON(text: String(decoding: try encoder.encode(answer), as: UTF8.self))
    }

    /// The path and the normalised tag of an add or a remove.
    private func tagArguments(_ arguments: Arguments, what: String, nested: Bool) throws -> (DropboxPath, String) {
        let argument = try arguments.decode(TagArg.self)
        let target: DropboxPath
        do { target = try DropboxPath.checked(argument.path) } catch { throw APIError.malformedPath() }
        let tag: String
        do {
            tag = try TagText.normalised(argument.tagText)
        } catch {
            let grammar = nested ? "parts of a nested tag joined by '/', " : ""
            throw APIError.badRequest("\(what): tag_text: \(error.reason) (the pattern is '[\\w]+', \(grammar)at most \(TagText.maximumLength) characters)")
        }
        guard nested || TagText.isDropboxTag(tag) else {
            throw APIError.badRequest("\(what): tag_text: '/' is not allowed (the pattern is '[\\w]+'); nested tags go to /2/byteclub/\(what)")
        }
        return (target, tag)
    }
}
