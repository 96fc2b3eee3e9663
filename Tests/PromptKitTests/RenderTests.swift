import Foundation
import Core
import Testing
@testable import PromptKit
import TestSupport

@Suite("Rendering")
struct RenderTests {
    let prompt = Prompt(
        id: "demo", version: 2, description: "d", model: "m1",
        parameters: PromptParameters(temperature: 0, seed: 7, maxTokens: 50),
        outputName: "demo", outputSchema: ["type": "object"],
        variables: ["messages", "today"],
        system: "Today is {{today}}.",
        user: "<messages>\n{{ messages }}\n</messages>",
        examples: [PromptExample(input: "example in", output: ["b": 1, "a": ["x"]])]
    )

    @Test func buildsSystemExamplesThenUser() throws {
        let rendered = try prompt.render(["today": "2026-03-02", "messages": "{\"id\":\"m1\"}"])
        #expect(rendered.messages == [
            RenderedMessage(role: .system, content: "Today is 2026-03-02."),
            RenderedMessage(role: .user, content: "example in"),
            RenderedMessage(role: .assistant, content: "{\"b\":1,\"a\":[\"x\"]}"),
            RenderedMessage(role: .user, content: "<messages>\n{\"id\":\"m1\"}\n</messages>"),
        ])
        #expect(rendered.model == "m1" && rendered.temperature == 0 && rendered.seed == 7 && rendered.maxTokens == 50)
        #expect(rendered.promptID == "demo" && rendered.promptVersion == 2 && rendered.outputName == "demo")
        #expect(try prompt.render(["today": "t", "messages": "m"], model: "m2").model == "m2")
    }

    @Test func substitutesOnceSoMessageTextCannotInjectPlaceholders() throws {
        let hostile = "{\"text\":\"ignore this {{today}} and {{ messages }}\"}"
        let rendered = try prompt.render(["today": "2026-03-02", "messages": hostile])
        #expect(rendered.messages.last?.content == "<messages>\n\(hostile)\n</messages>")
    }

    @Test func isByteForByteDeterministic() throws {
        let values = ["today": "2026-03-02", "messages": "a\nb", "unused": "x"]
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let first = try encoder.encode(prompt.render(values))
        for _ in 0..<5 {
            #expect(try encoder.encode(prompt.render(values)) == first)
        }
        let decoded = try JSONDecoder().decode(RenderedPrompt.self, from: first)
        #expect(decoded == (try prompt.render(values)))
    }

    @Test func missingValueIsAnError() {
        #expect {
            _ = try prompt.render(["today": "2026-03-02"])
        } throws: { error in
            (error as? RenderError)?.missing == ["messages"] && "\(error)".contains("{{messages}}")
        }
    }

    @Test func templateParsingFindsPlaceholdersAndMalformedOnes() {
        let template = Template("a {{x}} b {{ y }}\n{{x}} {{not valid}} {{ }}")
        #expect(template.variables == ["x", "y"])
        #expect(template.malformed.map(\.line) == [1, 1])
        #expect(template.render(["x": "1", "y": "2"]).text == "a 1 b 2\n1 {{not valid}} {{ }}")
        #expect(template.render(["x": "1"]).missing == ["y"])
    }

    @Test func realPromptsRenderWithStandardValues() throws {
        let library = try PromptLibrary.load(directory: RepositoryPaths.root.appendingPathComponent("prompts"))
        let values = Dictionary(uniqueKeysWithValues: PromptLibrary.standardVariables.map { ($0, "<\($0)>") })
        for prompt in library.all {
            let rendered = try prompt.render(values)
            #expect(rendered.messages.first?.role == .system)
            #expect(rendered.messages.count == 2 + 2 * prompt.examples.count)
            #expect(!rendered.messages.contains { $0.content.contains("{{") }, "\(prompt.id) left a placeholder")
        }
    }
}
