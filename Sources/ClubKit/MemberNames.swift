import Foundation
import Remote

/// Members' names for the account ids revisions carry (`users/get_account`), each asked once.
///
/// People read names: "bob", not "dbid:AAH4f…". A server that does not know the id (or
/// WebDAV, which has no accounts) gives no name: the id is said only in `*_id` fields.
public actor MemberNames {
    private let store: any RemoteStore
    private var known: [String: String] = [:]
    private var asked: Set<String> = []

    public init(store: any RemoteStore) { self.store = store }

    /// The names of `ids` that the server knows (asked for those not asked before).
    public func names(for ids: some Sequence<String?>) async -> [String: String] {
        for id in Set(ids.compactMap { $0 }) where !asked.contains(id) {
            asked.insert(id)
            if let name = try? await store.account(id: id).displayName, !name.isEmpty { known[id] = name }
        }
        return known
    }

    /// The name for `id` when the server knows it, else nil: an account id is never shown where
    /// a name belongs.
    public static func shown(_ id: String?, names: [String: String]) -> String? {
        id.flatMap { names[$0] }
    }
}
