import Core
package import Foundation
package import Logging

/// One JSON object per log record, on one line: `time` (ISO 8601, UTC, milliseconds), `level`, `label`, `message`,
/// then the metadata as fields (`run`, `conversation`, `feature`, `request`...), for log collectors that index fields.
/// swift-log ships only text handlers (`StreamLogHandler`), so this one is ours; it writes through JSONKit's
/// serializer, which escapes every control character, so a message with newlines stays one line.
package struct JSONLogHandler: LogHandler {
    /// Field names the record itself uses; metadata under one of these names is written as `metadata.<name>`.
    static let reservedFields: Set<String> = ["time", "level", "label", "message"]

    package let label: String
    package var logLevel: Logger.Level
    package var metadata: Logger.Metadata = [:]
    package var metadataProvider: Logger.MetadataProvider?
    private let write: @Sendable (String) -> Void
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - write: takes one finished line (without its newline); stderr by default.
    ///   - now: the record's time (replaceable in tests).
    package init(label: String, level: Logger.Level = .info, metadataProvider: Logger.MetadataProvider? = nil,
                write: @escaping @Sendable (String) -> Void = { Console.error($0) },
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.label = label
        self.logLevel = level
        self.metadataProvider = metadataProvider
        self.write = write
        self.now = now
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let own = event.metadata { merged.merge(own) { _, new in new } }
        write(Self.line(time: now(), level: event.level, label: label, message: event.message.description, metadata: merged))
    }

    /// The record as one line of JSON: the fixed fields first, then the metadata in key order.
    package static func line(time: Date, level: Logger.Level, label: String, message: String, metadata: Logger.Metadata) -> String {
        var pairs: [(String, JSONValue)] = [
            ("time", .string(timestamp(time))), ("level", .string(level.rawValue)),
            ("label", .string(label)), ("message", .string(message)),
        ]
        for key in metadata.keys.sorted() {
            pairs.append((reservedFields.contains(key) ? "metadata.\(key)" : key, json(metadata[key]!)))
        }
        return JSONValue.object(JSONObject(pairs)).serialized()
    }

    /// `2026-11-25T01:02:03.456Z`.
    static func timestamp(_ time: Date) -> String {
        let seconds = time.timeIntervalSince1970.rounded(.down)
        let millis = min(999, Int(((time.timeIntervalSince1970 - seconds) * 1000).rounded(.down)))
        let whole = ISO8601Instant.string(time)
        let digits = String(millis)
        return String(whole.dropLast()) + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    /// Numbers are written as JSON numbers (`"requests": 5`, `"seconds": 1.2`), whether the value was logged as a
    /// number or as its text (the code logs `"\(count)"`); every other value is a string.
    static func json(_ value: Logger.Metadata.Value) -> JSONValue {
        switch value {
        case .string(let text): number(text) ?? .string(text)
        case .stringConvertible(let value): number(value.description) ?? .string(value.description)
        case .array(let values): .array(values.map(json))
        case .dictionary(let entries): .object(JSONObject(entries.keys.sorted().map { ($0, json(entries[$0]!)) }))
        }
    }

    /// A plain decimal (`42`, `-3`, `0.25`), without leading zeros or exponent and short enough to stay exact; nil for
    /// anything else, so ids and codes such as `007` stay text.
    static func number(_ text: String) -> JSONValue? {
        guard !text.isEmpty, text.utf8.count <= 15,
              text.wholeMatch(of: /-?(0|[1-9][0-9]*)(\.[0-9]+)?/) != nil else { return nil }
        if let integer = Int64(text) { return .integer(integer) }
        return Double(text).map(JSONValue.number)
    }
}
