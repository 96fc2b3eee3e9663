import Foundation
import Core

/// Messages that address the assistant or its rules instead of the chat's people: "ignore previous instructions",
/// "system: …", "Note for the AI assistant: …", "you are now …", "disregard your rules". A member can write one to
/// make a model that obeys it put anything into everyone's calendar or reminders; such a message is never evidence
/// (`DecodeContext.grounded`).
///
/// Recognised by what the message does, addressing a model, not by its spelling: the text is first folded
/// (`folded`: NFKC, so full-width `ＳＹＳＴＥＭ：` reads `system:`; invisible format characters removed; lower case),
/// then read for an address to an assistant, AI or system in several languages and scripts: a role tag or vocative
/// opening a line ("system:", "assistant, add…", "ИИ, добавь…", "系统：…"), a note addressed to one ("Note for the AI
/// assistant:", "Nota para el asistente:", "Hinweis für die KI:", "給AI助手的備註：", "AIアシスタントへのメモ："), and the
/// classic instructions ("ignore previous instructions", "you are now in developer mode").
///
/// Deliberately narrow, so that parents' own words are never taken for it (docs/features.md, "Messages addressed
/// to the assistant"): "Note for parents:", "System update: portal down tonight", "The coach's assistant, Mia,
/// will run practice", "Assistant coach: Mia", "ignore the earlier time" all pass. An address needs the addressee
/// right before its colon or comma, at the start of a line or sentence, or after a word that makes it a note's
/// recipient ("note for", "message to").
package enum PromptInjection {
    /// Whether `text` addresses the assistant or its rules.
    package static func addressesAssistant(_ text: String) -> Bool {
        let text = folded(text)
        return patterns.contains { text.range(of: $0, options: .regularExpression) != nil }
    }

    /// The text every check reads: compatibility-normalised (NFKC: full-width and other presentation forms become
    /// their plain letters, `：` a colon), without format characters (zero-width spaces, joiners, bidi controls),
    /// lower case, with curly apostrophes straight.
    package static func folded(_ text: String) -> String {
        SecretText.normalized(text.precomposedStringWithCompatibilityMapping).lowercased()
            .replacingOccurrences(of: "\u{2019}", with: "'")
    }

    private static let verbs = #"(?:ignore|disregard|forget|override|bypass)"#
    private static let earlier = #"(?:previous|prior|above|earlier|preceding|former|original|initial|old|all)"#
    private static let rulesWords = #"(?:instructions?|prompts?|system prompt|rules|guidelines|directives|programming|guardrails|constraints)"#
    private static let modelWords = #"(?:ai|a\.i\.|assistant|bot|chatbot|chatgpt|gpt|llm|language model|model|messageai)"#

    /// Names of a model, in several languages and scripts (Cyrillic in its common cases): what an address is to.
    private static let addressee = #"(?:ai|a\.i\.|assistant|ai-assistant|bot|chatbot|chatgpt|gpt|llm|language model|messageai|system|developer|"#
        + #"asistente|assistente|assistent(?:in|en)?|ia|ki|sistema|syst[eè]me|"#
        + #"ассистент[аеу]?|ии|систем[аеуы]|бот[ау]?|нейросет[ьи]|"#
        + #"助手|系统|系統|人工智能|アシスタント|システム|어시스턴트|시스템|인공지능)"#
    /// The addressees a vocative comma needs ("assistant, add…"): not the short ones that are also names or words
    /// ("Ai, can you drive?").
    private static let vocative = #"(?:assistant|ai assistant|chatbot|chatgpt|messageai|system|asistente|assistente|assistent|"#
        + #"ассистент|ии|система|助手|系统|系統|アシスタント|システム|어시스턴트|시스템)"#
    /// Words that make a note's recipient of what follows ("note for", "nota para", "Hinweis für", "примечание для").
    private static let note = #"(?:notes?|message|memo|instructions?|reminder|hint|nota|mensaje|instrucciones|recordatorio|remarque|"#
        + #"consigne|hinweis|notiz|nachricht|anweisung(?:en)?|mensagem|messaggio|avviso|примечание|заметка|сообщение|инструкция|указание)"#
    private static let preposition = #"(?:for|to|para|pour|à|a|für|fur|an|per|для|к)"#
    /// The prepositions that open an address without a note word ("To the AI:", "Für die KI:"): not "a" or "an",
    /// which open ordinary sentences ("An assistant, Mia, will run practice").
    private static let openingPreposition = #"(?:for|to|para|pour|für|fur|для)"#
    /// What ends an address: a colon, a comma, a long dash, or a spaced hyphen ("Message to the system - …"), but not
    /// a hyphen inside a word ("system-wide").
    private static let addressEnd = #"(?:\s*[:,—]|\s+-\s)"#
    /// The same without the comma, for an address with no note word: "For the system, log in with…" is a school's.
    private static let headingEnd = #"(?:\s*[:—]|\s+-\s)"#
    private static let article = #"(?:the|any|el|la|l'|le|los|las|die|den|das|dem|der|o|lo|il)"#
    /// "the AI reading this", "the assistant summarizing this chat": the addressee's role in the pipeline.
    private static let reading = #"(?:\s+(?:reading|processing|parsing|summari[sz]ing)\b[^:,\n]{0,40})?"#
    /// The start of a line or a sentence, where an address opens.
    private static let opening = #"(?:^|[\n.!?]\s*)\s*"#

    static let patterns: [String] = [
        // "ignore (all) (the) previous instructions", "disregard all prior prompts", "forget the above directives"
        #"\b\#(verbs)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|these\s+|those\s+)?\#(earlier)\s+(?:the\s+)?(?:instructions?|prompts?|system prompt|directives|guidelines)\b"#,
        // "ignore your instructions", "disregard your rules", "forget the assistant's guidelines"
        #"\b\#(verbs)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:your|the (?:assistant|ai|system|bot|model)'?s?)\s+(?:\#(earlier)\s+)?\#(rulesWords)\b"#,
        // A role tag opening a line: "system: ...", "### assistant:", "[system]", "<|im_start|>system", "ИИ:", "系统："
        #"(?:^|\n)\s*(?:#+\s*|\[|<\|?|@)?(?:the\s+)?\#(addressee)(?:[\s-]+\#(addressee))?\s*(?:\]|\|?>)?\s*:"#,
        // A vocative opening a line or sentence: "assistant, create a reminder", "Hey ChatGPT, ...", "Система, добавь ..."
        #"\#(opening)(?:(?:hey|hi|hello|dear|ok|okay|hola|salut|hallo|ciao|ola|olá|привет|эй)\s*,?\s+)?@?\#(vocative)\s*,"#,
        // A note addressed to one: "Note for the AI assistant:", "Message to the system -", "Nota para el asistente:",
        // "Hinweis für die KI:", "Примечание для ИИ:", "To the AI reading this:"
        #"\b\#(note)\s+\#(preposition)\s+(?:\#(article)\s*)?\#(addressee)(?:[\s-]+\#(addressee))?\#(reading)\#(addressEnd)"#,
        #"\#(opening)(?:p\.?s\.?\s*)?\#(openingPreposition)\s+(?:\#(article)\s*)?\#(addressee)(?:[\s-]+\#(addressee))?\#(reading)\#(headingEnd)"#,
        // A mention of it: "@assistant add a deadline", "@ChatGPT"
        #"(?:^|\s)@\#(vocative)\b"#,
        // CJK, where the recipient comes first: "给AI助手的备注：", "致系统：", "AIアシスタントへのメモ：", "AI 어시스턴트에게:"
        #"(?:给|給|致)\s*\#(addressee)(?:\s*\#(addressee))?\s*(?:的\s*\S{0,4})?\s*:"#,
        #"\#(addressee)(?:\s*\#(addressee))?\s*(?:へ|に|에게|께)\s*(?:の\s*\S{0,6})?\s*:"#,
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
