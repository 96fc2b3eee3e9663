import ArgumentParser

/// Which prompts a command runs: one folder and per-run version pins, for every command that sends prompts.
struct PromptOptions: ParsableArguments {
    @Option(help: "Folder of YAML prompts (default: $MESSAGEAI_HOME/prompts, else the set embedded in this binary).")
    var prompts: String?

    @Option(name: .customLong("prompt-version"), help: """
        ID=VERSION: run this prompt version instead of the one pinned in prompts/active.yaml, for this run only \
        (repeatable; also $MESSAGEAI_PROMPT_VERSIONS=id=N,id=N; the option wins).
        """)
    var promptVersions: [String] = []
}
