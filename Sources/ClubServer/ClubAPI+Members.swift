import DropboxWire
import Foundation
import Hummingbird
import NIOCore

/// `users/get_current_account`: who the caller's token says they are.
extension ClubAPI {
    /// Answers for the member whose token came with the request. The body is `null`, as
    /// Dropbox's SDKs send it (or nothing at all); anything else is a 400.
    func currentAccount(_ request: Request) async throws -> Response {
        let body = try await jsonBody(request)
        let text = String(decoding: Data(buffer: body).prefix(64), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.isEmpty || text == "null" || text == "{}" else {
            throw APIError.badRequest("users/get_current_account: expected null, got '\(text.prefix(20))'")
        }
        let name = Caller.member ?? ClubMember.sharedName
        let object = Self.accountObject(of: name).merging([
            "locale": "en",
            "referral_link": "",
            "is_paired": false,
            "account_type": [".tag": "basic"],
            "root_info": [".tag": "user", "root_namespace_id": RevisionState.sharedFolderID, "home_namespace_id": RevisionState.sharedFolderID],
        ] as [String: Any]) { _, new in new }
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(data: JSON.data(object))))
    }
}
