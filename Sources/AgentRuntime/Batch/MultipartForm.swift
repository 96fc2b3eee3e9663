import Foundation

/// A `multipart/form-data` body (RFC 7578), as the Files API takes uploads.
struct MultipartForm {
    let boundary: String
    private(set) var body = Data()

    init(boundary: String = "messageai-\(UUID().uuidString.lowercased())") {
        self.boundary = boundary
    }

    var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    mutating func field(_ name: String, _ value: String) {
        body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8))
    }

    mutating func file(_ name: String, filename: String, contentType: String, data: Data) {
        body.append(Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"\(filename)\"\r\nContent-Type: \(contentType)\r\n\r\n".utf8))
        body.append(data)
        body.append(Data("\r\n".utf8))
    }

    /// The body with its closing delimiter.
    var finished: Data { body + Data("--\(boundary)--\r\n".utf8) }
}
