import Foundation

/// A fresh directory under the system's temporary directory, removed (only it) by
/// ``remove()``. Each test makes its own.
package struct TemporaryDirectory: Sendable {
    /// The directory.
    package let url: URL

    /// Creates `metarouter-test-<uuid>` in the temporary directory.
    package init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("metarouter-test-\(UUID().uuidString.lowercased())", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    }

    /// Removes the directory this value created, and nothing else.
    package func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
