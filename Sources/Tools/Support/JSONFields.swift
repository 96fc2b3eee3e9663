import Core
import Foundation

/// Result-field conversions: absent values become JSON `null` (so every result object has the same keys),
/// ids are lower-case strings, dates `YYYY-MM-DD`, times `HH:MM`.
extension JSONValue {
    static func text(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
    static func int(_ value: Int?) -> JSONValue { value.map { .integer(Int64($0)) } ?? .null }
    static func id(_ value: UUID?) -> JSONValue { value.map { .string($0.uuidString.lowercased()) } ?? .null }
    static func date(_ value: LocalDate?) -> JSONValue { value.map { .string($0.iso) } ?? .null }
    static func time(_ value: LocalTime?) -> JSONValue { value.map { .string($0.iso) } ?? .null }
}
