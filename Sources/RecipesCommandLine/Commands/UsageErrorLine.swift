import ArgumentParser
import Foundation

/// ArgumentParser's refusals (`Error: … Help: … Usage: …` blocks) in the one style of every other refusal: one line
/// on standard error, `recipes: ` then what is wrong, then what to do — the usage when it fits on a line, else the
/// command's `--help`.
enum UsageErrorLine {
    /// The widest usage written into the line; a longer one is left to `--help`.
    static let usageWidth = 100

    /// The line for the refusal ArgumentParser wrote as `fullMessage`, with its short `message`.
    static func line(message: String, fullMessage: String) -> String {
        let problem = sentence(message)
        let usage = usage(in: fullMessage)
        let help = fullMessage.firstMatch(of: /See '([^']+)'/).map { "`\($0.1)`" } ?? "`recipes --help`"
        var line = "recipes: " + problem
        if let usage, usage.count <= usageWidth {
            line += "; usage: " + usage
        } else {
            line += "; " + help + " shows the usage"
        }
        return line + "\n"
    }

    /// The message as the middle of a sentence: its first letter in lower case unless it starts a word in capitals
    /// (`JSON`), without a final full stop.
    static func sentence(_ message: String) -> String {
        var text = message.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasSuffix(".") { text.removeLast() }
        guard let first = text.first, first.isUppercase else { return text }
        let second = text.dropFirst().first
        if let second, second.isUppercase { return text }
        return first.lowercased() + text.dropFirst()
    }

    /// The usage of ArgumentParser's text (`Usage: recipes show …`, wrapped over lines as it may be) as one line.
    static func usage(in fullMessage: String) -> String? {
        guard let start = fullMessage.range(of: "Usage: ") else { return nil }
        var text = fullMessage[start.upperBound...]
        if let see = text.range(of: "See '") { text = text[..<see.lowerBound] }
        let words = text.split(whereSeparator: \.isWhitespace)
        return words.isEmpty ? nil : words.joined(separator: " ")
    }
}

extension RecipesCommand {
    /// Parses and runs `arguments` as ArgumentParser's `main` does, with its refusals in the one style
    /// (`UsageErrorLine`); help and `--version` print as ArgumentParser prints them, an `ExitCode` exits silently.
    static func parseAndRun(_ arguments: [String]) async -> Int32 {
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            return 0
        } catch let code as ExitCode {
            return code.rawValue
        } catch {
            let code = exitCode(for: error)
            let full = fullMessage(for: error)
            if code == .success {
                if !full.isEmpty { StandardConsole().out(full + "\n") }
                return 0
            }
            if code != .validationFailure {
                let problem = UsageErrorLine.sentence(message(for: error))
                if !problem.isEmpty { StandardConsole().err("recipes: " + problem + "\n") }
                return code.rawValue
            }
            StandardConsole().err(UsageErrorLine.line(message: message(for: error), fullMessage: full))
            return code.rawValue
        }
    }
}
