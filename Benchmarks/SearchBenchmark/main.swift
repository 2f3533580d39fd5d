// Search benchmark: `RecipeStore.search` (what `recipes search` runs after opening the store) on a home, each query
// many times after one warm-up.
//
// Usage: SearchBenchmark HOME RUNS QUERY...   (a QUERY is its words separated by spaces)
// Prints one line per query: the query, matching recipes, median ms, 95th percentile ms, worst ms.
import Foundation
import RecipeStore

let arguments = CommandLine.arguments
guard arguments.count >= 4, let runs = Int(arguments[2]), runs > 0 else {
    FileHandle.standardError.write(Data("usage: SearchBenchmark HOME RUNS QUERY...\n".utf8))
    exit(64)
}
let store = try RecipeStore(home: RecipesHome(url: URL(fileURLWithPath: arguments[1]), isExplicit: true))
for query in arguments.dropFirst(3) {
    let words = query.split(separator: " ").map(String.init)
    let total = try store.search(words).total  // warm-up: pages in the index
    var samples: [Double] = []
    for _ in 0..<runs {
        let start = ContinuousClock.now
        _ = try store.search(words)
        let elapsed = ContinuousClock.now - start
        samples.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
    }
    samples.sort()
    let median = samples[samples.count / 2]
    let p95 = samples[min(samples.count - 1, Int(Double(samples.count) * 0.95))]
    print(String(format: "%@\t%d\t%.3f\t%.3f\t%.3f", query, total, median, p95, samples.last ?? 0))
}
