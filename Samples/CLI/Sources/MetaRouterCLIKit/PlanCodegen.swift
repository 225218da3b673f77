import Foundation
import MetaRouterEventsGenerator

/// What `metarouter plan codegen` and `plan status` do, apart from the command line.
public enum PlanCodegen {
    /// Writes the typed events of the plan at `plan` to `MetaRouterEvents.swift` in `directory`
    /// (created if missing), and returns the file's URL.
    public static func write(plan: URL, to directory: URL) throws -> URL {
        let text = try String(contentsOf: plan, encoding: .utf8)
        let code = try EventsGenerator.generate(plan: text, planName: plan.lastPathComponent)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("MetaRouterEvents.swift")
        try code.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    /// The Swift files under `directory` (hidden directories such as `.build`, and generated
    /// `MetaRouterEvents.swift` files, left out) read against the plan at `plan`: the report's
    /// lines, and whether a planned event is never called or an unplanned name is sent.
    public static func status(plan: URL, sources directory: URL) throws -> (lines: [String], incomplete: Bool) {
        let text = try String(contentsOf: plan, encoding: .utf8)
        var files: [String] = []
        let walk = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil, options: [.skipsHiddenFiles])
        while let url = walk?.nextObject() as? URL {
            guard url.pathExtension == "swift", url.lastPathComponent != "MetaRouterEvents.swift" else { continue }
            if let source = try? String(contentsOf: url, encoding: .utf8) { files.append(source) }
        }
        let usage = try EventsGenerator.usage(plan: text, sources: files)
        var lines = ["\(files.count) Swift files read"]
        for (title, names) in [("called", usage.called), ("never called", usage.neverCalled), ("not in the plan", usage.unplanned)] {
            lines.append("\(title) (\(names.count)):")
            lines += names.map { "  \($0)" }
        }
        return (lines, !usage.neverCalled.isEmpty || !usage.unplanned.isEmpty)
    }
}
