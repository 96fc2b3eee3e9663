package import Foundation
package import Core

/// An uploaded file as the Files API describes it (`OpenAIFile`); only what batch mode reads.
package struct OpenAIFileObject: Sendable, Hashable, Codable {
    package var id: String
    package var bytes: Int
    package var filename: String
    package var purpose: String

    package init(id: String, bytes: Int, filename: String, purpose: String) {
        self.id = id
        self.bytes = bytes
        self.filename = filename
        self.purpose = purpose
    }

    static func decode(_ json: JSONValue) throws -> OpenAIFileObject {
        let reader = JSONFieldReader(json)
        return OpenAIFileObject(id: try reader.requiredString("id"), bytes: try reader.requiredInt("bytes"),
                                filename: try reader.requiredString("filename"), purpose: try reader.requiredString("purpose"))
    }
}

/// A batch's lifecycle state. Unknown values are kept so a new server state is reported, not rejected.
package enum BatchStatus: Sendable, Hashable, Codable, CustomStringConvertible {
    case validating, failed, inProgress, finalizing, completed, expired, cancelling, cancelled
    case unknown(String)

    package init(rawValue: String) {
        switch rawValue {
        case "validating": self = .validating
        case "failed": self = .failed
        case "in_progress": self = .inProgress
        case "finalizing": self = .finalizing
        case "completed": self = .completed
        case "expired": self = .expired
        case "cancelling": self = .cancelling
        case "cancelled": self = .cancelled
        default: self = .unknown(rawValue)
        }
    }

    package var rawValue: String {
        switch self {
        case .validating: "validating"
        case .failed: "failed"
        case .inProgress: "in_progress"
        case .finalizing: "finalizing"
        case .completed: "completed"
        case .expired: "expired"
        case .cancelling: "cancelling"
        case .cancelled: "cancelled"
        case .unknown(let value): value
        }
    }

    /// No further change will come: results (if any) can be collected.
    package var isTerminal: Bool {
        switch self {
        case .failed, .completed, .expired, .cancelled: true
        case .validating, .inProgress, .finalizing, .cancelling, .unknown: false
        }
    }

    package var description: String { rawValue }

    package init(from decoder: any Decoder) throws { self.init(rawValue: try decoder.singleValueContainer().decode(String.self)) }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// `BatchRequestCounts`.
package struct BatchRequestCounts: Sendable, Hashable, Codable {
    package var total: Int
    package var completed: Int
    package var failed: Int

    package init(total: Int, completed: Int, failed: Int) {
        self.total = total
        self.completed = completed
        self.failed = failed
    }
}

/// A batch as the Batch API describes it (`Batch`); only what batch mode reads.
package struct BatchObject: Sendable, Hashable, Codable {
    package var id: String
    package var status: BatchStatus
    package var inputFileID: String
    package var outputFileID: String?
    package var errorFileID: String?
    package var requestCounts: BatchRequestCounts?
    /// `errors.data[].message` (with the line, when given), e.g. why validation failed.
    package var errors: [String]

    package init(id: String, status: BatchStatus, inputFileID: String, outputFileID: String? = nil, errorFileID: String? = nil,
                requestCounts: BatchRequestCounts? = nil, errors: [String] = []) {
        self.id = id
        self.status = status
        self.inputFileID = inputFileID
        self.outputFileID = outputFileID
        self.errorFileID = errorFileID
        self.requestCounts = requestCounts
        self.errors = errors
    }

    static func decode(_ json: JSONValue) throws -> BatchObject {
        let reader = JSONFieldReader(json)
        var counts: BatchRequestCounts?
        if let c = try reader.optional("request_counts") {
            counts = BatchRequestCounts(total: try c.requiredInt("total"), completed: try c.requiredInt("completed"), failed: try c.requiredInt("failed"))
        }
        var errors: [String] = []
        for error in try reader.optional("errors")?.optional("data")?.array() ?? [] {
            let line = try error.optionalInt("line").map { "line \($0): " } ?? ""
            let code = try error.optionalString("code").map { "\($0): " } ?? ""
            errors.append(line + code + (try error.optionalString("message") ?? "(no message)"))
        }
        return BatchObject(
            id: try reader.requiredString("id"), status: BatchStatus(rawValue: try reader.requiredString("status")),
            inputFileID: try reader.requiredString("input_file_id"), outputFileID: try reader.optionalString("output_file_id"),
            errorFileID: try reader.optionalString("error_file_id"), requestCounts: counts, errors: errors)
    }
}

/// One line of a batch input file: `{"custom_id", "method", "url", "body"}`.
package struct BatchInputLine: Sendable, Hashable {
    package var customID: String
    package var method: String
    package var url: String
    package var body: JSONValue

    package init(customID: String, method: String = "POST", url: String = "/v1/chat/completions", body: JSONValue) {
        self.customID = customID
        self.method = method
        self.url = url
        self.body = body
    }

    package var json: JSONValue {
        ["custom_id": .string(customID), "method": .string(method), "url": .string(url), "body": body]
    }

    /// JSONL: one compact object per line, newline-terminated.
    package static func jsonl(_ lines: [BatchInputLine]) -> Data {
        Data(lines.map { $0.json.serialized() + "\n" }.joined().utf8)
    }
}

/// One line of a batch output or error file: `{"id", "custom_id", "response": {"status_code", "request_id", "body"}, "error"}`.
package struct BatchOutputLine: Sendable, Hashable {
    package var id: String?
    package var customID: String
    package var statusCode: Int?
    package var requestID: String?
    package var body: JSONValue?
    /// `error.code: error.message` when the request itself failed.
    package var error: String?

    package init(id: String? = nil, customID: String, statusCode: Int? = nil, requestID: String? = nil, body: JSONValue? = nil, error: String? = nil) {
        self.id = id
        self.customID = customID
        self.statusCode = statusCode
        self.requestID = requestID
        self.body = body
        self.error = error
    }

    /// Parses a JSONL output or error file; a bad line is reported with its number.
    package static func parse(jsonl data: Data, file: String) throws -> [BatchOutputLine] {
        var lines: [BatchOutputLine] = []
        for (index, text) in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty else { continue }
            do {
                lines.append(try decode(try JSONValue.parse(trimmed)))
            } catch {
                throw LLMError.decoding("\(file) line \(index + 1): \(error)", bodyExcerpt: LLMError.excerpt(trimmed, hiding: nil))
            }
        }
        return lines
    }

    static func decode(_ json: JSONValue) throws -> BatchOutputLine {
        let reader = JSONFieldReader(json)
        var line = BatchOutputLine(id: try reader.optionalString("id"), customID: try reader.requiredString("custom_id"))
        if let response = try reader.optional("response") {
            line.statusCode = try response.requiredInt("status_code")
            line.requestID = try response.optionalString("request_id")
            line.body = try response.optional("body")?.value
        }
        if let error = try reader.optional("error") {
            let code = try error.optionalString("code")
            line.error = (code.map { "\($0): " } ?? "") + (try error.optionalString("message") ?? "(no message)")
        }
        return line
    }
}
