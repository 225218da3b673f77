#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import MetaRouterErrors

/// A crash record read back at the next start.
package struct CrashReport: Sendable, Hashable {
    /// One return address, and where it lies in the file mapped there.
    package struct Frame: Sendable, Hashable {
        /// The address in the crashed process.
        package var address: UInt64
        /// The file's path, empty when the address lay in no known mapping.
        package var path: String
        /// The file's inode (0 on Apple platforms).
        package var inode: UInt64
        /// The address's offset in the file (Apple: the unslid address).
        package var fileOffset: UInt64
    }

    /// The signal number.
    package var signal: Int32
    /// The signal's code (`si_code`).
    package var code: Int32
    /// The faulting address the signal carried.
    package var faultAddress: UInt64
    /// When the crash happened.
    package var time: Date
    /// The record's identifier: the event's `messageId`, the same however often it is read.
    package var recordId: UUID
    /// An uncaught exception's name and reason, where one led to the crash.
    package var reason: String?
    /// Innermost first.
    package var frames: [Frame]
    /// The breadcrumbs as they were at the crash, oldest first.
    package var breadcrumbs: [Breadcrumb]

    /// The signal's name (`SIGSEGV`), or `signal <n>`.
    package var signalName: String {
        switch signal {
        case SIGSEGV: return "SIGSEGV"
        case SIGBUS: return "SIGBUS"
        case SIGILL: return "SIGILL"
        case SIGTRAP: return "SIGTRAP"
        case SIGABRT: return "SIGABRT"
        case SIGFPE: return "SIGFPE"
        default: return "signal \(signal)"
        }
    }

    /// What the signal means, in a few words.
    package var signalDescription: String {
        switch signal {
        case SIGSEGV: return "invalid memory access"
        case SIGBUS: return "bus error"
        case SIGILL: return "illegal instruction (a Swift runtime trap on x86-64)"
        case SIGTRAP: return "trace trap (a Swift runtime trap on arm64)"
        case SIGABRT: return "abort"
        case SIGFPE: return "arithmetic exception"
        default: return "fatal signal"
        }
    }

    /// Decodes a record file's bytes; `nil` when they are not a whole, well-formed record (a
    /// crash while the record was being written, or a file that is not one).
    init?(bytes: [UInt8]) {
        typealias Layout = CrashRecordLayout
        guard bytes.count >= Layout.crashPartSize else { return nil }
        func load<T: FixedWidthInteger>(_ offset: Int, _: T.Type) -> T {
            bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
        }
        guard load(0, UInt64.self) == Layout.magic else { return nil }
        let frameCount = Int(load(Layout.frameCount, UInt32.self))
        let seconds = load(Layout.seconds, Int64.self)
        let nanoseconds = load(Layout.nanoseconds, Int64.self)
        let reasonLength = Int(load(Layout.reasonLength, UInt32.self))
        guard frameCount <= Layout.maxFrames, reasonLength <= Layout.reasonCapacity, seconds > 0, seconds < 1 << 40,
            nanoseconds >= 0, nanoseconds < 1_000_000_000
        else { return nil }
        signal = load(Layout.signal, Int32.self)
        code = load(Layout.code, Int32.self)
        faultAddress = load(Layout.faultAddress, UInt64.self)
        time = Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1e9)
        let idBytes = Array(bytes[Layout.recordId..<(Layout.recordId + 16)])
        recordId = UUID(uuid: (
            idBytes[0], idBytes[1], idBytes[2], idBytes[3], idBytes[4], idBytes[5], idBytes[6], idBytes[7],
            idBytes[8], idBytes[9], idBytes[10], idBytes[11], idBytes[12], idBytes[13], idBytes[14], idBytes[15]))
        reason = reasonLength > 0 ? String(decoding: bytes[Layout.reason..<(Layout.reason + reasonLength)], as: UTF8.self) : nil
        frames = (0..<frameCount).map { index in
            let base = Layout.headerSize + index * Layout.frameSize
            let pathLength = min(Int(load(base + Layout.framePathLength, UInt16.self)), Layout.pathCapacity)
            let pathStart = base + Layout.framePath
            return Frame(
                address: load(base + Layout.frameAddress, UInt64.self),
                path: String(decoding: bytes[pathStart..<(pathStart + pathLength)], as: UTF8.self),
                inode: load(base + Layout.frameInode, UInt64.self), fileOffset: load(base + Layout.frameFileOffset, UInt64.self))
        }
        let slotCount = Int(load(Layout.slotCount, UInt32.self))
        let slotSize = Int(load(Layout.slotSize, UInt32.self))
        breadcrumbs = CrashBreadcrumbSlots.decode(bytes[Layout.crashPartSize...], count: slotCount, slotSize: slotSize)
    }

    /// The frames as `module symbol`, named as far as this process can: a frame in a file this
    /// process has mapped too (same path and inode) gets its symbol from the dynamic symbol
    /// table; any other keeps its module and offset (`libfoo.so +0x1a2b`), which is what
    /// offline symbolication needs and stays the same across launches.
    package func symbolicatedFrames() -> StackFrames {
        let images = LoadedImage.current()
        var lines: [String] = []
        var unresolved: [Int: String] = [:]
        var addresses: [UnsafeMutableRawPointer?] = []
        for (index, frame) in frames.enumerated() {
            if let here = LoadedImage.address(path: frame.path, inode: frame.inode, fileOffset: frame.fileOffset, in: images) {
                addresses.append(UnsafeMutableRawPointer(bitPattern: here))
            } else {
                addresses.append(nil)
                let offset = frame.path.isEmpty ? frame.address : frame.fileOffset
                unresolved[index] = "\(frame.path.isEmpty ? "?" : frame.path)(+0x\(String(offset, radix: 16)))"
            }
        }
        let symbols = BacktraceSymbols.lines(for: addresses)
        for index in frames.indices {
            lines.append(unresolved[index] ?? symbols[index] ?? "?")
        }
        return StackFrames(symbols: lines, droppingOwnFrames: false)
    }
}
