import Foundation
import MetaRouterCore

/// What the engine under a durable destination is given.
struct EngineSettings {
    var wire: any UploadWire
    var upload: BatchUploader.Options
    var disk: DiskLogOptions?
    var transport: (any HTTPTransport)?
    var breakerRandom: @Sendable () -> Double = { Double.random(in: -1...1) }
    var onPermanentFailure: (@Sendable (PermanentFailure) -> Void)?
}

extension DurableDestination {
    /// The wire and the engine's settings: the built-in destination's as the facade made them;
    /// a format's from its options, with its log under the instance's storage directory.
    func settings(for analytics: AnalyticsClient, setup: Setup) -> EngineSettings {
        switch setup {
        case .metaRouter(let options):
            let wire = MetaRouterFormat(writeKey: analytics.configuration.writeKey, endpoint: options.endpoint, shared: analytics.lastEncodedEvent)
            return EngineSettings(
                wire: wire, upload: options.upload, disk: options.disk, transport: options.transport,
                breakerRandom: options.breakerRandom, onPermanentFailure: options.onPermanentFailure)
        case .format(let format, let options):
            var upload = BatchUploader.Options()
            upload.maxBatchSize = max(1, options.maxBatchEvents)
            upload.flushAt = max(1, options.maxBatchEvents)
            upload.maxBatchBytes = max(1, options.maxBatchBytes)
            upload.flushIntervalSeconds = TimeInterval(max(1, options.flushIntervalSeconds))
            upload.gzip = options.gzip
            var disk: DiskLogOptions?
            if options.maxDiskBytes > 0, let root = analytics.configuration.storageDirectory {
                var log = DiskLogOptions(directory: Self.logDirectory(forKey: key, under: root))
                log.maxBytes = max(Defaults.minDiskBytes, options.maxDiskBytes)
                disk = log
            }
            return EngineSettings(
                wire: FormatWire(format: format, writeKey: analytics.configuration.writeKey, shared: analytics.lastEncodedEvent),
                upload: upload, disk: disk, transport: transport)
        }
    }

    /// `<storage>/destinations/<name>/events`, where the name keeps the key's ASCII letters,
    /// digits, `-` and `_` (at most 40 of them) and adds 16 hex digits of the key's SHA-256: any
    /// key, however hostile (`..`, `/`, control characters, 10 KB), names one directory inside
    /// `destinations`, and two keys never share one.
    package static func logDirectory(forKey key: String, under root: URL) -> URL {
        let kept = key.unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_") }
        let readable = String(String.UnicodeScalarView(kept.prefix(40)))
        let digest = SHA256.hex(SHA256.digest(Array(key.utf8))).prefix(16)
        return root.appendingPathComponent("destinations", isDirectory: true)
            .appendingPathComponent("\(readable.isEmpty ? "key" : readable)-\(digest)", isDirectory: true)
            .appendingPathComponent("events", isDirectory: true)
    }

    /// Whether `event` grants every consent category this destination needs
    /// (`context.consent.categoryPreferences`, as the Privacy trait stamps it).
    func consents(to event: Event) -> Bool {
        guard !consentCategories.isEmpty else { return true }
        let preferences = event.context["consent"]?["categoryPreferences"]
        return consentCategories.allSatisfy { preferences?[$0] == .bool(true) }
    }
}

extension DurableDestination: ConsentCategoriesListener {
    /// A category this destination needs is no longer granted: what it holds and has not sent
    /// is dropped, counted `consent`; what it holds for no category stays.
    package func consentCategoriesChanged(to preferences: [String: Bool]?) {
        guard !consentCategories.isEmpty, !consentCategories.allSatisfy({ preferences?[$0] == true }) else { return }
        uploader?.discardQueued(reason: .consent)
    }
}
