import Foundation

extension SimulatedLiveHistory {
    // MARK: The promise

    /// Every word typed is in the file once (a deleted one not at all), and every member's text
    /// is the file's.
    public func violations() -> [String] {
        var found: [String] = []
        // Each word is a member's name (or "shell") and a number. Two inserted at one place at
        // once may touch ("cy4shell21": a line the shell added where a member typed meanwhile,
        // the live text's order of concurrent inserts): still each once, and so is one whose
        // space a text merge took beside another change ("Minutescy15"). A word cut in two by
        // another is not there.
        let counts = wordCounts(in: file)
        for (word, count) in expected.sorted(by: { $0.key < $1.key }) where counts[word, default: 0] != count {
            if count == 0, counts[word] == 1, deletedAfterSaveAlone.contains(word) { continue }
            found.append("\(word) is in the file \(counts[word, default: 0]) times, not \(count)")
        }
        for member in members where apps[member]?.editor != file {
            found.append("\(member)'s text is not the file's")
        }
        for member in members where apps[member].map({ $0.note.text != $0.editor }) == true {
            found.append("\(member)'s document is not \(member)'s editor")
        }
        found += divergedAt.prefix(1)
        if !found.isEmpty { found.append("the file: " + file.replacingOccurrences(of: "\n", with: "⏎")) }
        return found
    }

    /// How many times each word typed (a member's name or "shell", and a number) is in `text`.
    func wordCounts(in text: String) -> [String: Int] {
        words(in: text).reduce(into: [:]) { $0[$1, default: 0] += 1 }
    }

    /// The words typed (a member's name or "shell", and a number) in `text`, in order.
    func words(in text: String) -> [String] {
        var found: [String] = []
        let names = members + ["shell"]
        for piece in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            var rest = Substring(piece)
            // Letters before a name are the note's own words ("Minutes"), never a typed word's.
            while !rest.isEmpty, !names.contains(where: { rest.hasPrefix($0) }), rest.first?.isNumber == false { rest = rest.dropFirst() }
            while let name = names.first(where: { rest.hasPrefix($0) }) {
                let digits = rest.dropFirst(name.count).prefix { $0.isASCII && $0.isNumber }
                guard !digits.isEmpty else { break }
                found.append(name + digits)
                rest = rest.dropFirst(name.count + digits.count)
            }
        }
        return found
    }

    /// Words deleted after a save made alone that a text merge at the join kept (see
    /// ``deletedAfterSaveAlone``).
    public var deletesKeptByMerges: Int {
        let counts = wordCounts(in: file)
        return deletedAfterSaveAlone.filter { expected[$0] == 0 && counts[$0] == 1 }.count
    }

    public var tally: String {
        "\(members.count) members, \(expected.count) words (\(expected.values.filter { $0 == 0 }.count) deleted), \(revisions) revisions (\(restores) restored), \(compactions) compactions, \(typedJoins) joins with typing (\(mergedJoins) merged as text), \(undos) undos and redos (\(undosOfTypingAlone) taking out a word typed before the join), \(deletesKeptByMerges) deletes after a save made alone kept by a text merge"
    }
}
