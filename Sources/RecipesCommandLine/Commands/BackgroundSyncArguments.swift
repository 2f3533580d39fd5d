/// The argument lists of the line cron runs every few minutes, `recipes sync --background`, optionally with one
/// `--home DIR` (or `--home=DIR`) before or after `sync`, recognised without ArgumentParser.
///
/// Cron's run usually finds nothing due and should cost next to nothing, but building ArgumentParser's tree of
/// commands and its argument sets is most of an idle run's instructions (about 27M of 44M). Every other argument
/// list, including any shape here that ArgumentParser would read differently (a `--home` value that looks like an
/// option, two `--home`s, `--`, help), is left to `RecipesCommand.main`; tests check that both read each accepted
/// list as the same sync and the same home.
public struct BackgroundSyncArguments: Sendable {
    /// The `--home` given, if any.
    public let homeOption: String?

    /// The background sync `arguments` (without the program name) ask for, or nil when they are anything else.
    public init?(_ arguments: some Collection<String>) {
        var rest: [String] = []
        var home: String?
        var index = arguments.startIndex
        while index != arguments.endIndex {
            let argument = arguments[index]
            arguments.formIndex(after: &index)
            let value: String
            if argument == "--home" {
                guard index != arguments.endIndex else { return nil }
                value = arguments[index]
                arguments.formIndex(after: &index)
            } else if argument.hasPrefix("--home=") {
                value = String(argument.dropFirst("--home=".count))
            } else {
                rest.append(argument)
                continue
            }
            guard home == nil, !value.isEmpty, !value.hasPrefix("-") else { return nil }
            home = value
        }
        guard rest == ["sync", "--background"] else { return nil }
        homeOption = home
    }

    /// The sync `recipes sync --background` runs, with stdout's kind judged in `environment`.
    func invocation(environment: [String: String]) -> SyncInvocation {
        SyncInvocation(ids: nil, mode: SyncOutputMode.select(background: true, json: false, environment: environment))
    }

    /// Runs the background sync as `recipes sync --background` does and answers its exit status.
    public func run() async -> Int32 {
        let context = CommandContext(homeOption: homeOption)
        return await SyncCommand.run(invocation(environment: context.environment), context: context)
    }
}
