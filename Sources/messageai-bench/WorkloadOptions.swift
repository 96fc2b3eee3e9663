import ArgumentParser

/// The generated workload's size and seed, for the commands that generate one and load it.
struct WorkloadOptions: ParsableArguments {
    @Option(help: "Conversations to generate.")
    var conversations: Int

    @Option(help: "Days of history, the last day included.")
    var days: Int = 7

    @Option(help: "Seed of the generator.")
    var seed: UInt64 = 1
}
