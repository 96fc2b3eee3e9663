import Foundation
import PackagePlugin

/// Compiles the shipped prompts, schemas and SQL migrations into the `Embedded` module, so the release binary needs
/// no file beside it, and the git commit into `BuildStamp`. A prebuild command runs on every build: files added to
/// `prompts/` are picked up without a manifest change, and a new commit changes the stamp. It runs `/bin/sh`
/// (prebuild commands may not use tools built from source); `scripts/embed-files` rewrites its output only when it
/// changed, so an unchanged tree recompiles nothing.
///
/// Not SwiftPM's `.embedInCode` resources: those must sit inside the target's folder (prompts/ and schemas/ stay at
/// the repository root, where editors, evals and `--prompts prompts` use them), each file needs its own line in
/// the manifest (a new migration or prompt would need one), and they give no directory listing; the commit needs
/// a generator anyway.
@main
struct EmbedFiles: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let root = context.package.directoryURL
        let output = context.pluginWorkDirectoryURL.appending(path: "generated")
        return [
            .prebuildCommand(
                displayName: "Embedding \(target.name == "BuildStamp" ? "the git commit" : "prompts, schemas and migrations")",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [root.appending(path: "scripts/embed-files").path, root.path, output.path,
                            target.name == "BuildStamp" ? "commit" : "files"],
                outputFilesDirectory: output
            )
        ]
    }
}
