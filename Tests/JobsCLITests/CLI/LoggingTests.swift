import JobsKit
import Foundation
import Core
import Logging
import TestSupport
import Testing
import JobsCLI
import NIOConcurrencyHelpers

/// `LOG_LEVEL` and `LOG_FORMAT` parsing, the JSON line format and the redaction every handler goes through.
@Suite("Logging")
struct LoggingTests {
    /// A logger whose JSON lines land in `lines`, behind the redaction `secrets` does.
    static func jsonLogger(_ lines: NIOLockedValueBox<[String]>, secrets: LogSecrets = LogSecrets(), level: Logger.Level = .debug) -> Logger {
        Logger(label: "messageai.test") { label in
            RedactingLogHandler(JSONLogHandler(label: label, level: level, write: { line in lines.withLockedValue { $0.append(line) } },
                                               now: { Date(timeIntervalSince1970: 1_795_000_000.25) }), secrets: secrets)
        }
    }

    @Test func logLevelIsCaseInsensitiveAndVerboseMeansDebug() throws {
        #expect(try LogSettings.from([:]).level == .notice)
        #expect(try LogSettings.from(["LOG_LEVEL": "DEBUG"]).level == .debug)
        #expect(try LogSettings.from(["LOG_LEVEL": "Warning"]).level == .warning)
        #expect(try LogSettings.from(["LOG_LEVEL": ""]).level == .notice)
        #expect(try LogSettings.from(["LOG_LEVEL": "error"], verbose: true).level == .debug)
        #expect(try LogSettings.from(["LOG_FORMAT": "JSON"]).format == .json)
        #expect(try LogSettings.from([:]).format == .text)
    }

    @Test func anUnknownLevelOrFormatIsAnErrorListingTheValidOnes() {
        #expect(throws: LogSettings.Invalid.self) { try LogSettings.from(["LOG_LEVEL": "verbose"]) }
        do {
            _ = try LogSettings.from(["LOG_LEVEL": "verbose"])
        } catch {
            #expect(error.description == "LOG_LEVEL=verbose is not valid: use one of trace, debug, info, notice, warning, error, critical (any case)")
        }
        do {
            _ = try LogSettings.from(["LOG_FORMAT": "xml"])
            Issue.record("LOG_FORMAT=xml was accepted")
        } catch {
            #expect(error.variable == "LOG_FORMAT")
            #expect(error.valid == ["text", "json"])
        }
    }

    @Test func aJSONRecordIsOneLineWithItsMetadataAsFields() throws {
        let lines = NIOLockedValueBox<[String]>([])
        var logger = Self.jsonLogger(lines)
        logger[metadataKey: "run"] = "11111111-2222-4333-8444-555555555555"
        let hostile = "line one\nline \"two\"\t\u{01} é 😀 \\ end"
        logger.info("\(hostile)", metadata: [
            "conversation": "c-1", "message": "a metadata key named like a field",
            "nested": ["ids": ["a", "b"], "count": "2"],
        ])
        let written = lines.withLockedValue { $0 }
        try #require(written.count == 1)
        #expect(!written[0].contains("\n"))
        let record = try #require(try JSONValue.parse(written[0]).objectValue)
        #expect(Array(record.keys.prefix(4)) == ["time", "level", "label", "message"])
        #expect(record["time"]?.stringValue == "2026-11-18T11:06:40.250Z")
        #expect(record["level"]?.stringValue == "info")
        #expect(record["label"]?.stringValue == "messageai.test")
        #expect(record["message"]?.stringValue == hostile)
        #expect(record["run"]?.stringValue == "11111111-2222-4333-8444-555555555555")
        #expect(record["conversation"]?.stringValue == "c-1")
        #expect(record["metadata.message"]?.stringValue == "a metadata key named like a field")
        #expect(record["nested"]?["ids"]?.arrayValue == [.string("a"), .string("b")])
        #expect(record["nested"]?["count"]?.integerValue == 2, "numbers are JSON numbers")
    }

    @Test("numbers in metadata are JSON numbers; ids, codes with leading zeros and other text stay strings")
    func numbersAreNumbers() throws {
        let lines = NIOLockedValueBox<[String]>([])
        let logger = Self.jsonLogger(lines)
        logger.info("figures", metadata: ["requests": "5", "seconds": "1.25", "negative": "-3", "code": "007",
                                          "id": "6f1c0d2e", "big": "12345678901234567890", "typed": .stringConvertible(42)])
        let line = try #require(lines.withLockedValue { $0 }.first)
        let record = try #require(try JSONValue.parse(line).objectValue)
        #expect(record["requests"] == .integer(5))
        #expect(record["seconds"] == .number(1.25))
        #expect(record["negative"] == .integer(-3))
        #expect(record["typed"] == .integer(42))
        #expect(record["code"] == .string("007"))
        #expect(record["id"] == .string("6f1c0d2e"))
        #expect(record["big"] == .string("12345678901234567890"))
    }

    @Test func theHandlerLevelFiltersRecords() {
        let lines = NIOLockedValueBox<[String]>([])
        let logger = Self.jsonLogger(lines, level: .notice)
        logger.info("dropped")
        logger.notice("kept")
        #expect(lines.withLockedValue { $0 }.count == 1)
        #expect(lines.withLockedValue { $0 }.first?.contains("kept") == true)
    }

    @Test func secretsAreRedactedInMessagesAndMetadataWhateverTheFormat() throws {
        let secrets = LogSecrets()
        let key = "sk-proj-this-is-not-a-real-key-1234"
        let lines = NIOLockedValueBox<[String]>([])
        var logger = Self.jsonLogger(lines, secrets: secrets)
        // Metadata set before the secret was known is scrubbed too.
        logger[metadataKey: "early"] = "\(key)"
        secrets.add(key)
        secrets.add("pw")  // too short to redact without mangling ordinary words
        logger.error("request failed with Authorization: Bearer \(key)", metadata: [
            "error": "could not connect to postgresql://jobs:hunter2-secret@db.example/messageai",
            "list": ["\(key)"], "dict": ["k": "\(key)"],
        ])
        let line = try #require(lines.withLockedValue { $0 }.first)
        #expect(!line.contains(key))
        #expect(!line.contains("hunter2-secret"))
        let record = try JSONValue.parse(line)
        #expect(record["message"]?.stringValue == "request failed with Authorization: Bearer [redacted]")
        #expect(record["error"]?.stringValue == "could not connect to postgresql://jobs:***@db.example/messageai")
        #expect(record["early"]?.stringValue == "[redacted]")
        #expect(record["list"]?[0]?.stringValue == "[redacted]")
        #expect(record["dict"]?["k"]?.stringValue == "[redacted]")

        // The text format goes through the same handler: what reaches the inner handler is already clean.
        let seen = NIOLockedValueBox<[String]>([])
        let text = Logger(label: "messageai.test") { _ in RedactingLogHandler(RecordingHandler(seen: seen), secrets: secrets) }
        text.notice("key \(key)", metadata: ["password": "\(key)"])
        #expect(seen.withLockedValue { $0 } == ["key [redacted] password=[redacted]"])
    }
}

/// Records each event as "message key=value ...", for checking what a wrapping handler passes on.
private struct RecordingHandler: LogHandler {
    let seen: NIOLockedValueBox<[String]>
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { _, new in new }
        let fields = all.keys.sorted().map { "\($0)=\(all[$0]!)" }
        seen.withLockedValue { $0.append(([event.message.description] + fields).joined(separator: " ")) }
    }
}
