import Testing
@testable import Extractors

@Suite("Bipartite matching")
struct BipartiteMatchingTests {
    @Test func augmentingPathsReroutEarlierPairs() {
        // Greedy: 0→0, 1 stuck (only 0), 2→1 … maximum pairs all three.
        let pairs = BipartiteMatching.maximum(candidates: [[0, 1], [0], [1, 2]], rightCount: 3)
        #expect(pairs.compactMap { $0 }.count == 3)
        #expect(pairs == [1, 0, 2])
    }

    @Test func sizeIsBoundedByTheSmallerSide() {
        let pairs = BipartiteMatching.maximum(candidates: [[0], [0], [0]], rightCount: 1)
        #expect(pairs.compactMap { $0 } == [0])
        #expect(BipartiteMatching.maximum(candidates: [[], []], rightCount: 2) == [nil, nil])
    }
}
