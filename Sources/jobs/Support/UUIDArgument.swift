public import ArgumentParser  // public: UUID (Foundation) is public, so its conformance below is too.
public import Foundation
import JobsKit

/// Ids are parsed once, by the argument parser: a malformed id is a usage error naming the flag (exit code 64),
/// and the commands receive a `UUID`, never a string to force-unwrap.
extension UUID: @retroactive ExpressibleByArgument {
    public init?(argument: String) {
        self.init(uuidString: argument)
    }

    public var defaultValueDescription: String { uuidString.lowercased() }
}

/// `--user`: a UUID, or `demo` for the demo's parent; anything else is a usage error.
enum UserArgument: ExpressibleByArgument {
    case id(UUID)
    case demo

    init?(argument: String) {
        if argument == "demo" {
            self = .demo
        } else if let id = UUID(argument: argument) {
            self = .id(id)
        } else {
            return nil
        }
    }

    var id: UUID {
        switch self {
        case .id(let id): id
        case .demo: DemoDataset.make(now: Date()).mainUserID
        }
    }
}

/// An id argument that takes the whole UUID or its first characters (`runs show a4573e95`), resolved against its table
/// when the command runs; a malformed one is a usage error (exit 64).
struct IDArgument: ExpressibleByArgument, Sendable {
    let prefix: IDPrefix

    init?(argument: String) {
        guard let prefix = IDPrefix(argument) else { return nil }
        self.prefix = prefix
    }

    var defaultValueDescription: String { prefix.text }
}
