import CLibPQ

/// The rows of one result, copied out of libpq as text so they can cross tasks freely.
package struct PostgresRows: Sendable, RandomAccessCollection {
    package let columns: [String]
    /// Rows touched by INSERT/UPDATE/DELETE (from the command tag), or the row count of a SELECT.
    package let affectedRows: Int
    private let columnIndex: [String: Int]
    private let cells: [[String?]]

    init(result: OpaquePointer) {
        let columnCount = Int(PQnfields(result))
        let rowCount = Int(PQntuples(result))
        let names = (0..<columnCount).map { String(cString: PQfname(result, Int32($0))) }
        columns = names
        var index: [String: Int] = [:]
        for (i, name) in names.enumerated() where index[name] == nil { index[name] = i }
        columnIndex = index
        cells = (0..<rowCount).map { row in
            (0..<columnCount).map { column in
                PQgetisnull(result, Int32(row), Int32(column)) == 1
                    ? nil : String(cString: PQgetvalue(result, Int32(row), Int32(column)))
            }
        }
        let tag = String(cString: PQcmdTuples(result))
        affectedRows = Int(tag) ?? rowCount
    }

    package var startIndex: Int { 0 }
    package var endIndex: Int { cells.count }
    package subscript(position: Int) -> PostgresRow {
        PostgresRow(columns: columns, columnIndex: columnIndex, cells: cells[position], rowNumber: position)
    }
}

/// One row. Decode columns by name into Swift types; errors name the column and the value's problem.
package struct PostgresRow: Sendable {
    package let columns: [String]
    let columnIndex: [String: Int]
    let cells: [String?]
    let rowNumber: Int

    /// Decodes the named column. Ask for an Optional type to accept NULL.
    package func decode<T: PostgresDecodable>(_ column: String, as type: T.Type = T.self) throws -> T {
        guard let index = columnIndex[column] else {
            throw PostgresError(kind: .usage, message: "no column '\(column)' in the result (columns: \(columns.joined(separator: ", ")))")
        }
        return try decode(at: index, as: type)
    }

    package func decode<T: PostgresDecodable>(at index: Int, as type: T.Type = T.self) throws -> T {
        guard cells.indices.contains(index) else {
            throw PostgresError(kind: .usage, message: "no column at index \(index) (the result has \(cells.count))")
        }
        let name = columns[index]
        do {
            return try T(postgresText: cells[index])
        } catch {
            throw PostgresError(kind: .decoding, message: "column '\(name)' (row \(rowNumber)): \(error.reason)")
        }
    }

    /// The raw text of a column (nil for NULL), for diagnostics.
    package func text(_ column: String) -> String? {
        columnIndex[column].flatMap { cells[$0] }
    }
}

/// Why a value could not be decoded; `PostgresRow` adds the column name.
package struct PostgresDecodingFailure: Error, Sendable {
    package let reason: String
    package init(_ reason: String) { self.reason = reason }
}
