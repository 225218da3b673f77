import Foundation
import MetaRouterEventsGenerator

// metarouter-events-gen PLAN OUTPUT [--shards N]: writes the typed events of PLAN to OUTPUT
// (one file), or with `--shards N` to OUTPUT and N more files beside it (`Name-0.swift`, …),
// each with an equal share of the events, which the compiler takes apart. The MetaRouterEvents build-tool plugin runs it at every
// build; a plan that cannot become Swift fails the build with one line naming the plan entry,
// and names that had to be told apart are build warnings.
var arguments = Array(CommandLine.arguments.dropFirst())
var shards = 0
if let flag = arguments.firstIndex(of: "--shards"), flag + 1 < arguments.count, let count = Int(arguments[flag + 1]), (1...64).contains(count) {
    shards = count
    arguments.removeSubrange(flag...flag + 1)
}
guard arguments.count == 2, let planPath = arguments.first, let outputPath = arguments.last else {
    FileHandle.standardError.write(Data("usage: metarouter-events-gen PLAN OUTPUT [--shards N]\n".utf8))
    exit(64)
}
let planURL = URL(fileURLWithPath: planPath)
let output = URL(fileURLWithPath: outputPath)

/// Writes `code` to `url` unless it holds it already, so the build does not recompile it.
func write(_ code: String, to url: URL) throws {
    if (try? String(contentsOf: url, encoding: .utf8)) != code {
        try code.write(to: url, atomically: true, encoding: .utf8)
    }
}

do {
    let plan = try String(contentsOf: planURL, encoding: .utf8)
    if shards == 0 {
        try write(EventsGenerator.generate(plan: plan, planName: planURL.lastPathComponent), to: output)
    } else {
        let generated = try EventsGenerator.files(plan: plan, planName: planURL.lastPathComponent, shards: shards)
        for warning in generated.warnings { FileHandle.standardError.write(Data("\(planPath): warning: \(warning)\n".utf8)) }
        let stem = output.deletingPathExtension().lastPathComponent
        for (index, code) in generated.files.enumerated() {
            let url = index == 0 ? output : output.deletingLastPathComponent().appendingPathComponent("\(stem)-\(index - 1).swift")
            try write(code, to: url)
        }
    }
} catch let error as GenerationError {
    FileHandle.standardError.write(Data("\(planPath): error: \(error.description)\n".utf8))
    exit(1)
} catch {
    FileHandle.standardError.write(Data("\(planPath): error: \(error.localizedDescription)\n".utf8))
    exit(1)
}
