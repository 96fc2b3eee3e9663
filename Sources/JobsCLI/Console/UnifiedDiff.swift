/// A line diff in the unified format (`diff -u`), for `prompts diff`: small inputs (a prompt is a few hundred lines),
/// so a longest-common-subsequence table is plenty.
package enum UnifiedDiff {
    /// The hunks turning `old` into `new` with `context` unchanged lines around each change, under `---`/`+++` headers;
    /// nil when the two are the same.
    package static func diff(_ old: [String], _ new: [String], oldName: String, newName: String, context: Int = 3) -> String? {
        let edits = script(old, new)
        guard edits.contains(where: { $0.kind != .same }) else { return nil }
        var lines = ["--- \(oldName)", "+++ \(newName)"]
        // Group edits into hunks: changes closer than 2 * context lines share one.
        var index = 0
        while index < edits.count {
            guard let firstChange = edits[index...].firstIndex(where: { $0.kind != .same }) else { break }
            let start = max(index, firstChange - context)
            var end = firstChange
            var cursor = firstChange
            while cursor < edits.count {
                if edits[cursor].kind != .same { end = cursor; cursor += 1; continue }
                let nextChange = edits[cursor...].firstIndex { $0.kind != .same }
                guard let nextChange, nextChange - end <= 2 * context else { break }
                cursor = nextChange
            }
            let stop = min(edits.count, end + context + 1)
            let hunk = edits[start..<stop]
            let oldCount = hunk.count { $0.kind != .added }, newCount = hunk.count { $0.kind != .removed }
            let oldStart = (hunk.first?.oldLine ?? 0) + (oldCount == 0 ? 0 : 1)
            let newStart = (hunk.first?.newLine ?? 0) + (newCount == 0 ? 0 : 1)
            lines.append("@@ -\(oldStart),\(oldCount) +\(newStart),\(newCount) @@")
            for edit in hunk {
                switch edit.kind {
                case .same: lines.append(" " + edit.text)
                case .removed: lines.append("-" + edit.text)
                case .added: lines.append("+" + edit.text)
                }
            }
            index = stop
        }
        return lines.joined(separator: "\n")
    }

    struct Edit {
        enum Kind { case same, removed, added }
        let kind: Kind
        let text: String
        /// Lines of `old` and `new` before this one (0-based positions).
        let oldLine: Int
        let newLine: Int
    }

    /// The shortest edit script by a longest-common-subsequence table.
    static func script(_ old: [String], _ new: [String]) -> [Edit] {
        let n = old.count, m = new.count
        var table = Array(repeating: Array(repeating: 0, count: m + 1), count: n + 1)
        for i in stride(from: n - 1, through: 0, by: -1) {
            for j in stride(from: m - 1, through: 0, by: -1) {
                table[i][j] = old[i] == new[j] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
            }
        }
        var edits: [Edit] = []
        var i = 0, j = 0
        while i < n || j < m {
            if i < n, j < m, old[i] == new[j] {
                edits.append(Edit(kind: .same, text: old[i], oldLine: i, newLine: j)); i += 1; j += 1
            } else if i < n, j == m || table[i + 1][j] >= table[i][j + 1] {
                // Removals first, as `diff -u` prints them.
                edits.append(Edit(kind: .removed, text: old[i], oldLine: i, newLine: j)); i += 1
            } else {
                edits.append(Edit(kind: .added, text: new[j], oldLine: i, newLine: j)); j += 1
            }
        }
        return edits
    }
}
