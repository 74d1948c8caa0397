import Foundation

/// `list_folder/get_latest_cursor`'s answer: `{"cursor"}`, a cursor at the folder's present
/// state, as if the folder had just been listed to the end.
public struct ListFolderGetLatestCursorResult: Sendable, Hashable, Codable {
    public var cursor: String

    public init(cursor: String) { self.cursor = cursor }
}

/// `list_folder/longpoll`'s answer: `{"changes","backoff"?}`. `changes` says whether anything
/// under the cursor's folder changed; `backoff`, when present, is how many seconds a client
/// waits before its next longpoll.
public struct ListFolderLongpollResult: Sendable, Hashable, Codable {
    public var changes: Bool
    public var backoff: Int?

    public init(changes: Bool, backoff: Int? = nil) {
        self.changes = changes
        self.backoff = backoff
    }
}
