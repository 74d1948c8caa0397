import DropboxWire
import Foundation

/// Listings followed page by page, the next page asked for while this one is decoded.
///
/// A page's cursor is read first (``PageHead`` skips the entries); the request for the next page
/// goes out at once, and the page's 2,000 entries are decoded while the server makes it. A
/// 100,000-file `byteclub ls` waited for the server and for its own decoding in turn.
extension DropboxStore {
    /// What a listing page says about the next one.
    struct PageHead: Decodable, Sendable {
        var cursor: String
        var hasMore: Bool
        enum CodingKeys: String, CodingKey { case cursor, hasMore = "has_more" }
    }

    /// Every page of the listing of `folder` (all under it when `recursive`), in order, to
    /// `each`, within `limits`. A `reset` mid-way throws `.cursorReset`, as a page does.
    func forEachPipelinedPage(_ folder: String, recursive: Bool, limits: ListingLimits,
                              _ each: (ListFolderResult) async throws(RemoteError) -> Void) async throws(RemoteError) {
        var reply = try await page(.listFolder, ["path": folder, "recursive": recursive, "limit": 2000], folder: folder)
        var paging = ListingGuard(folder: folder, limits: limits)
        while true {
            // The next page's request is a task of its own: a cancelled listing stops here.
            if Task.isCancelled { throw .cancelled }
            let next = reply.head.hasMore ? Self.nextPage(self, cursor: reply.head.cursor, folder: folder) : nil
            do throws(RemoteError) {
                let page = try Self.decode(ListFolderResult.self, from: reply.body)
                try paging.page(count: page.entries.count, next: page.hasMore ? page.cursor : nil)
                try await each(page)
            } catch {
                // The page asked ahead is cancelled and waited for: a command ending on this
                // error leaves no request of its own running while the process exits.
                next?.cancel()
                _ = await next?.value
                throw error
            }
            guard let next else { return }
            reply = try await withTaskCancellationHandler { await next.value } onCancel: { next.cancel() }.get()
        }
    }

    private static func nextPage(_ store: DropboxStore, cursor: String, folder: String) -> Task<Result<(head: PageHead, body: Data), RemoteError>, Never> {
        Task {
            do throws(RemoteError) {
                return .success(try await store.page(.listFolderContinue, ["cursor": cursor], folder: folder))
            } catch {
                return .failure(error)
            }
        }
    }

    /// A listing page's bytes, with its head read (inside the retries: a garbled page is retried).
    private func page(_ endpoint: Endpoint, _ argument: [String: Any], folder: String) async throws(RemoteError) -> (head: PageHead, body: Data) {
        try await rpc(endpoint, argument, path: folder, idempotent: true) { (data: Data) throws(RemoteError) -> (head: PageHead, body: Data) in
            (try Self.decode(PageHead.self, from: data), data)
        }
    }
}
