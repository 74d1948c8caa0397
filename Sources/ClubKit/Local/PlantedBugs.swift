import Synchronization

/// Known past bugs, put back on purpose so that the simulation (`byteclub-torture --simulate
/// --plant NAME`, `SimulationTests`) can show it finds each (issue 70: "prove it catches").
/// Nothing sets one but the simulation; with none set, each check costs one uncontended lock.
public enum PlantedBug: String, CaseIterable, Sendable {
    /// Every club's drafts in one folder: a draft of another club is resumed (and saved) here.
    case otherClubsDraft = "other-clubs-draft"
    /// A move leaves the queue's changes at the old path: they are sent there, find no note, and
    /// the member is told it was deleted meanwhile.
    case queueLeftAtMovedPath = "queue-left-at-moved-path"
    /// A save sent again (its reply lost, or its process killed before it heard) whose note
    /// changed meanwhile lays what was typed onto their text again, as a live note's journal
    /// was once replayed after a kill -9: the words arrive twice.
    case burstReplayedTwice = "burst-replayed-twice"
    /// What a member typed alone before a live note's join goes in as it once did: the texts
    /// merged line by line and laid on the shared text as one replacement, from the first change
    /// to the last, not as the operations it was. Two members who typed alone put the text
    /// between their edits in twice (the live histories, `--backends live,live-encrypted`).
    case typingMergedAsText = "typing-merged-as-text"
}

extension PlantedBug {
    private static let active = Mutex<Set<PlantedBug>>([])

    /// The bugs planted now.
    public static var planted: Set<PlantedBug> {
        get { active.withLock { $0 } }
        set { active.withLock { $0 = newValue } }
    }

    /// Whether this bug is planted.
    public var isPlanted: Bool { Self.active.withLock { $0.contains(self) } }
}
