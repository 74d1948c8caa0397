/// The two tabs, in the order the tab bar shows them.
public enum Tab: Int, CaseIterable, Hashable, Sendable {
    case notes, photos

    /// The tab bar's word for the tab (the end-to-end tests look for these).
    public var title: String {
        switch self {
        case .notes: return "Notes"
        case .photos: return "PanoPhotos"
        }
    }

    /// What the tab lists, for messages: "notes", "photos".
    public var noun: String { self == .notes ? "notes" : "photos" }
}
