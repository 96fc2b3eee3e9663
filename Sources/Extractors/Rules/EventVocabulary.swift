/// An event noun found in a sentence, with the title built around it.
struct EventNounMatch: Sendable, Hashable {
    /// The table entry's words ("field trip"): two mentions of the same kind of event share it.
    let key: String
    let title: String
    let category: EventCategory
    /// Token index range of the title in the sentence.
    let tokenRange: Range<Int>
}

/// Which words name an event, and how to turn the words around one into a title and a place.
enum EventVocabulary {
    struct Noun: Sendable {
        let words: [String]
        let category: EventCategory
        /// Only an event with a modifier before it ("dance class", not "the class").
        var needsModifier = false
        /// The title when the noun alone names the event badly ("dentist" → "Dentist appointment").
        var suffix: String?
    }

    /// Heads first: the first entry found in a sentence names its event.
    static let nouns: [Noun] = [
        Noun(words: ["field", "trip"], category: .school),
        Noun(words: ["picture", "day"], category: .school),
        Noun(words: ["early", "dismissal"], category: .school),
        Noun(words: ["no", "school"], category: .school),
        Noun(words: ["parent-teacher", "conference"], category: .school),
        Noun(words: ["conference"], category: .school),
        Noun(words: ["open", "house"], category: .school),
        Noun(words: ["book", "fair"], category: .school),
        Noun(words: ["science", "fair"], category: .school),
        Noun(words: ["bake", "sale"], category: .school),
        Noun(words: ["school", "play"], category: .school),
        Noun(words: ["assembly"], category: .school),
        Noun(words: ["graduation"], category: .school),
        Noun(words: ["dismissal"], category: .school),
        Noun(words: ["gala"], category: .activity),
        Noun(words: ["appointment"], category: .medical),
        Noun(words: ["checkup"], category: .medical),
        Noun(words: ["check-up"], category: .medical),
        Noun(words: ["flu", "shot"], category: .medical),
        Noun(words: ["party"], category: .social),
        Noun(words: ["playdate"], category: .social),
        Noun(words: ["play", "date"], category: .social),
        Noun(words: ["sleepover"], category: .social),
        Noun(words: ["picnic"], category: .social),
        Noun(words: ["potluck"], category: .social),
        Noun(words: ["bbq"], category: .social),
        Noun(words: ["barbecue"], category: .social),
        Noun(words: ["swim", "meet"], category: .activity),
        Noun(words: ["track", "meet"], category: .activity),
        Noun(words: ["game"], category: .activity),
        Noun(words: ["match"], category: .activity),
        Noun(words: ["tournament"], category: .activity),
        Noun(words: ["scrimmage"], category: .activity),
        Noun(words: ["practice"], category: .activity),
        Noun(words: ["recital"], category: .activity),
        Noun(words: ["rehearsal"], category: .activity),
        Noun(words: ["concert"], category: .activity),
        Noun(words: ["tryouts"], category: .activity),
        Noun(words: ["lesson"], category: .activity, needsModifier: true),
        Noun(words: ["class"], category: .activity, needsModifier: true),
        Noun(words: ["camp"], category: .activity, needsModifier: true),
        Noun(words: ["meeting"], category: .other),
        Noun(words: ["fundraiser"], category: .other),
        Noun(words: ["trip"], category: .other),
        Noun(words: ["dentist"], category: .medical, suffix: "appointment"),
        Noun(words: ["orthodontist"], category: .medical, suffix: "appointment"),
        Noun(words: ["pediatrician"], category: .medical, suffix: "appointment"),
        Noun(words: ["doctor"], category: .medical, suffix: "appointment"),
        Noun(words: ["vaccine"], category: .medical, suffix: "appointment"),
        Noun(words: ["birthday"], category: .social),
    ]

    /// Words that belong in a title before the noun ("soccer game", "dance class", "birthday party").
    static let modifiers: Set<String> = [
        "soccer", "basketball", "baseball", "softball", "hockey", "football", "lacrosse", "volleyball", "tennis", "golf",
        "swim", "swimming", "dance", "ballet", "piano", "violin", "guitar", "music", "art", "karate", "gymnastics", "chess",
        "theater", "theatre", "drama", "choir", "band", "orchestra", "robotics", "coding", "scout", "scouts", "math",
        "reading", "science", "birthday", "class", "school", "team", "pta", "pto", "board", "staff", "dentist", "doctor",
        "dental", "eye", "pool", "pizza", "halloween", "holiday", "christmas", "spring", "summer", "winter", "fall",
        "end-of-year", "end-of-season", "costume", "pajama", "surprise", "home", "away", "championship", "playoff",
        "makeup", "make-up", "family", "teacher", "parent", "parent-teacher", "field", "skating", "ski",
    ]

    private static let stopCapitalized: Set<String> = Set(DateVocabulary.weekdays.keys).union(DateVocabulary.months.keys)
        .union(["i", "noon", "midnight", "reminder", "fyi", "please", "hi", "hey", "ok", "okay", "so", "the", "our", "my", "and"])

    /// The first event noun in the sentence, with its title.
    static func match(in sentence: RuleSentence) -> EventNounMatch? {
        let tokens = sentence.tokens
        for noun in nouns {
            guard let start = find(noun.words, in: tokens) else { continue }
            let end = start + noun.words.count
            let left = leftModifiers(tokens, before: start)
            if noun.needsModifier && left == start { continue }
            let right = rightExtension(tokens, after: end)
            var words = tokens[left..<right].map(\.text)
            if let suffix = noun.suffix { words.append(suffix) }
            let title = words.joined(separator: " ").capitalizedFirst
            return EventNounMatch(key: noun.words.joined(separator: " "), title: title, category: noun.category, tokenRange: left..<right)
        }
        return nil
    }

    /// Index of the first occurrence of the words (the last may be plural).
    static func find(_ words: [String], in tokens: [RuleToken]) -> Int? {
        guard tokens.count >= words.count else { return nil }
        for start in 0...(tokens.count - words.count) {
            let matches = words.indices.allSatisfy { offset in
                let token = tokens[start + offset]
                guard token.isWord else { return false }
                if token.lower == words[offset] { return true }
                return offset == words.count - 1 && (token.lower == words[offset] + "s" || token.lower == words[offset] + "es")
            }
            if matches { return start }
        }
        return nil
    }

    /// Extends left over modifiers, ordinals and mid-sentence capitalized names, up to a possessive.
    private static func leftModifiers(_ tokens: [RuleToken], before start: Int) -> Int {
        var left = start
        while left > 0, start - left < 4 {
            let token = tokens[left - 1]
            guard token.isWord else { break }
            if token.isPossessive {
                left -= 1
                break
            }
            let isName = token.isCapitalized && left - 1 > 0 && !stopCapitalized.contains(token.lower)
            guard modifiers.contains(token.lower) || token.isOrdinal || isName else { break }
            left -= 1
        }
        return left
    }

    /// "trip to the Science Museum": keeps a capitalized destination after "to".
    private static func rightExtension(_ tokens: [RuleToken], after end: Int) -> Int {
        guard end < tokens.count, tokens[end].lower == "to" else { return end }
        let place = placeEnd(tokens, from: end + 1)
        return place > end + 1 ? place : end
    }

    /// The end of a capitalized place name starting at `start` (an optional leading "the"), or `start` if none.
    static func placeEnd(_ tokens: [RuleToken], from start: Int) -> Int {
        var index = start
        if index < tokens.count, tokens[index].lower == "the" { index += 1 }
        var end = start
        while index < tokens.count {
            let token = tokens[index]
            // "Dr. Chen's office", "St. Mary's": the abbreviation's period stays inside the place name.
            if token.text == ".", end > start, end == index, RuleSentence.abbreviations.contains(tokens[end - 1].lower),
               index + 1 < tokens.count, tokens[index + 1].isCapitalized {
                index += 1
                continue
            }
            let isConnector = ["of", "&", "and"].contains(token.lower)
            if isConnector, end > start, index + 1 < tokens.count, tokens[index + 1].isWord, tokens[index + 1].isCapitalized {
                index += 1
                continue
            }
            guard token.isWord, !stopCapitalized.contains(token.lower) else { break }
            let afterPossessive = end > start && tokens[end - 1].isPossessive
            if token.isCapitalized || (end > start && token.text.first?.isNumber == true) {
                index += 1
                end = index
            } else if afterPossessive {
                end = index + 1
                break
            } else {
                break
            }
        }
        return end
    }

    /// "at Sky Zone", "@ Lincoln Park": a capitalized place after "at" or "@", as written (without "the").
    static func location(in sentence: RuleSentence) -> String? {
        let tokens = sentence.tokens
        for (index, token) in tokens.enumerated() where token.lower == "at" || token.text == "@" {
            var start = index + 1
            let end = placeEnd(tokens, from: start)
            guard end > start else { continue }
            if tokens[start].lower == "the" { start += 1 }
            guard start < end else { continue }
            return sentence.text.utf16Slice((tokens[start].range.lowerBound - sentence.range.lowerBound)..<(tokens[end - 1].range.upperBound - sentence.range.lowerBound))
        }
        return nil
    }
}
