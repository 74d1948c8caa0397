/// A run of lines that differ between two texts: lines `a` of the first were replaced by lines
/// `b` of the second (either may be empty: an insertion, a deletion).
struct Hunk: Equatable, Sendable {
    var a: Range<Int>
    var b: Range<Int>
}

/// The line diff: Myers' O(ND) algorithm in linear space (the "middle snake", split and
/// recursed), on lines numbered by ``LineTable``.
///
/// Two things keep it fast on real notes before Myers runs: the common head and tail are cut
/// off first, and lines that occur in only one of the two texts are set aside (they can never
/// match, so they cannot change the longest common subsequence), which turns a rewritten block
/// into nothing to search. The result is a minimal diff.
enum LineDiff {
    /// The hunks that turn `a` into `b`, in order; between two hunks at least one line matches.
    static func hunks(_ a: [Int32], _ b: [Int32]) -> [Hunk] {
        let pairs = matches(a, b)
        var hunks: [Hunk] = []
        var i = 0, j = 0
        for (x, y) in pairs {
            if x > i || y > j { hunks.append(Hunk(a: i..<x, b: j..<y)) }
            i = x + 1
            j = y + 1
        }
        if i < a.count || j < b.count { hunks.append(Hunk(a: i..<a.count, b: j..<b.count)) }
        return hunks
    }

    /// The hunks that turn `a` into `b`, anchored first on what occurs once in each (patience
    /// diff's anchors: the longest run of them in the same order), and minimal between anchors.
    /// Words that occur once are the text's landmarks: a minimal diff may match `x` with another
    /// `x` than the landmark and call a deleted word a changed one (`a x` to `x b` as `a` to `x`,
    /// `x` to `b`), which a merge then brings back.
    static func anchoredHunks(_ a: [Int32], _ b: [Int32]) -> [Hunk] {
        var counts: [Int32: (a: Int, b: Int, at: Int)] = [:]
        for (index, v) in a.enumerated() { counts[v, default: (0, 0, 0)].a += 1; counts[v]?.at = index }
        for v in b { counts[v, default: (0, 0, 0)].b += 1 }
        // The tokens once in each, in a's order, with where they are in b.
        var once: [(i: Int, j: Int)] = []
        for (j, v) in b.enumerated() {
            if let count = counts[v], count.a == 1, count.b == 1 { once.append((count.at, j)) }
        }
        once.sort { $0.i < $1.i }
        // The longest run increasing in b too (patience sorting).
        var tails: [Int] = [], previous = [Int](repeating: -1, count: once.count)
        for (index, pair) in once.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let mid = (low + high) / 2
                if once[tails[mid]].j < pair.j { low = mid + 1 } else { high = mid }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var anchors: [(i: Int, j: Int)] = []
        var at = tails.last ?? -1
        while at >= 0 {
            anchors.append(once[at])
            at = previous[at]
        }
        anchors.reverse()
        var hunks: [Hunk] = []
        var (i, j) = (0, 0)
        for (x, y) in anchors.map({ ($0.i, $0.j) }) + [(a.count, b.count)] {
            for hunk in Self.hunks(Array(a[i..<x]), Array(b[j..<y])) {
                hunks.append(Hunk(a: (hunk.a.lowerBound + i)..<(hunk.a.upperBound + i), b: (hunk.b.lowerBound + j)..<(hunk.b.upperBound + j)))
            }
            (i, j) = (x + 1, y + 1)
        }
        return hunks
    }

    /// The matched lines of a longest common subsequence, as (index in a, index in b), increasing.
    static func matches(_ a: [Int32], _ b: [Int32]) -> [(Int, Int)] {
        // Lines that occur in only one text cannot match: keep the others, and where they were.
        var maxLine: Int32 = -1
        for v in a where v > maxLine { maxLine = v }
        for v in b where v > maxLine { maxLine = v }
        var inA = [Bool](repeating: false, count: Int(maxLine) + 1)
        var inB = inA
        for v in a { inA[Int(v)] = true }
        for v in b { inB[Int(v)] = true }
        var keptA: [Int32] = [], whereA: [Int] = []
        var keptB: [Int32] = [], whereB: [Int] = []
        keptA.reserveCapacity(a.count); whereA.reserveCapacity(a.count)
        keptB.reserveCapacity(b.count); whereB.reserveCapacity(b.count)
        for (i, v) in a.enumerated() where inB[Int(v)] { keptA.append(v); whereA.append(i) }
        for (j, v) in b.enumerated() where inA[Int(v)] { keptB.append(v); whereB.append(j) }

        var pairs: [(Int, Int)] = []
        pairs.reserveCapacity(min(keptA.count, keptB.count))
        keptA.withUnsafeBufferPointer { ka in
            keptB.withUnsafeBufferPointer { kb in
                var search = MiddleSnakeSearch(a: ka, b: kb)
                search.solve(aLow: 0, aHigh: ka.count, bLow: 0, bHigh: kb.count, into: &pairs)
            }
        }
        return pairs.map { (whereA[$0.0], whereB[$0.1]) }
    }
}

/// Myers' divide and conquer: find the middle snake of the shortest edit script, solve both
/// sides of it the same way. Memory is two vectors of the sum of the lengths.
private struct MiddleSnakeSearch {
    let a: UnsafeBufferPointer<Int32>
    let b: UnsafeBufferPointer<Int32>
    /// The furthest x reached on each diagonal, forward and backward (offset so k = -max is 0).
    var forward: [Int]
    var backward: [Int]

    init(a: UnsafeBufferPointer<Int32>, b: UnsafeBufferPointer<Int32>) {
        self.a = a
        self.b = b
        let size = 2 * (a.count + b.count) + 4
        forward = [Int](repeating: 0, count: size)
        backward = [Int](repeating: 0, count: size)
    }

    /// Appends the matches of a[aLow..<aHigh] against b[bLow..<bHigh], in order.
    mutating func solve(aLow: Int, aHigh: Int, bLow: Int, bHigh: Int, into pairs: inout [(Int, Int)]) {
        var aLow = aLow, aHigh = aHigh, bLow = bLow, bHigh = bHigh
        // The common head, then the common tail (kept to append after the middle).
        while aLow < aHigh, bLow < bHigh, a[aLow] == b[bLow] {
            pairs.append((aLow, bLow))
            aLow += 1
            bLow += 1
        }
        var tail = 0
        while aLow < aHigh - tail, bLow < bHigh - tail, a[aHigh - tail - 1] == b[bHigh - tail - 1] { tail += 1 }
        aHigh -= tail
        bHigh -= tail
        if aLow < aHigh, bLow < bHigh {
            if let (x, y, u, v) = middleSnake(aLow: aLow, aHigh: aHigh, bLow: bLow, bHigh: bHigh) {
                solve(aLow: aLow, aHigh: x, bLow: bLow, bHigh: y, into: &pairs)
                for step in 0..<(u - x) { pairs.append((x + step, y + step)) }
                solve(aLow: u, aHigh: aHigh, bLow: v, bHigh: bHigh, into: &pairs)
            }
        }
        for step in 0..<tail { pairs.append((aHigh + step, bHigh + step)) }
    }

    /// The middle snake of the two ranges (which differ at both ends): from (x, y) to (u, v), in
    /// absolute indices (it may be empty). Always found by d = ⌈(n+m)/2⌉; nil is unreachable.
    private mutating func middleSnake(aLow: Int, aHigh: Int, bLow: Int, bHigh: Int) -> (Int, Int, Int, Int)? {
        let n = aHigh - aLow, m = bHigh - bLow
        let delta = n - m
        let odd = delta & 1 != 0
        let offset = n + m + 1
        let maxD = (n + m + 1) / 2
        // forward[offset + k]: furthest x (relative) on diagonal k = x - y from the start.
        // backward[offset + k]: furthest x' (relative, counted from the end) on diagonal k = x' - y'.
        forward[offset + 1] = 0
        backward[offset + 1] = 0
        for d in 0...maxD {
            var k = -d
            while k <= d {
                var x: Int
                if k == -d || (k != d && forward[offset + k - 1] < forward[offset + k + 1]) {
                    x = forward[offset + k + 1]
                } else {
                    x = forward[offset + k - 1] + 1
                }
                var y = x - k
                let startX = x, startY = y
                while x < n, y < m, a[aLow + x] == b[bLow + y] {
                    x += 1
                    y += 1
                }
                forward[offset + k] = x
                // Overlap with a backward path on the same diagonal (in forward terms: k = delta - k').
                if odd, k >= delta - (d - 1), k <= delta + (d - 1) {
                    let back = backward[offset + delta - k]
                    if x + back >= n {
                        return (aLow + startX, bLow + startY, aLow + x, bLow + y)
                    }
                }
                k += 2
            }
            k = -d
            while k <= d {
                var x: Int
                if k == -d || (k != d && backward[offset + k - 1] < backward[offset + k + 1]) {
                    x = backward[offset + k + 1]
                } else {
                    x = backward[offset + k - 1] + 1
                }
                var y = x - k
                let startX = x, startY = y
                while x < n, y < m, a[aHigh - x - 1] == b[bHigh - y - 1] {
                    x += 1
                    y += 1
                }
                backward[offset + k] = x
                if !odd, k >= delta - d, k <= delta + d {
                    let ahead = forward[offset + delta - k]
                    if ahead + x >= n {
                        // The snake, turned back into forward coordinates.
                        return (aHigh - x, bHigh - y, aHigh - startX, bHigh - startY)
                    }
                }
                k += 2
            }
        }
        return nil
    }
}
