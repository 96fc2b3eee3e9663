/// A Swift enum kept in a text column whose CHECK constraint lists the same values: the code handles a closed set of
/// cases instead of strings, and a value it does not know is a decoding error that names the column's allowed values.
package protocol PostgresEnum: PostgresTextCodable, RawRepresentable, CaseIterable where RawValue == String {}

extension PostgresEnum {
    package static var postgresTypeName: String { "\(Self.self) (one of: \(allCases.map(\.rawValue).joined(separator: ", ")))" }
    package init?(postgresValue: String) { self.init(rawValue: postgresValue) }
    package var postgresValue: String { rawValue }
}
