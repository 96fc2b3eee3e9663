package import Foundation

/// The shipped prompts, schemas and SQL migrations, compiled into the binary by the EmbedFiles build plugin, so a
/// binary copied alone to a server needs no file beside it.
package enum EmbeddedFiles {
    /// Contents by path: `prompts/…`, `schemas/…` as in the repository, `migrations/<set>/<file>.sql`.
    package static let all: [String: Data] = {
        var files: [String: Data] = [:]
        for (path, base64) in EmbeddedData.files {
            guard let data = Data(base64Encoded: base64) else { preconditionFailure("embedded file \(path) is not base64") }
            files[path] = data
        }
        return files
    }()

    /// The names of the files directly inside `directory` (a path such as `prompts`), sorted.
    package static func names(in directory: String) -> [String] {
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        return all.keys.filter { $0.hasPrefix(prefix) && !$0.dropFirst(prefix.count).contains("/") }
            .map { String($0.dropFirst(prefix.count)) }.sorted()
    }

    /// Whether `directory` holds any embedded file, directly or below.
    package static func isDirectory(_ directory: String) -> Bool {
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        return all.keys.contains { $0.hasPrefix(prefix) }
    }
}
