/// The words of a text as evidence alignment compares them: what a model changes when it copies a chat message
/// is folded away on both sides, so "I'll b there tmrw w/ snacks 🎉" and "I will be there tomorrow with snacks"
/// give the same words.
/// - Punctuation, emoji and other symbols separate words and are otherwise ignored ("&" is "and", "@" is "at",
///   "w/" is "with", "w/o" is "without").
/// - Contractions are expanded ("I'll" → "i will", "don't"/"dont" → "do not"); "'s" is dropped (possessive or "is").
/// - Parents' chat abbreviations become the word they stand for ("tmrw" → "tomorrow", "pls" → "please", "u" → "you").
/// - Letters and digits are split ("4pm" → "4 pm", "4:30p" → "4 30 pm"); ordinal suffixes are dropped ("5th" → "5").
///
/// Written here because no package on this machine folds chat English; the tables are short on purpose: each entry
/// is a spelling parents use in the fixtures or in everyday texting.
enum EvidenceWords {
    /// The words of already `Evidence.normalize`d text.
    static func words(_ normalized: String) -> [String] {
        var out: [String] = []
        var raw = ""
        var chars = Array(normalized)
        if chars.count > maxCharacters { chars = Array(chars.prefix(maxCharacters)) }
        var index = 0
        while index < chars.count {
            let c = chars[index]
            if c.isLetter || c.isNumber || (c == "'" && !raw.isEmpty) {
                raw.append(c)
            } else {
                if c == "/", raw == "w" {
                    // "w/" and "w/o"
                    if index + 1 < chars.count, chars[index + 1] == "o", index + 2 >= chars.count || !chars[index + 2].isLetter {
                        out.append("without")
                        index += 1
                    } else {
                        out.append("with")
                    }
                    raw = ""
                } else {
                    flush(&raw, into: &out)
                    if c == "&" || c == "+" { out.append("and") } else if c == "@" { out.append("at") }
                }
            }
            index += 1
        }
        flush(&raw, into: &out)
        return out
    }

    /// The longest text considered: longer messages are aligned on their first `maxCharacters` characters, so a
    /// hostile message cannot make the check slow (the column caps message text far below this anyway).
    static let maxCharacters = 100_000

    private static func flush(_ raw: inout String, into out: inout [String]) {
        defer { raw = "" }
        var word = Substring(raw)
        while word.last == "'" { word = word.dropLast() }
        guard !word.isEmpty else { return }
        if let expanded = phrases[String(word)] { out += expanded; return }
        for piece in contraction(word) { splitDigits(piece, into: &out) }
    }

    /// "i'll" → ["i", "will"]; "don't" → ["do", "not"]; "it's" → ["it"]; other words unchanged.
    private static func contraction(_ word: Substring) -> [Substring] {
        if let apostrophe = word.lastIndex(of: "'") {
            let base = word[..<apostrophe]
            let tail = word[word.index(after: apostrophe)...]
            switch tail {
            case "ll": return [base, "will"]
            case "re": return [base, "are"]
            case "ve": return [base, "have"]
            case "m": return [base, "am"]
            case "d": return [base, "would"]
            case "s": return base == "let" ? ["let", "us"] : [base]
            case "t" where base.hasSuffix("n"):
                let stem = base.dropLast()
                switch stem {
                case "wo": return ["will", "not"]
                case "ca": return ["can", "not"]
                case "sha": return ["shall", "not"]
                case "ai": return ["is", "not"]
                default: return [stem, "not"]
                }
            default: return [base.replacingOccurrences(of: "'", with: "")[...]]
            }
        }
        return [word]
    }

    /// Appends `word`'s letter and digit runs, each through `abbreviations`; a glued "p"/"a" after a number is
    /// "pm"/"am" and an ordinal suffix after one is dropped.
    private static func splitDigits(_ word: Substring, into out: inout [String]) {
        var run = ""
        var runIsDigit = false
        var afterNumber = false
        func emit() {
            guard !run.isEmpty else { return }
            if runIsDigit {
                if run != "00" { out.append(run) }  // "4:00 pm" is "4 pm"
            } else if afterNumber, run == "p" || run == "a" {
                out.append(run + "m")
            } else if afterNumber, ["st", "nd", "rd", "th"].contains(run) {
                // "5th" is "5"
            } else {
                out += phrases[run] ?? [abbreviations[run] ?? run]
            }
            afterNumber = runIsDigit
            run = ""
        }
        for c in word {
            let digit = c.isNumber
            if !run.isEmpty, digit != runIsDigit { emit() }
            if c == "'" { continue }
            runIsDigit = digit
            run.append(c)
        }
        emit()
    }

    /// One chat spelling → the word a model writes for it.
    static let abbreviations: [String: String] = [
        "tmrw": "tomorrow", "tmw": "tomorrow", "tmr": "tomorrow", "tmrow": "tomorrow", "tomoz": "tomorrow",
        "tomorow": "tomorrow", "tommorow": "tomorrow",
        "tonite": "tonight", "tdy": "today",
        "pls": "please", "plz": "please", "thx": "thanks", "thanx": "thanks", "thnx": "thanks", "ty": "thanks",
        "u": "you", "ur": "your", "r": "are", "n": "and",
        "nxt": "next", "wk": "week", "wks": "weeks", "wknd": "weekend", "mins": "minutes", "min": "minutes",
        "hr": "hour", "hrs": "hours", "msg": "message", "bday": "birthday", "appt": "appointment", "mtg": "meeting",
        "pic": "picture", "pics": "pictures", "ppl": "people", "cuz": "because", "cos": "because", "bc": "because",
        "coz": "because", "abt": "about", "w": "with", "wo": "without", "approx": "approximately", "info": "information",
        "yr": "year", "yrs": "years", "ok": "okay",
        "k": "okay", "kk": "okay", "yep": "yes", "yup": "yes", "ya": "yes", "yeah": "yes", "thru": "through",
        "tho": "though", "til": "until", "till": "until", "esp": "especially", "def": "definitely", "prob": "probably",
        "mon": "monday", "tue": "tuesday", "tues": "tuesday", "wed": "wednesday", "weds": "wednesday",
        "thu": "thursday", "thur": "thursday", "thurs": "thursday", "fri": "friday", "sat": "saturday", "sun": "sunday",
        "jan": "january", "feb": "february", "mar": "march", "apr": "april", "jun": "june", "jul": "july",
        "aug": "august", "sep": "september", "sept": "september", "oct": "october", "nov": "november", "dec": "december",
    ]

    /// Spellings that stand for more than one word (chat contractions written without the apostrophe included).
    static let phrases: [String: [String]] = [
        "lmk": ["let", "me", "know"], "btw": ["by", "the", "way"], "idk": ["i", "do", "not", "know"],
        "asap": ["as", "soon", "as", "possible"], "fyi": ["for", "your", "information"], "gonna": ["going", "to"],
        "wanna": ["want", "to"], "gotta": ["got", "to"], "dont": ["do", "not"], "doesnt": ["does", "not"],
        "didnt": ["did", "not"], "isnt": ["is", "not"], "arent": ["are", "not"], "wasnt": ["was", "not"],
        "cant": ["can", "not"], "cannot": ["can", "not"], "wont": ["will", "not"], "havent": ["have", "not"],
        "hasnt": ["has", "not"], "couldnt": ["could", "not"], "shouldnt": ["should", "not"], "wouldnt": ["would", "not"],
        "im": ["i", "am"], "ive": ["i", "have"], "youre": ["you", "are"], "theyre": ["they", "are"], "thats": ["that"],
        "whats": ["what"], "thank": ["thanks"], "tysm": ["thanks"], "np": ["no", "problem"], "omw": ["on", "my", "way"],
        "2moro": ["tomorrow"], "2morrow": ["tomorrow"], "2mrw": ["tomorrow"], "b4": ["before"], "gr8": ["great"],
        "l8r": ["later"], "l8": ["late"], "2nite": ["tonight"], "2day": ["today"],
    ]

    /// Function words: a quote that adds or drops one of these still aligns (they weigh `smallWeight`).
    static let smallWords: Set<String> = [
        "a", "an", "the", "to", "of", "at", "on", "in", "for", "is", "are", "am", "was", "were", "be", "been", "it",
        "this", "that", "these", "those", "and", "or", "but", "so", "just", "will", "would", "can", "do", "does", "did",
        "we", "i", "you", "he", "she", "they", "us", "our", "my", "your", "his", "her", "their", "me", "him", "them",
        "with", "from", "by", "as", "if", "then", "there", "here", "up", "out", "about", "also", "too", "please",
        "okay", "oh", "hi", "hey", "all", "some", "any", "really", "very", "thanks", "yes", "have", "has", "had",
        "s", "going", "get", "got",
    ]
}
