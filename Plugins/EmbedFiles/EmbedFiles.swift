import Foundation
import PackagePlugin

/// Compiles the shipped prompts, schemas and SQL migrations, and the git commit, into the `Core` module, so the
/// release binary needs no file beside it. Two prebuild commands run on every build, each into its own folder:
/// files added to `prompts/` are picked up without a manifest change, and a new commit changes the stamp. They run
/// `/bin/sh` (prebuild commands may not use tools built from source); `scripts/embed-files` rewrites its output only
/// when it changed, so an unchanged tree recompiles nothing.
///
/// Not SwiftPM's `.embedInCode` resources: those must sit inside the target's folder (prompts/ and schemas/ stay at
/// the repository root, where editors, evals and `--prompts prompts` use them), each file needs its own line in
/// the manifest (a new migration or prompt would need one), and they give no directory listing; the commit needs
/// a generator anyway.
@main
struct EmbedFiles: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let root = context.package.directoryURL
        let script = root.appending(path: "scripts/embed-files").path
        return [("files", "prompts, schemas and migrations"), ("commit", "the git commit")].map { mode, what in
            let output = context.pluginWorkDirectoryURL.appending(path: mode)
            return .prebuildCommand(
                displayName: "Embedding \(what) into \(target.name)",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [script, root.path, output.path, mode],
                outputFilesDirectory: output
            )
        }
    }
}
