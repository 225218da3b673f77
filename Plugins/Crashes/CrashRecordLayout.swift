import Foundation

/// The binary layout of a crash record: what the signal handler writes, byte for byte, and what
/// the next start reads back. Fixed offsets and sizes, integers in the machine's (little-endian)
/// order, so the handler only stores into memory prepared in advance.
///
/// - Header (384 bytes): the magic `MRCRASH1`; the signal and its code; the frame count; the
///   reason's length; the fault address; the crash time (seconds and nanoseconds since 1970);
///   the record's identifier (16 bytes, becomes the event's `messageId`); the breadcrumb slots'
///   count and size; a reason (an uncaught Objective-C exception's name and reason).
/// - Frames: ``maxFrames`` entries of ``frameSize`` bytes: the address, its offset in the
///   mapped file, the file's inode, and the file's path (length, then bytes).
/// - Breadcrumb slots: see ``CrashBreadcrumbSlots``.
enum CrashRecordLayout {
    static let magic: UInt64 = 0x3148_5341_5243_524D  // "MRCRASH1" read as a little-endian UInt64
    static let signal = 8
    static let code = 12
    static let frameCount = 16
    static let reasonLength = 20
    static let faultAddress = 24
    static let seconds = 32
    static let nanoseconds = 40
    static let recordId = 48
    static let slotCount = 64
    static let slotSize = 68
    static let reason = 72
    static let reasonCapacity = 312
    static let headerSize = 384

    static let maxFrames = 64
    static let frameSize = 288
    static let frameAddress = 0
    static let frameFileOffset = 8
    static let frameInode = 16
    static let framePathLength = 24
    static let framePath = 26
    static let pathCapacity = frameSize - framePath

    /// Header and frames: the part the handler fills in.
    static let crashPartSize = headerSize + maxFrames * frameSize
}
