/// Maximum bipartite matching by augmenting paths (Kuhn's algorithm).
///
/// Greedy pairing can strand an item whose only partner was taken by one that had others; augmenting
/// paths re-route earlier pairs so the number of pairs is maximal. Sizes are a handful of items per
/// fixture, so the O(V·E) bound is irrelevant.
enum BipartiteMatching {
    /// `candidates[l]` lists the right-side indices left item `l` may pair with, most preferred first.
    /// Returns `pairs[l]` = the matched right index, or nil. Deterministic for a given input.
    static func maximum(candidates: [[Int]], rightCount: Int) -> [Int?] {
        var rightToLeft = [Int?](repeating: nil, count: rightCount)
        for left in candidates.indices {
            var visited = [Bool](repeating: false, count: rightCount)
            _ = augment(left, candidates, &rightToLeft, &visited)
        }
        var pairs = [Int?](repeating: nil, count: candidates.count)
        for (right, left) in rightToLeft.enumerated() {
            if let left { pairs[left] = right }
        }
        return pairs
    }

    private static func augment(_ left: Int, _ candidates: [[Int]], _ rightToLeft: inout [Int?], _ visited: inout [Bool]) -> Bool {
        for right in candidates[left] where !visited[right] {
            visited[right] = true
            if let owner = rightToLeft[right] {
                if augment(owner, candidates, &rightToLeft, &visited) {
                    rightToLeft[right] = left
                    return true
                }
            } else {
                rightToLeft[right] = left
                return true
            }
        }
        return false
    }
}
