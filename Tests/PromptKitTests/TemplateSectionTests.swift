import Testing
@testable import PromptKit

/// `{{#name}}` … `{{/name}}`: a section rendered only when its variable is not empty, so a prompt version that adds
/// one (the open items of earlier nights) renders exactly as the version without it when there is nothing to show.
@Suite("Template sections")
struct TemplateSectionTests {
    let plain = "Rules.\n<messages>\n{{messages}}\n</messages>\n"
    let sectioned = "Rules.\n{{#open_items}}\n\nKnown items: say what changed.\n{{/open_items}}\n<messages>\n{{messages}}\n</messages>\n{{#open_items}}\n<open_items>\n{{open_items}}\n</open_items>\n{{/open_items}}\n"

    @Test func anEmptySectionRendersAsTheTemplateWithoutIt() {
        let without = Template(plain).render(["messages": "m1 hi"])
        #expect(Template(sectioned).render(["messages": "m1 hi", "open_items": ""]) == without)
        // No value at all is an empty section, not a missing variable.
        #expect(Template(sectioned).render(["messages": "m1 hi"]) == without)
    }

    @Test func aSectionWithAValueIsRenderedWithoutItsMarkerLines() {
        let rendered = Template(sectioned).render(["messages": "m1 hi", "open_items": "e1 event \"Party\" 2026-12-12"])
        #expect(rendered.missing.isEmpty)
        #expect(rendered.text == "Rules.\n\nKnown items: say what changed.\n<messages>\nm1 hi\n</messages>\n<open_items>\ne1 event \"Party\" 2026-12-12\n</open_items>\n")
    }

    @Test func sectionsDoNotNestAndMustClose() {
        #expect(!Template("{{#a}}\n{{#b}}\n{{/b}}\n{{/a}}\n").malformed.isEmpty)
        #expect(!Template("{{#a}}\nopen\n").malformed.isEmpty)
        #expect(!Template("{{/a}}\n").malformed.isEmpty)
        #expect(Template(sectioned).malformed.isEmpty)
        #expect(Template(sectioned).variables == ["open_items", "messages"])
    }

    @Test func anUndeclaredSectionIsAFileProblem() throws {
        let yaml = promptYAML().replacingOccurrences(of: "  Be brief.\n", with: "  Be brief.\n  {{#open_items}}\n  x\n  {{/open_items}}\n")
        #expect(yaml.contains("{{#open_items}}"))
        let dir = try temporaryDirectory(["demo.yaml": yaml, "schemas/tiny.json": tinySchema])
        let error = #expect(throws: PromptLoadError.self) { _ = try PromptLibrary.load(directory: dir) }
        #expect(error?.problems.contains { $0.message.contains("unknown variable '{{#open_items}}'") } == true, "\(String(describing: error))")
    }
}
