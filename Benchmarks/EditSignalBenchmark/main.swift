// Edit signal benchmark: what `EditSignal.send` (called by every committed edit, after its commit) costs the editing
// process in its three situations — no watcher ever ran in the home (no FIFO), a FIFO left by a stopped watcher, a
// watcher listening (its `EditSignalListener` drained now and then, as the watcher does) — and, beside it, one edit
// (`RecipeStore.apply` of a title, which sends the signal) in a home with no watcher.
//
// Usage: EditSignalBenchmark FOLDER RUNS
// Prints one line per situation: its name, median µs, 99th percentile µs, worst µs.
import Foundation
import RecipeStore
import SyncWatch

let arguments = CommandLine.arguments
guard arguments.count == 3, let runs = Int(arguments[2]), runs > 0 else {
    FileHandle.standardError.write(Data("usage: EditSignalBenchmark FOLDER RUNS\n".utf8))
    exit(64)
}
let home = RecipesHome(url: URL(fileURLWithPath: arguments[1]).appendingPathComponent("home"), isExplicit: true)

/// Runs `body` `runs` times after 100 warm-up runs and prints the line of `name`.
func measure(_ name: String, _ body: () throws -> Void) rethrows {
    for _ in 0..<100 { try body() }
    var samples: [Double] = []
    samples.reserveCapacity(runs)
    for _ in 0..<runs {
        let start = ContinuousClock.now
        try body()
        let elapsed = ContinuousClock.now - start
        samples.append(Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6)
    }
    samples.sort()
    let p99 = samples[min(samples.count - 1, Int(Double(samples.count) * 0.99))]
    print(String(format: "%@\t%.2f\t%.2f\t%.2f", name, samples[samples.count / 2], p99, samples.last ?? 0))
}

let store = try RecipeStore(home: home)
let recipe = try store.create(title: "Soup")
measure("no watcher ever ran (no FIFO)") { EditSignal.send(to: home) }
var counter = 0
try measure("an edit (a title), no watcher") {
    counter += 1
    try store.apply(.title("Soup \(counter)"), to: recipe.id)
}
do {
    let listener = try EditSignalListener(home: home)
    var sent = 0
    measure("a watcher listening") {
        EditSignal.send(to: home)
        sent += 1
        if sent % 1000 == 0 { _ = listener.drain() }  // the watcher reads as it wakes; the pipe never fills
    }
}
measure("a FIFO left by a stopped watcher") { EditSignal.send(to: home) }
