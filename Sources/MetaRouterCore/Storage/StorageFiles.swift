import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A storage problem described in words a developer can act on.
package struct StorageError: Error, CustomStringConvertible, Sendable {
    /// What is wrong and what to do.
    package let description: String

    package init(_ description: String) { self.description = description }
}

/// File-system helpers shared by the stores: owner-only directories and files, atomic writes,
/// and the per-write-key storage directory.
package enum StorageFiles {
    /// Creates `directory` (and parents) with permissions 0700 if missing; on Apple platforms
    /// it is excluded from backup.
    package static func ensureDirectory(_ directory: URL) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw StorageError(
                "\(directory.path) is a file, not a directory: move it away, or pass another storageDirectory")
        }
        do {
            try createDirectory(directory)
        } catch {
            throw StorageError(
                "cannot create the directory \(directory.path) (\(describe(error))): check that its parent exists and is writable, or pass another storageDirectory")
        }
    }

    /// A file-system error in plain words: the POSIX reason when there is one.
    static func describe(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        if nsError.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(nsError.code))) }
        return nsError.localizedDescription
    }

    private static func createDirectory(_ directory: URL) throws {
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        #if canImport(Darwin)
        var values = URLResourceValues()
        values.isExcludedFromBackup = true
        var marked = directory
        try? marked.setResourceValues(values)
        #endif
    }

    /// Writes `data` to a temporary file beside `file` (0600), then renames it over `file`.
    package static func writeAtomically(_ data: Data, to file: URL) throws {
        try ensureDirectory(file.deletingLastPathComponent())
        let temporary = file.deletingLastPathComponent()
            .appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString).tmp")
        // Written with open/write rather than `FileManager.createFile`, which on Linux stages
        // the file in a `TemporaryDirectory.*` folder of the system temporary directory and
        // leaves that folder behind on every write.
        try writeNew(data, to: temporary)
        if rename(temporary.path, file.path) != 0 {
            let code = errno
            try? FileManager.default.removeItem(at: temporary)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
    }

    private static func writeNew(_ data: Data, to file: URL) throws {
        let handle = open(file.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard handle >= 0 else { throw StorageError("cannot create \(file.path): \(String(cString: strerror(errno)))") }
        defer { close(handle) }
        var written = 0
        let failed = data.withUnsafeBytes { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            while written < buffer.count {
                let result = write(handle, base + written, buffer.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    return true
                }
                written += result
            }
            return false
        }
        if failed {
            unlink(file.path)
            throw StorageError("cannot write \(file.path): \(String(cString: strerror(errno)))")
        }
    }

    /// The default directory for one write key: `<base>/metarouter/<hash of key>`, where base is
    /// Application Support on Apple platforms and `$XDG_DATA_HOME` or `~/.local/share` on Linux.
    /// Made from one path, with no URL appending: an app's first `initialize` pays for it, and
    /// the first `appendingPathComponent` in a process costs it a runtime lookup (and a `stat`
    /// without a directory hint).
    package static func defaultDirectory(writeKey: String) -> URL {
        URL(fileURLWithPath: defaultDirectoryPath(writeKey: writeKey), isDirectory: true)
    }

    /// The path of ``defaultDirectory(writeKey:)``.
    package static func defaultDirectoryPath(writeKey: String) -> String {
        basePath() + "/metarouter/" + namespace(for: writeKey)
    }

    /// A stable, filename-safe namespace for a write key (FNV-1a 64, hex), so the key itself
    /// never appears on disk.
    package static func namespace(for writeKey: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in writeKey.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        // Sixteen hex digits by hand: the generic `String(_:radix:)` costs its first caller
        // (an app's `initialize`) a pass over every conformance record in the process.
        let digits = Array("0123456789abcdef".utf8)
        let bytes = (0..<16).map { digits[Int((hash >> UInt64(60 - 4 * $0)) & 0xF)] }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func basePath() -> String {
        #if canImport(Darwin)
        if let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first {
            return support.path
        }
        #endif
        // `getenv`, not `ProcessInfo`: its first use copies the whole environment into a dictionary.
        return linuxBasePath { name in getenv(name).map { String(cString: $0) } }
    }

    /// `$XDG_DATA_HOME`, else `$HOME/.local/share`, else the passwd home's: as every Linux tool
    /// resolves it. Relative values are ignored, as the XDG specification says.
    static func linuxBase(environment: [String: String]) -> URL {
        URL(fileURLWithPath: linuxBasePath { environment[$0] }, isDirectory: true)
    }

    private static func linuxBasePath(_ variable: (String) -> String?) -> String {
        if let xdg = variable("XDG_DATA_HOME"), xdg.hasPrefix("/") { return trimmingTrailingSlashes(xdg) }
        let home = variable("HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? NSHomeDirectory()
        return trimmingTrailingSlashes(home) + "/.local/share"
    }

    private static func trimmingTrailingSlashes(_ path: String) -> String {
        var path = Substring(path)
        while path.count > 1, path.last == "/" { path = path.dropLast() }
        return String(path)
    }
}
