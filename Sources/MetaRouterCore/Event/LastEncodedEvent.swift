import Foundation

/// The wire bytes of the event encoded last on an instance's executor, so that destinations
/// writing the same wire form — the built-in MetaRouter destination and each
/// `DurableDestination`, which all queue an event as this SDK's format writes it — encode an
/// event once between them. An event is the one encoded last when it shares its fields'
/// storage with it: this holds that storage, so neither can change it in place (an ``Event`` is
/// copied on write), and a destination whose own plugins changed the event encodes its copy.
package final class LastEncodedEvent: @unchecked Sendable {  // read and written only on the instance's executor (`BatchUploader.enqueue`)
    private var storage: EventStorage?
    private var writeKey = ""
    private var bytes: [UInt8] = []

    package init() {}

    /// The bytes of `event` under `writeKey`: those made last when they are its, else `encode()`'s.
    package func bytes(for event: Event, writeKey: String, encode: () -> [UInt8]) -> [UInt8] {
        if let storage, storage === event.storage, self.writeKey == writeKey { return bytes }
        let fresh = encode()
        storage = event.storage
        self.writeKey = writeKey
        bytes = fresh
        return fresh
    }

    /// Lets go of the event and its bytes (reset, forget: nothing of the user's stays in memory).
    package func clear() {
        storage = nil
        writeKey = ""
        bytes = []
    }
}
