/// The English cue phrases the rules and the pre-filter share, in priority order within each list.
/// Phrases match whole words, case-insensitively, with punctuation ignored.
package enum RuleCues {
    // MARK: RSVP requests and answers

    static let rsvpRequest = [
        "rsvp", "please reply", "please respond", "let me know if you can come", "let me know if you can make it",
        "let me know if you're coming", "let me know if you are coming", "let me know if you can join",
        "who's coming", "who is coming", "who's in", "who is in", "are you in", "can you make it", "can you come",
        "can you all make it", "will you be there", "are you coming", "are you joining", "let me know by",
    ]

    /// Words right before a date that make it the date answers are due ("RSVP by Friday").
    static let rsvpDeadlineLeads = ["rsvp", "rsvps", "please rsvp", "reply", "respond", "let me know", "know", "answer", "rsvp to me"]

    static let replyNo = [
        "can't make it", "cannot make it", "can not make it", "can't come", "cannot come", "won't be able", "won't make it",
        "won't be there", "we're away", "we are away", "we'll be away", "out of town", "unable to", "have to pass",
        "we'll pass", "not coming", "can't do it", "can't go",
    ]
    static let replyMaybe = ["we'll try", "we will try", "i'll try", "will try", "not sure", "tentative", "tentatively"]
    static let replyYes = [
        "count us in", "count me in", "we'll be there", "we will be there", "i'll be there", "will be there",
        "see you there", "we're in", "we are in", "i'm in", "we're coming", "we'll come", "we can come", "we can make it",
        "we're going", "wouldn't miss it",
    ]
    /// Answers that only count as the message's first word ("No problem" is not a no, but "No, sorry" is).
    static let replyYesOpening = ["yes", "yep", "yeah", "yay", "absolutely", "definitely", "sure"]
    static let replyNoOpening = ["no", "nope", "sorry", "unfortunately"]
    static let replyMaybeAnywhere = ["maybe", "possibly", "probably"]

    // MARK: urgency

    static let urgent = [
        "urgent", "asap", "emergency", "immediately", "right now", "right away", "early dismissal", "lockdown",
        "school is closed", "school closed", "school closing", "closing early", "911",
        // A closure for the whole day (snow, heating, strikes).
        "schools are closed", "schools closed", "snow day", "no school",
    ]
    static let high = [
        "cancelled", "canceled", "called off", "postponed", "lice", "fever", "sick", "strep", "stomach bug", "hospital",
        // A plan that changed: the old date or place is now wrong.
        "change of plans", "change of plan", "has been moved", "is moved to", "are moved to", "rescheduled",
    ]
    /// Urgent only when the message also asks for something or names an event.
    static let sameDay = ["today", "tonight"]
    static let groupQuestion = [
        "can someone", "can anyone", "could someone", "could anyone", "does anyone", "does someone", "is anyone",
        "anyone able", "who can", "please reply", "please respond", "please let me know",
    ]
    static let action = [
        "please", "pls", "can you", "could you", "can someone", "can anyone", "could someone", "does anyone", "need", "needs",
        "must", "rsvp", "let me know", "reply", "respond", "pick up", "pickup", "sign", "bring", "send", "pay", "call me",
        "text me", "don't forget", "remember to",
    ]

    // MARK: decisions

    static let decision = [
        "so the plan is", "the plan is", "plan is", "it's settled", "it is settled", "that's settled", "we'll go with",
        "we will go with", "let's go with", "we decided", "i decided", "i've decided", "decided", "let's do", "is set",
        "are set", "agreed", "works for us", "works for everyone", "works for all",
    ]
    static let decisionNegations = [
        "not decided", "haven't decided", "hasn't been decided", "undecided", "not agreed", "not set", "isn't set",
        "nothing is set", "not settled", "isn't settled", "not sure", "if we", "not yet",
    ]

    // MARK: events

    static let cancellation = ["cancelled", "canceled", "called off", "postponed", "is off", "no longer"]
    static let move = [
        "moved to", "moved it to", "moving to", "rescheduled to", "rescheduled for", "pushed to", "pushed back to",
        "changed to", "postponed to", "postponed until", "now on",
    ]

    // MARK: deadlines

    static let deadline = [
        "due", "deadline", "no later than", "last day to", "last day for", "turn in", "hand in", "submit", "pay",
        "payment", "fee", "fees", "sign up", "signup", "register", "registration", "return", "bring in", "send in",
        "fill out", "complete",
    ]

    /// Every cue phrase the rules match, for the tokenizer's fast-path check (`RulesTokenizerSpeedTests`).
    package static let all = rsvpRequest + replyNo + replyMaybe + replyYes + replyYesOpening + replyNoOpening
        + replyMaybeAnywhere + urgent + high + groupQuestion + decision + cancellation + move + deadline
}
