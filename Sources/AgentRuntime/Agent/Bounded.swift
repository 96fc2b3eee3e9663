/// Cuts text to `limit` characters, marking the cut, so traces and error results stay small.
func bounded(_ text: String, limit: Int = 500) -> String {
    guard text.count > limit else { return text }
    return String(text.prefix(limit)) + "… (\(text.count - limit) more characters)"
}
