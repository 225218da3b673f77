import Foundation

/// A key-value store kept in one JSON file, the store on Linux. The file is read on first use
/// (on the executor, not in `initialize`); every change rewrites it atomically (write to a
/// temporary file in the same directory, then rename), owner-only.
///
/// - A missing file is an empty store.
/// - A file whose content is not a JSON object is reported once and treated as empty; the next
///   write replaces it.
/// - A file that exists but cannot be read (permissions, an I/O error) is reported once; the
///   store then keeps changes in memory only for this run, so the identity in that file is not
///   overwritten and is found again once it can be read.
package final class FileKeyValueStore: KeyValueStore {
    private struct State {
        var values: [String: String]?
        var writable = true
    }

    private let place: LazyFileURL
    private var file: URL { place.url }
    private let logger: AnalyticsLogger?
    private let state = Locked(State())

    /// Prepares the store at `file`; nothing is read until a value is asked for.
    package init(file: URL, logger: AnalyticsLogger? = nil) {
        place = LazyFileURL(file)
        self.logger = logger
    }

    /// Prepares the store at `path`, made a URL when a value is first asked for.
    package init(path: String, logger: AnalyticsLogger? = nil) {
        place = LazyFileURL(path: path, isDirectory: false)
        self.logger = logger
    }

    /// The stored string, or `nil`.
    package func string(forKey key: String) -> String? {
        state.withLock { loaded(&$0)[key] }
    }

    /// Stores or removes `value` and writes the file (unless the file could not be read).
    package func set(_ value: String?, forKey key: String) {
        state.withLock { state in
            var current = loaded(&state)
            guard current[key] != value else { return }
            current[key] = value
            state.values = current
            if state.writable { persist(current) }
        }
    }

    private func loaded(_ state: inout State) -> [String: String] {
        if let cached = state.values { return cached }
        let (read, writable) = Self.load(file, logger: logger)
        state.values = read
        state.writable = writable
        return read
    }

    private func persist(_ current: [String: String]) {
        let json = JSON.object(current.mapValues(JSON.string))
        let data = Data(JSONWriter.bytes(json))
        do {
            try StorageFiles.writeAtomically(data, to: file)
        } catch {
            logger?.error("sdk.storage_error: could not write \(file.path): \(error.localizedDescription)")
        }
    }

    /// The stored values, and whether writing may replace the file.
    private static func load(_ file: URL, logger: AnalyticsLogger?) -> ([String: String], writable: Bool) {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            guard FileManager.default.fileExists(atPath: file.path) else { return ([:], true) }
            logger?.error(
                "sdk.storage_error: cannot read the identity store \(file.path) (\(error.localizedDescription)); identity is kept in memory "
                    + "for this run and the file is left as it is: check its permissions")
            return ([:], false)
        }
        guard let object = (try? JSONParser.parse(data))?.objectValue else {
            logger?.warning("sdk.storage_error: ignoring the identity store \(file.path): it is not a JSON object; it will be rewritten")
            return ([:], true)
        }
        return (object.compactMapValues(\.stringValue), true)
    }

}
