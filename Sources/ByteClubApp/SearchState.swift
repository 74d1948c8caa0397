import Foundation
import Remote
import TerminalUI

/// The search results screen (`Ctrl-F` on the notes list): the query being typed, the notes it
/// found, and which one is selected. A value the app keeps in ``AppState/search``.
///
/// It is a state machine in the shape of the transfers': keys and answers go in, actions come
/// out, and ``SearchController`` carries them out. Queries run off the UI queue, one at a time:
/// a key typed while one runs only marks the query as stale, and when the running one answers,
/// its hits are shown and the newest text is asked for next. So typing never waits for the
/// index, no answer overwrites a newer one, and a fast typist costs one query per answer, not
/// one per key.
public struct SearchState: Equatable, Sendable {
    /// What the owner does after a key or an answer.
    public enum Action: Equatable, Sendable {
        /// Nothing beyond a new frame.
        case none
        /// Run `query` off the UI queue and hand its answer to ``deliver(_:generation:)`` with `generation`.
        case run(query: String, generation: Int, folder: String?)
        /// Open this hit in the editor at its match.
        case open(SearchResult)
        /// Close the results (Esc): back to the notes list.
        case close
    }

    /// What the results screen's own keys do (the query's editing keys are the text input's).
    public enum Key: Hashable, Sendable { case open, close, up, down, pageUp, pageDown, scope }

    /// The results screen's keys; help lists them with the text input's.
    public static let bindings = KeyBindings<Key>(group: "Search", [
        .init([.enter], .open, "Open the note at the match"),
        .init([.escape], .close, "Back to the notes list"),
        .init([.up], .up, "Previous result"),
        .init([.down], .down, "Next result"),
        .init([.pageUp], .pageUp, "Page up"),
        .init([.pageDown], .pageDown, "Page down"),
        .init([.ctrl("f")], .scope, "Search this folder (Ctrl-F again: the whole club)"),
    ])

    /// A query's answer: its text and the notes it found.
    public struct Answer: Equatable, Sendable {
        public var query: String
        public var results: [SearchResult]

        public init(query: String, results: [SearchResult]) {
            self.query = query
            self.results = results
        }
    }

    /// How many hits a query asks for: a screenful and some to scroll ("50+ notes" past it). A
    /// common word matches every note; reading and scanning 200 bodies before the first frame
    /// cost the results p95 well past 30 ms (docs/benchmarks.md).
    public static let limit = 50

    public var query = TextInputState()
    /// The folder the notes list showed when the search opened (nil: the club folder), and
    /// whether the search is kept to it ("Search this folder"); by default the whole club.
    public var folder: String?
    public var onlyThisFolder = false
    /// The hits of ``answered``, best first.
    public private(set) var hits: [SearchResult] = []
    /// The query text the hits answer (nil before the first answer).
    public private(set) var answered: String?
    /// Why the last query failed (a bad query), shown in place of the hits.
    public private(set) var error: String?
    public private(set) var selected = 0
    /// The first hit on screen; drawing keeps the selection in view.
    public var offset = 0
    /// Hits per screen, learned when drawn.
    public var pageSize = 5
    /// The generation of the query running off the UI queue, if one is.
    public private(set) var running: Int?
    /// Whether the text changed (or the index did) since the running query was sent.
    public private(set) var isStale = false
    private var generation = 0

    public init(query: String = "") {
        self.query = TextInputState(text: query)
    }

    /// Whether an answer is awaited.
    public var isSearching: Bool { running != nil }

    /// The selected hit, if any.
    public var selectedHit: SearchResult? { hits.indices.contains(selected) ? hits[selected] : nil }

    /// A key on the results screen.
    public mutating func handle(_ key: TerminalUI.Key) -> Action {
        if let action = Self.bindings.action(for: key) {
            switch action {
            case .open: return selectedHit.map(Action.open) ?? .none
            case .close: return .close
            case .up: select(selected - 1)
            case .down: select(selected + 1)
            case .pageUp: select(selected - max(1, pageSize))
            case .pageDown: select(selected + max(1, pageSize))
            case .scope:
                guard folder != nil else { return .none }
                onlyThisFolder.toggle()
                return queryChanged()
            }
            return .none
        }
        let before = query.text
        switch query.handle(key) {
        case .edited where query.text != before: return queryChanged()
        case .ignored: return .none
        default: return .none
        }
    }

    /// Whether `key` is one the results screen takes (the rest go to the global keys).
    public static func takes(_ key: TerminalUI.Key) -> Bool {
        if bindings.action(for: key) != nil { return true }
        var probe = TextInputState(text: "x")
        probe.cursor = 1
        return probe.handle(key) != .ignored
    }

    /// The index changed (a note came in, the first sync went further): the hits on screen may
    /// be out of date, so the query runs again.
    public mutating func indexChanged() -> Action { queryChanged() }

    /// The query's text changed: run it now, or after the one running.
    private mutating func queryChanged() -> Action {
        let text = query.text.trimmingCharacters(in: .whitespaces)
        if text.isEmpty {
            // Nothing to ask: clear at once, and drop the answer of whatever runs.
            hits = []
            answered = nil
            error = nil
            isStale = false
            if running != nil { generation += 1 }
            running = nil
            select(0)
            return .none
        }
        if running != nil {
            isStale = true
            return .none
        }
        generation += 1
        running = generation
        isStale = false
        return .run(query: text, generation: generation, folder: onlyThisFolder ? folder : nil)
    }

    /// The answer of the query sent as `generation`. Returns the next query to run when the
    /// text changed meanwhile; an answer nobody waits for any more is dropped.
    public mutating func deliver(_ result: Result<Answer, RemoteError>, generation: Int) -> Action {
        guard running == generation else { return .none }
        running = nil
        switch result {
        case .success(let answer):
            let keep = selectedHit?.path.lowercased(), sameQuery = answer.query == answered
            hits = answer.results
            answered = answer.query
            error = nil
            // The same note stays selected when the hits are refreshed under it.
            if let keep, let index = hits.firstIndex(where: { $0.path.lowercased() == keep }) {
                selected = index
            } else if !sameQuery {
                selected = 0
            }
            select(selected)
        case .failure(let failure):
            error = failure.message
            hits = []
            answered = nil
            select(0)
        }
        return isStale ? queryChanged() : .none
    }

    private mutating func select(_ index: Int) {
        selected = hits.isEmpty ? 0 : min(max(0, index), hits.count - 1)
        if selected < offset { offset = selected }
        if selected >= offset + max(1, pageSize) { offset = selected - max(1, pageSize) + 1 }
        offset = max(0, min(offset, max(0, hits.count - max(1, pageSize))))
    }

    /// Drawing learned how many hits fit: the selection stays in view.
    public mutating func fit(pageSize: Int) {
        self.pageSize = max(1, pageSize)
        select(selected)
    }
}
