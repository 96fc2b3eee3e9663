// swift-tools-version:6.0
// A standalone reproducer of a Swift 6.3.1 optimizer bug (see README.md); not part of the messageai-jobs package.
import PackageDescription

let package = Package(name: "TaskTupleMiscompile", targets: [.executableTarget(name: "repro")])
