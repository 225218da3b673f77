import Foundation
import Testing

/// Every `sdk.<name>` the code logs is listed in `Docs/LogSignals.md`, and every name listed
/// there is still logged: the list a log sink filters on stays true.
@Suite struct LogSignalTests {
    private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private func names(in text: String, pattern: String) -> Set<String> {
        let expression = try! NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines])
        let range = NSRange(text.startIndex..<text.endIndex, in: text)
        return Set(expression.matches(in: text, range: range).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        })
    }

    @Test func theDocumentedSignalsAreExactlyTheOnesLogged() throws {
        var logged: Set<String> = []
        for folder in ["Sources", "Plugins"] {
            let files = FileManager.default.enumerator(at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)?
                .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
            for file in files { logged.formUnion(names(in: try String(contentsOf: file, encoding: .utf8), pattern: "\"(sdk\\.[a-z_]+):")) }
        }
        let documented = names(in: try String(contentsOf: root.appendingPathComponent("Docs/LogSignals.md"), encoding: .utf8), pattern: "^\\| `(sdk\\.[a-z_]+)`")
        #expect(!logged.isEmpty)
        #expect(logged.subtracting(documented).sorted() == [], "logged but not documented")
        #expect(documented.subtracting(logged).sorted() == [], "documented but not logged")
    }
}
