/// The kind of a module's error, in the style of AsyncHTTPClient's `HTTPClientError` codes: compared by kind only,
/// printed as its name, and never the message.
///
/// `Domain` is the error type the codes belong to, so one module's codes never compare with another's. Each module
/// declares its codes as static members in a constrained extension (`extension ErrorCode where Domain == JobsError`),
/// and only code inside that module adds new ones, since the initializer is `package`.
package struct ErrorCode<Domain>: Sendable, Hashable, CustomStringConvertible {
    private let name: String

    package init(_ name: String) { self.name = name }

    package var description: String { name }
}
