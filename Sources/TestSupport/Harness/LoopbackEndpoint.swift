import Foundation
import FoundationNetworking

package struct EndpointReply: Sendable {
    package let status: Int
    package let contentType: String?
    package let text: String
}

/// GETs on loopback through URLSession, with a short timeout.
package struct LoopbackEndpoint: Sendable {
    package let port: Int

    package init(port: Int) { self.port = port }

    package func get(_ path: String, method: String = "GET") async throws -> EndpointReply {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!, timeoutInterval: 5)
        request.httpMethod = method
        let (data, response) = try await URLSession.shared.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw HarnessError("GET \(path): not an HTTP response") }
        return EndpointReply(status: http.statusCode, contentType: http.value(forHTTPHeaderField: "Content-Type"),
                        text: String(decoding: data, as: UTF8.self))
    }
}

/// Reading the Prometheus text a `/metrics` endpoint serves.
package enum PrometheusText {
    /// The sample value of a metric line whose name and labels are `series` exactly, or nil if there is none.
    package static func value(_ exposition: String, _ series: String) -> Double? {
        for line in exposition.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }
}

/// Polls `condition` every 10 ms until it holds; throws after `seconds`.
package func waitUntil(_ seconds: Double, _ what: String, _ condition: () async throws -> Bool) async throws {
    let deadline = Date().addingTimeInterval(seconds)
    while try await !condition() {
        guard Date() < deadline else { throw HarnessError("waited \(seconds) s for \(what)") }
        try await Task.sleep(for: .milliseconds(10))
    }
}
