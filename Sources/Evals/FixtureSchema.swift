import Embedded
import Foundation
import JSONKit

/// The fixture schema: `schemas/eval-fixture.schema.json` (the file editors and other tools use), compiled into the
/// binary through the Embedded module, so the loader needs no resource lookup at run time and there is one copy.
enum FixtureSchema {
    /// The path of the schema among the embedded files, as in the repository.
    static let path = "schemas/eval-fixture.schema.json"

    /// The schema's text; empty only if the file was not embedded, which the loader reports and a test rules out.
    static let text: String = EmbeddedFiles.all[path].map { String(decoding: $0, as: UTF8.self) } ?? ""

    /// Nil only if the embedded file is missing or broken.
    static let compiled: JSONSchema? = {
        guard let json = try? JSONValue.parse(text) else { return nil }
        return try? JSONSchema(json)
    }()
}
