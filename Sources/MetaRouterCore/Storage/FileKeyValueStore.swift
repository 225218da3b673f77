import Foundation

/// A key-value store kept in one JSON file, the store on Linux. The file is read on first use
/// (on the executor, not in `initialize`); every change rewrites it atomically (write to a
/// temporary file in the same directory, then rename), owner-only. A file that cannot be read
/// is reported once and treated as empty; it is replaced on the next write.
public final class FileKeyValueStore: KeyValueStore {
    private let file: URL
    private let logger: Logger?
    private let values = Locked<[String: String]?>(nil)

    /// Prepares the store at `file`; nothing is read until a value is asked for.
    public init(file: URL, logger: Logger? = nil) {
        self.file = file
        self.logger = logger
    }

    /// The stored string, or `nil`.
    public func string(forKey key: String) -> String? {
        values.withLock { loaded(&$0)[key] }
    }

    /// Stores or removes `value` and writes the file.
    public func set(_ value: String?, forKey key: String) {
        values.withLock { cached in
            var current = loaded(&cached)
            guard current[key] != value else { return }
            current[key] = value
            cached = current
            persist(current)
        }
    }

    private func loaded(_ cached: inout [String: String]?) -> [String: String] {
        if let cached { return cached }
        let read = Self.load(file, logger: logger)
        cached = read
        return read
    }

    private func persist(_ current: [String: String]) {
        let json = JSON.object(current.mapValues(JSON.string))
        let data = Data(JSONWriter.bytes(json))
        do {
            try StorageFiles.writeAtomically(data, to: file)
        } catch {
            logger?.error("could not write \(file.path): \(error.localizedDescription)")
        }
    }

    private static func load(_ file: URL, logger: Logger?) -> [String: String] {
        guard let data = try? Data(contentsOf: file) else { return [:] }
        guard let object = (try? JSONParser.parse(data))?.objectValue else {
            logger?.warning("ignoring unreadable store \(file.path); it will be rewritten")
            return [:]
        }
        return object.compactMapValues(\.stringValue)
    }
}
