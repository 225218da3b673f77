import Foundation
import MetaRouterEventsGenerator

// metarouter-events-gen PLAN OUTPUT: writes the typed events of PLAN to OUTPUT. The
// MetaRouterEvents build-tool plugin runs it at every build; a plan that cannot become Swift
// fails the build with one line naming the plan entry.
let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 2, let planPath = arguments.first, let outputPath = arguments.last else {
    FileHandle.standardError.write(Data("usage: metarouter-events-gen PLAN OUTPUT\n".utf8))
    exit(64)
}
let planURL = URL(fileURLWithPath: planPath)
do {
    let plan = try String(contentsOf: planURL, encoding: .utf8)
    let code = try EventsGenerator.generate(plan: plan, planName: planURL.lastPathComponent)
    let output = URL(fileURLWithPath: outputPath)
    // Unchanged code is not rewritten, so the build does not recompile it.
    if (try? String(contentsOf: output, encoding: .utf8)) != code {
        try code.write(to: output, atomically: true, encoding: .utf8)
    }
} catch let error as GenerationError {
    FileHandle.standardError.write(Data("\(planPath): error: \(error.description)\n".utf8))
    exit(1)
} catch {
    FileHandle.standardError.write(Data("\(planPath): error: \(error.localizedDescription)\n".utf8))
    exit(1)
}
