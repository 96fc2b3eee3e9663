import Extractors
import JobsKit
import JobsCLI

/// What the model said in an answer that failed or was re-asked, as `runs show`, `requests show` and `quarantine
/// show` print it: which answer, what was wrong, then its text (already bounded and redacted), indented.
enum AnswerText {
    static func print(_ answers: [ModelAnswer], indent: String) {
        for answer in answers {
            Console.print("\(indent)\(answer.attempt == 1 ? "first answer" : "answer to the re-ask") (\(answer.feature)): \(answer.problem)")
            let lines = answer.text.isEmpty ? ["(empty)"] : answer.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            for line in lines { Console.print("\(indent)  | \(line)") }
        }
    }
}
