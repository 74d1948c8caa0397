import DropboxWire
import Foundation

/// Listings followed page by page, the next page asked for as soon as this one is read.
///
/// A page is read inside the retries (a garbled page is asked again), and the request for the
/// next page goes out before this one is handed on, so the server makes it while this one is
/// printed or applied. A 100,000-file `byteclub ls` waited for the server and for its own
/// decoding in turn; then each page was scanned twice by `JSONDecoder` (its cursor first, to ask
/// ahead). ``ListingPageReader`` reads a club server's page in one pass.
extension DropboxStore {
    /// Every page of the listing of `folder` (all under it when `recursive`), in order, to
    /// `each`, within `limits`. A `reset` mid-way throws `.cursorReset`, as a page does.
    func forEachPipelinedPage(_ folder: String, recursive: Bool, limits: ListingLimits,
                              _ each: (ListFolderResult) async throws(RemoteError) -> Void) async throws(RemoteError) {
        var page = try await self.page(.listFolder, ["path": folder, "recursive": recursive, "limit": 2000], folder: folder)
        var paging = ListingGuard(folder: folder, limits: limits)
        while true {
            // The next page's request is a task of its own: a cancelled listing stops here.
            if Task.isCancelled { throw .cancelled }
            let next = page.hasMore ? Self.nextPage(self, cursor: page.cursor, folder: folder) : nil
            do throws(RemoteError) {
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
            page = try await withTaskCancellationHandler { await next.value } onCancel: { next.cancel() }.get()
        }
    }

    private static func nextPage(_ store: DropboxStore, cursor: String, folder: String) -> Task<Result<ListFolderResult, RemoteError>, Never> {
        Task {
            do throws(RemoteError) {
                return .success(try await store.page(.listFolderContinue, ["cursor": cursor], folder: folder))
            } catch {
                return .failure(error)
            }
        }
    }

    /// A listing page, read inside the retries (a garbled page is retried).
    private func page(_ endpoint: Endpoint, _ argument: [String: Any], folder: String) async throws(RemoteError) -> ListFolderResult {
        try await rpc(endpoint, argument, path: folder, idempotent: true, decoding: ListFolderResult.self)
    }
}
