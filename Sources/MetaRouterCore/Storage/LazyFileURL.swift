import Foundation

/// A file or directory kept as its path and made a `URL` when first asked for — on the
/// executor, where the files are read and written. The first `URL` a process makes costs its
/// maker about 0.15 ms (swift-foundation's first use, `Benchmarks/README.md`, "Start-up"),
/// which an app's `initialize` need not pay for its default directory.
package final class LazyFileURL: @unchecked Sendable {  // `made` is only touched under `lock`
    private let path: String
    private let isDirectory: Bool
    /// Not `Locked<URL?>`: a generic type's first use in a process costs a runtime lookup.
    private let lock = NSLock()
    private var made: URL?

    /// The place at `path`, a directory or a file.
    package init(path: String, isDirectory: Bool) {
        self.path = path
        self.isDirectory = isDirectory
    }

    /// A place already a URL.
    package init(_ url: URL) {
        path = ""
        isDirectory = url.hasDirectoryPath
        made = url
    }

    /// The place as a URL, made on first use.
    package var url: URL {
        lock.withLock {
            if let made { return made }
            let url = URL(fileURLWithPath: path, isDirectory: isDirectory)
            made = url
            return url
        }
    }
}
