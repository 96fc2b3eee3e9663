package import Core

/// The one rule by which the benchmark server bills every request, whoever sends it (our scan, the seed's design,
/// our agent loop, the Python Agents SDK), so token totals compare like with like. A real tokenizer would give other
/// absolute numbers but the same ratios, since both sides send the same kind of text.
///
/// Billed: tokens = ceil(UTF-8 bytes / 4) of
/// - prompt: every message's text (string content or text parts, and the name and arguments of assistant tool
///   calls), plus the compact JSON of `tools` and `response_format` (a provider bills schemas too);
/// - completion: the answer's content, and the name and arguments of each tool call it makes.
package enum TokenCostRule {
    package static func tokens(bytes: Int) -> Int { (bytes + 3) / 4 }

    package static func promptTokens(_ request: JSONValue) -> Int { tokens(bytes: promptBytes(request)) }

    package static func completionTokens(_ message: JSONValue) -> Int { tokens(bytes: messageBytes(message)) }

    package static func promptBytes(_ request: JSONValue) -> Int {
        var bytes = (request["messages"]?.arrayValue ?? []).reduce(0) { $0 + messageBytes($1) }
        for key in ["tools", "response_format"] {
            if let value = request[key], !value.isNull { bytes += value.serialized().utf8.count }
        }
        return bytes
    }

    /// The text of one chat message: its content and its tool calls' names and arguments.
    package static func messageBytes(_ message: JSONValue) -> Int {
        var bytes = 0
        switch message["content"] {
        case .string(let text)?:
            bytes += text.utf8.count
        case .array(let parts)?:
            bytes += parts.reduce(0) { $0 + ($1["text"]?.stringValue?.utf8.count ?? 0) }
        default:
            break
        }
        for call in message["tool_calls"]?.arrayValue ?? [] {
            bytes += (call["function"]?["name"]?.stringValue?.utf8.count ?? 0)
                + (call["function"]?["arguments"]?.stringValue?.utf8.count ?? 0)
        }
        return bytes
    }
}
