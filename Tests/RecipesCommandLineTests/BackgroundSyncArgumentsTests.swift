import ArgumentParser
import Foundation
import Testing
@testable import RecipesCommandLine

@Suite("cron's `sync --background` is read without ArgumentParser exactly as ArgumentParser reads it")
struct BackgroundSyncArgumentsTests {
    /// ArgumentParser's reading of `arguments`: the sync it asks for and its `--home`.
    func parsed(_ arguments: [String], environment: [String: String]) throws -> (SyncInvocation, String?) {
        let command = try #require(try RecipesCommand.parseAsRoot(arguments) as? SyncCommand, "\(arguments)")
        return (command.invocation(environment: environment), SyncCommand.homeOption(command.global, command.root))
    }

    @Test("each accepted argument list asks for the same sync and the same home as through ArgumentParser",
          arguments: [
              ["sync", "--background"],
              ["--home", "/h/a", "sync", "--background"],
              ["--home=/h/a", "sync", "--background"],
              ["sync", "--home", "/h/a", "--background"],
              ["sync", "--background", "--home", "/h/a"],
              ["sync", "--background", "--home=/h/a b"],
              ["--home", "sync", "sync", "--background"],   // a home named like the subcommand
              ["sync", "--background", "--home", "relative/dir"],
          ])
    func sameReading(arguments: [String]) throws {
        let fast = try #require(BackgroundSyncArguments(arguments), "\(arguments) should be taken by the fast path")
        for environment in [[:], ["TERM": "dumb"], ["TERM": "xterm", "NO_COLOR": "1"]] {
            let (invocation, home) = try parsed(arguments, environment: environment)
            #expect(fast.invocation(environment: environment) == invocation, "\(arguments)")
            #expect(fast.homeOption == home, "\(arguments)")
        }
        #expect(fast.invocation(environment: [:]).mode == .background)
    }

    @Test("every other argument list is left to ArgumentParser",
          arguments: [
              [], ["sync"], ["--background"], ["background", "sync"], ["--background", "sync"],
              ["sync", "--background", "--json"], ["sync", "--background", "3"], ["sync", "--background", "--jobs", "2"],
              ["sync", "--background", "--background"], ["sync", "--background", "--help"], ["sync", "--background", "-h"],
              ["sync", "--background", "--"], ["sync", "--background", "--max-wait", "30"],
              ["sync", "--background", "--home"],                  // no value
              ["sync", "--background", "--home", ""], ["sync", "--background", "--home="],
              ["sync", "--home", "--background"],                  // the value looks like an option
              ["sync", "--background", "--home", "-x"], ["sync", "--background", "--home=-x"],
              ["--home", "/a", "sync", "--background", "--home", "/b"], // two homes: ArgumentParser's rule decides
              ["status", "--background"], ["sync", "--Background"], ["sync", "--background=true"],
          ])
    func leftToArgumentParser(arguments: [String]) {
        #expect(BackgroundSyncArguments(arguments) == nil, "\(arguments)")
    }

    @Test("the arguments of the line `recipes cron install` writes take the fast path")
    func cronLineTakesTheFastPath() throws {
        let line = try CrontabEntry(
            schedule: CronSchedule(everyMinutes: 5), executable: "/usr/local/bin/recipes", home: "/h/a",
            assignments: [.init(name: "RECIPES_HOME", value: "/h/a")]
        ).line()
        let command = try #require(line.split(separator: " # ").first)
        let words = command.split(separator: " ").map(String.init)
        let afterExecutable = try #require(words.firstIndex(of: "'/usr/local/bin/recipes'")) + 1
        let fast = try #require(BackgroundSyncArguments(words[afterExecutable...]), "\(line)")
        #expect(fast.homeOption == nil)
    }
}
