// Swift 6.3.1 (x86_64 Linux), -O only: a task closure that returns `(value, try await f())` from a `do` block whose
// `catch` also returns hands back a tuple whose first element was never written. Debug (-Onone) is correct.
// Exits 1 when miscompiled, 0 when correct.
import Foundation

@inline(never) func number() async throws -> Int {
    await Task.yield()
    return 1
}

@inline(never) func run(_ label: Int) async -> (Int, Int) {
    await Task {
        do { return (label, try await number()) } catch { return (label, 0) }
    }.value
}

/// The workaround used in EvalRunner: await into a local, then build the tuple.
@inline(never) func runWorkaround(_ label: Int) async -> (Int, Int) {
    await Task {
        do {
            let value = try await number()
            return (label, value)
        } catch { return (label, 0) }
    }.value
}

let result = await run(42)
let workaround = await runWorkaround(42)
print("tuple built around the await:  \(result == (42, 1) ? "correct" : "MISCOMPILED") \(result) (expected (42, 1))")
print("awaited into a local first:    \(workaround == (42, 1) ? "correct" : "MISCOMPILED") \(workaround) (expected (42, 1))")
exit(result == (42, 1) && workaround == (42, 1) ? 0 : 1)
