package import Extractors
package import Foundation

/// Writes `report.json`, `report.md` and `report.html` into one directory.
package enum EvalReportWriter {
    /// Returns the three file URLs; each file is written to a temporary name and renamed into place.
    @discardableResult
    package static func write(_ report: EvalReport, fixtures: [Fixture], to directory: URL) throws -> [URL] {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw EvalRunError(.reportNotWritten, "\(directory.path): cannot create the report directory: \(error.localizedDescription)")
        }
        let files: [(String, Data)] = [
            ("report.json", try report.jsonData()),
            ("report.md", Data(report.markdown().utf8)),
            ("report.html", Data(EvalHTML.render(report, fixtures: fixtures).utf8)),
        ]
        return try files.map { name, data in
            let url = directory.appendingPathComponent(name)
            do {
                try data.write(to: url, options: .atomic)
            } catch {
                throw EvalRunError("\(url.path): cannot write: \(error.localizedDescription)")
            }
            return url
        }
    }
}
