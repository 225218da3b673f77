import Foundation

/// A fresh directory under the system's temporary directory, removed (only it) by
/// ``remove()``. Each test makes its own.
public struct TemporaryDirectory: Sendable {
    /// The directory.
    public let url: URL

    /// Creates `metarouter-test-<uuid>` in the temporary directory.
    public init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("metarouter-test-\(UUID().uuidString.lowercased())", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    }

    /// Removes the directory this value created, and nothing else.
    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
