import Foundation

/// A fresh temporary directory with `files` (relative path → contents) written into it.
func temporaryDirectory(_ files: [String: String]) throws -> URL {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("promptkit-\(UUID().uuidString)")
    for (path, contents) in files {
        let url = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try contents.write(to: url, atomically: true, encoding: .utf8)
    }
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    return root
}

/// A minimal strict-compatible schema for test prompts.
let tinySchema = """
    {"type":"object","properties":{"items":{"type":"array","items":{"type":"string"}}},"required":["items"],"additionalProperties":false}
    """

/// A valid prompt file; `replacing` swaps text to break it in one place.
func promptYAML(id: String = "demo", version: Int = 1, extra: String = "") -> String {
    """
    id: \(id)
    version: \(version)
    description: A test prompt.
    model: test-model
    parameters: {temperature: 0, seed: 7, max_tokens: 100}
    output: {name: demo, schema: schemas/tiny.json}
    variables: [messages, today]
    system: |
      Today is {{today}}.
      Be brief.
    user: |
      <messages>
      {{ messages }}
      </messages>
    \(extra)
    """
}
