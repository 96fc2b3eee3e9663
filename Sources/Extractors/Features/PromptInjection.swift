import Foundation
import Core

/// Messages that address the assistant or its rules instead of the chat's people: "ignore previous instructions",
/// "system: …", "you are now …", "disregard your rules". A member can write one to make a model that obeys it put
/// anything into everyone's calendar or reminders; such a message is never evidence (`DecodeContext.grounded`).
///
/// Deliberately narrow, so that parents' own words are never taken for it: "ignore the earlier time", "the system is
/// down at school", "you are now registered", "disregard my last message" all pass. Each pattern needs words that
/// only make sense spoken to a model (instructions, prompt, your rules, a role tag at the start of a line).
package enum PromptInjection {
    /// Whether `text` addresses the assistant or its rules.
    package static func addressesAssistant(_ text: String) -> Bool {
        let folded = SecretText.normalized(text).lowercased()
            .replacingOccurrences(of: "\u{2019}", with: "'")
        return patterns.contains { folded.range(of: $0, options: .regularExpression) != nil }
    }

    private static let verbs = #"(?:ignore|disregard|forget|override|bypass)"#
    private static let earlier = #"(?:previous|prior|above|earlier|preceding|former|original|initial|old|all)"#
    private static let rulesWords = #"(?:instructions?|prompts?|system prompt|rules|guidelines|directives|programming|guardrails|constraints)"#
    private static let modelWords = #"(?:ai|a\.i\.|assistant|bot|chatbot|chatgpt|gpt|llm|language model|model|messageai)"#

    static let patterns: [String] = [
        // "ignore (all) (the) previous instructions", "disregard all prior prompts", "forget the above directives"
        #"\b\#(verbs)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|these\s+|those\s+)?\#(earlier)\s+(?:the\s+)?(?:instructions?|prompts?|system prompt|directives|guidelines)\b"#,
        // "ignore your instructions", "disregard your rules", "forget the assistant's guidelines"
        #"\b\#(verbs)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:your|the (?:assistant|ai|system|bot|model)'?s?)\s+(?:\#(earlier)\s+)?\#(rulesWords)\b"#,
        // A role tag opening a line: "system: ...", "### assistant:", "[system]", "<|im_start|>system"
        #"(?:^|\n)\s*(?:#+\s*|\[|<\|?)?(?:system|assistant|developer)\s*(?:\]|\|?>)?\s*:"#,
        #"<\|im_start\|>|<\|system\|>|\[/?inst\]|<</?sys>>|</?system>"#,
        // "you are now a/an/in ... (model, mode, unrestricted)": a new persona for the model
        #"\byou are now\s+(?:a\s+|an\s+|the\s+|in\s+)?(?:\#(modelWords)\b|dan\b|jailbroken|unrestricted|unfiltered|(?:\w+\s+){0,2}mode\b)"#,
        #"\bfrom now on,?\s+you (?:are|will|must|shall)\s+(?:act|respond|answer|behave|ignore|obey|only)\b"#,
        // Speaking to the model by name: "hey AI, ...", "assistant, create a reminder", "dear chatgpt:"
        #"(?:^|[.!?\n]\s*)(?:hey\s+|hi\s+|dear\s+|attention\s+|note to (?:the\s+)?)?\#(modelWords)\s*[,:]\s*(?:ignore|disregard|forget|you\b|create|add|remind|tell|send|put|mark|make|output|respond|reply|list|delete)"#,
        // "new instructions:", "system prompt", "jailbreak"
        #"\bnew instructions?\s*:"#, #"\bsystem prompt\b"#, #"\bjailbreak"#,
        #"\b(?:reveal|print|repeat|show)\s+(?:me\s+)?(?:your|the)\s+(?:system\s+)?(?:prompt|instructions)\b"#,
    ]
}
