/// One endpoint of the Dropbox HTTP API v2 subset byteclub speaks, written once for the client
/// (Remote's `DropboxStore`) and the server (ClubServer's router, its access rules and its fuzz
/// target): where it lives, which host serves it, and how its argument and answer travel.
///
/// Every endpoint answers errors the same way: HTTP 409 with a `DropboxError` union (see
/// DropboxError.swift), 400 with plain text for a malformed request, 401/429/5xx as Dropbox does.
public struct Endpoint: Sendable, Hashable, CustomStringConvertible {
    /// Which of Dropbox's three hosts serves it; byteclub's club server serves all three on one port.
    public enum Host: Sendable, Hashable {
        /// api.dropboxapi.com: RPC calls.
        case api
        /// content.dropboxapi.com: uploads and downloads.
        case content
        /// notify.dropboxapi.com: the longpoll, which takes no token.
        case notify
    }

    /// How the argument and the answer travel.
    public enum Style: Sendable, Hashable {
        /// JSON body in, JSON body out.
        case rpc
        /// Argument in the `Dropbox-API-Arg` header, bytes in the body, JSON metadata out.
        case upload
        /// Argument in the `Dropbox-API-Arg` header, bytes out with metadata in `Dropbox-API-Result`.
        case download
    }

    /// The route as the server matches it: "/2/files/list_folder".
    public let route: String
    public let host: Host
    public let style: Style

    init(_ route: String, _ host: Host = .api, _ style: Style = .rpc) {
        self.route = route
        self.host = host
        self.style = style
    }

    /// The route without its leading slash, to append to a base URL: "2/files/list_folder".
    public var relativePath: String { String(route.dropFirst()) }
    public var description: String { route }

    // MARK: files

    public static let listFolder = Endpoint("/2/files/list_folder")
    public static let listFolderContinue = Endpoint("/2/files/list_folder/continue")
    public static let getLatestCursor = Endpoint("/2/files/list_folder/get_latest_cursor")
    public static let longpoll = Endpoint("/2/files/list_folder/longpoll", .notify)
    public static let getMetadata = Endpoint("/2/files/get_metadata")
    public static let search = Endpoint("/2/files/search_v2")
    public static let searchContinue = Endpoint("/2/files/search/continue_v2")
    public static let delete = Endpoint("/2/files/delete_v2")
    public static let move = Endpoint("/2/files/move_v2")
    public static let copy = Endpoint("/2/files/copy_v2")
    public static let createFolder = Endpoint("/2/files/create_folder_v2")
    public static let listRevisions = Endpoint("/2/files/list_revisions")
    public static let restore = Endpoint("/2/files/restore")
    public static let addTag = Endpoint("/2/files/tags/add")
    public static let getTags = Endpoint("/2/files/tags/get")
    public static let removeTag = Endpoint("/2/files/tags/remove")
    public static let download = Endpoint("/2/files/download", .content, .download)
    public static let upload = Endpoint("/2/files/upload", .content, .upload)
    public static let sessionStart = Endpoint("/2/files/upload_session/start", .content, .upload)
    public static let sessionAppend = Endpoint("/2/files/upload_session/append_v2", .content, .upload)
    public static let sessionFinish = Endpoint("/2/files/upload_session/finish", .content, .upload)
    /// Commits up to 1,000 closed upload sessions in one call, answered at once (v2 is synchronous).
    public static let sessionFinishBatch = Endpoint("/2/files/upload_session/finish_batch_v2")
    public static let thumbnail = Endpoint("/2/files/get_thumbnail_v2", .content, .download)

    // MARK: users, sharing, auth

    public static let currentAccount = Endpoint("/2/users/get_current_account")
    public static let account = Endpoint("/2/users/get_account")
    public static let accountBatch = Endpoint("/2/users/get_account_batch")
    public static let createSharedLink = Endpoint("/2/sharing/create_shared_link_with_settings")
    public static let listSharedLinks = Endpoint("/2/sharing/list_shared_links")
    public static let revokeSharedLink = Endpoint("/2/sharing/revoke_shared_link")
    /// Dropbox's token revocation (OAuth sign-out); the club server does not serve it.
    public static let revokeToken = Endpoint("/2/auth/token/revoke")

    // MARK: byteclub's own (the club server's members and invites; not Dropbox's)

    /// Every member endpoint starts with this: the server lets only admins through.
    public static let membersPrefix = "/2/byteclub/members/"
    public static let join = Endpoint("/2/byteclub/join")
    /// Many small files in one answer, each with its metadata (``BatchDownload``).
    public static let downloadBatch = Endpoint("/2/byteclub/files/download_batch", .content)
    /// Many small files up in one request, committed together (``UploadBatch``).
    public static let clubUploadBatch = Endpoint("/2/byteclub/files/upload_batch", .content, .upload)
    /// `files/list_revisions` with who deleted the file: Dropbox's argument (``ListRevisionsArg``)
    /// and answer (``ListRevisionsResult``), plus `deleted_by`, which Dropbox's answer does not
    /// have. Dropbox's own route answers exactly Dropbox's fields.
    public static let clubListRevisions = Endpoint("/2/byteclub/files/list_revisions")
    /// `files/search_v2` and `files/search/continue_v2` with, in each match of a content search
    /// (`filename_only: false`), the first matching line (`byteclub_line`), which Dropbox's
    /// answer does not have. Dropbox's own routes answer exactly Dropbox's fields.
    public static let clubSearch = Endpoint("/2/byteclub/files/search")
    public static let clubSearchContinue = Endpoint("/2/byteclub/files/search/continue")
    /// `files/tags/add|get|remove` with nested tags (`project/alpha`), which Dropbox's grammar
    /// (`[\w]+`) does not allow: Dropbox's own routes take and answer only Dropbox's tags, so
    /// the official SDK reads every tag they return.
    public static let clubAddTag = Endpoint("/2/byteclub/files/tags/add")
    public static let clubGetTags = Endpoint("/2/byteclub/files/tags/get")
    public static let clubRemoveTag = Endpoint("/2/byteclub/files/tags/remove")
    /// Many files' tags added in one call (``AddTagsBatchArg``): an import's or a `put -r`'s
    /// notes, their front matter's tags, with one write of the club's tags for all of them.
    public static let clubAddTagsBatch = Endpoint("/2/byteclub/files/tags/add_batch")
    public static let listMembers = Endpoint(membersPrefix + "list")
    public static let addMember = Endpoint(membersPrefix + "add")
    public static let changeMemberRole = Endpoint(membersPrefix + "role")
    public static let removeMember = Endpoint(membersPrefix + "remove")

    /// Every endpoint the club server serves, in the order of the list above.
    public static let served: [Endpoint] = [
        listFolder, listFolderContinue, getLatestCursor, longpoll, getMetadata, search, searchContinue, delete, move, copy,
        createFolder, listRevisions, restore, addTag, getTags, removeTag, download, upload, sessionStart, sessionAppend,
        sessionFinish, sessionFinishBatch, thumbnail, currentAccount, account, accountBatch, createSharedLink, listSharedLinks, revokeSharedLink,
        join, downloadBatch, clubUploadBatch, clubListRevisions, clubAddTag, clubGetTags, clubRemoveTag, clubAddTagsBatch, listMembers, addMember, changeMemberRole, removeMember,
    ]
}
