import Core
package import Foundation

/// Reads the files of a prompt set: from disk, or from the set compiled into the binary when the path lies under
/// `embeddedRoot`. Prompts, their schemas (relative paths such as `../schemas/x.json`) and the price file are all
/// read here, so the embedded set and a directory behave alike.
package enum PromptFiles {
    /// Where the embedded set appears (`<embedded>/prompts`, `<embedded>/schemas`); nothing there is read from disk.
    static let embeddedRoot = URL(fileURLWithPath: "/<embedded>")
    /// The embedded prompts folder: the default prompt set.
    package static let embeddedPrompts = embeddedRoot.appendingPathComponent("prompts")

    /// Whether `url` names the embedded set or a file in it.
    package static func isEmbedded(_ url: URL) -> Bool {
        url.standardizedFileURL.path == embeddedRoot.path || embeddedKey(url) != nil
    }

    /// The names of the entries directly inside `directory`.
    package static func names(in directory: URL) throws -> [String] {
        if let key = embeddedKey(directory) {
            guard EmbeddedFiles.isDirectory(key) else { throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: directory.path]) }
            return EmbeddedFiles.names(in: key)
        }
        return try FileManager.default.contentsOfDirectory(atPath: directory.path)
    }

    /// A file's bytes, or nil when it does not exist or cannot be read.
    package static func data(at url: URL) -> Data? {
        if let key = embeddedKey(url) { return EmbeddedFiles.all[key] }
        return try? Data(contentsOf: url)
    }

    /// Whether `url` is a directory (embedded or on disk).
    package static func isDirectory(_ url: URL) -> Bool {
        if let key = embeddedKey(url) { return EmbeddedFiles.isDirectory(key) }
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    private static func embeddedKey(_ url: URL) -> String? {
        let path = url.standardizedFileURL.path
        let root = embeddedRoot.path + "/"
        return path.hasPrefix(root) ? String(path.dropFirst(root.count)) : nil
    }
}
