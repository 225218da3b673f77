import Foundation
import MetaRouterCore
import MetaRouterDelivery

/// Where the rules come from and how they are checked.
public struct RemoteRulesOptions: Sendable {
    /// The rule set's URL: rule text, our JSON form, or a Segment settings payload.
    public var url: URL
    /// Seconds between fetches (15 minutes).
    public var refreshInterval: TimeInterval = 900
    /// A rule file shipped with the app, used until a set has been fetched.
    public var fallbackFile: URL?
    /// The SHA-256 (hex) the payload must have, when the app pins one.
    public var expectedSHA256: String?
    /// Payloads above this many bytes are refused (1 MiB).
    public var maxBytes = 1 << 20
    /// Extra request headers (an authorization header, for example).
    public var headers: [String: String] = [:]

    /// Rules from `url`.
    ///
    /// - Parameters:
    ///   - url: Where the rule set is downloaded from.
    ///   - refreshInterval: Seconds between downloads.
    ///   - fallbackFile: Rules used until a download succeeds.
    ///   - expectedSHA256: The digest a download must have, to pin it.
    public init(url: URL, refreshInterval: TimeInterval = 900, fallbackFile: URL? = nil, expectedSHA256: String? = nil) {
        self.url = url
        self.refreshInterval = refreshInterval
        self.fallbackFile = fallbackFile
        self.expectedSHA256 = expectedSHA256
    }
}

/// Where the rules in force came from.
package enum RemoteRulesSource: String, Sendable, Hashable {
    /// None yet: events pass unchanged.
    case none
    /// The bundled fallback file.
    case fallback
    /// The set stored by an earlier fetch.
    case stored
    /// Fetched in this run.
    case fetched
}

/// A rule set delivered without an app update: fetched from a URL at start and every
/// ``Options/refreshInterval``, with `If-None-Match` (a 304 keeps what is in force), stored in
/// the instance's directory, and applied to every event between two events (an enrichment
/// plugin, like `TransformPlugin`). At start the stored set — or, when nothing was ever
/// fetched, the bundled ``Options/fallbackFile`` — applies before any fetch completes: startup
/// never waits for the network. A payload that is too big, fails the pinned digest, or does not
/// load (a syntax error, nesting too deep) keeps the last good set and is logged once.
package final class RemoteRulesPlugin: Plugin {
    package typealias Options = RemoteRulesOptions

    package typealias Source = RemoteRulesSource

    /// Runs with the other enrichment plugins.
    package let type = PluginType.enrichment
    /// The options.
    package let options: Options
    /// The rules in force.
    package private(set) var ruleSet: RuleSet?
    /// Where they came from.
    package private(set) var source = Source.none
    /// Fetches answered 200 whose payload was refused.
    package private(set) var refusedPayloads = 0
    private let directory: URL
    private let transport: any HTTPTransport
    private var etag: String?
    private var digest: String?
    private var refused: Set<String> = []
    /// Rules of the set in force that failed and were logged (each once, as `TransformPlugin` does).
    private var failedRules: Set<String> = []
    private var timer: (any ScheduledWork)?
    private weak var analytics: AnalyticsClient?

    /// Rules from `options`, stored in `directory`, fetched through `transport`.
    package init(options: Options, directory: URL, transport: any HTTPTransport) {
        self.options = options
        self.directory = directory
        self.transport = transport
    }

    private var storedRules: URL { directory.appendingPathComponent("remote.rules") }
    private var storedMeta: URL { directory.appendingPathComponent("remote.json") }

    /// Applies the stored set (or the fallback), then fetches.
    package func configure(analytics: AnalyticsClient) {
        self.analytics = analytics
        if let text = try? String(contentsOf: storedRules, encoding: .utf8), let rules = load(text, from: "the stored copy") {
            let meta = (try? JSONParser.parse(Data(contentsOf: storedMeta))) ?? .null
            apply(rules, text: text, source: .stored)
            etag = meta["etag"]?.stringValue
        } else if let file = options.fallbackFile, let text = try? String(contentsOf: file, encoding: .utf8),
            let rules = load(text, from: "the fallback file \(file.lastPathComponent)")
        {
            apply(rules, text: text, source: .fallback)
        }
        fetch()
    }

    /// Applies the rules in force.
    package func execute(event: Event) -> Event? {
        guard let ruleSet else { return event }
        return ruleSet.apply(to: event, destination: nil, onStep: nil, onFailure: { [weak self] rule, error in
            guard let self, failedRules.insert(rule.name).inserted else { return }
            analytics?.logger.warning("sdk.rule_failed: rule \"\(rule.name)\" of the remote set could not be applied (\(error.message))")
        })
    }

    /// Stops fetching.
    package func shutdown() {
        timer?.cancel()
        timer = nil
    }

    /// Fetches now (and then every ``Options/refreshInterval``).
    package func fetch() {
        timer?.cancel()
        timer = nil
        guard let analytics else { return }
        var headers = options.headers
        if let etag { headers["If-None-Match"] = etag }
        let request = TransportRequest(url: options.url, method: "GET", headers: headers, body: Data(), timeout: 30)
        let handle = ExecutorHandle(self, on: analytics)
        transport.send(request) { result in
            handle.performPromptly { plugin, _ in plugin.handle(result) }
        }
    }

    private func handle(_ result: Result<TransportResponse, any Error>) {
        defer { scheduleFetch() }
        guard let analytics else { return }
        switch result {
        case .failure(let error):
            analytics.logger.info("sdk.rules_fetch_failed: \(options.url.absoluteString): \(error.localizedDescription); \(inForce) stays")
        case .success(let response) where response.status == 304:
            return
        case .success(let response) where response.status == 200:
            accept(response)
        case .success(let response):
            analytics.logger.info("sdk.rules_fetch_failed: \(options.url.absoluteString) answered \(response.status); \(inForce) stays")
        }
    }

    private func accept(_ response: TransportResponse) {
        let hash = SHA256.hex(Array(response.body))
        guard hash != digest else {
            etag = response.headers["etag"]
            return
        }
        guard !response.isTruncated, response.body.count <= options.maxBytes else {
            return refuse(hash, "is more than \(options.maxBytes) bytes, the limit (the download stopped there)")
        }
        if let expected = options.expectedSHA256?.lowercased(), expected != hash {
            return refuse(hash, "has SHA-256 \(hash), not the pinned \(expected)")
        }
        guard let text = String(data: response.body, encoding: .utf8) else { return refuse(hash, "is not UTF-8 text") }
        let rules: RuleSet
        do {
            rules = try RuleSetLoader.load(text)
        } catch {
            return refuse(hash, "does not load: \(error)")
        }
        apply(rules, text: text, source: .fetched)
        etag = response.headers["etag"]
        store(text, etag: etag, version: rules.version)
        analytics?.logger.info("sdk.rules_updated: rule set \"\(rules.name)\" version \(rules.version) from \(options.url.absoluteString)")
    }

    private func refuse(_ hash: String, _ reason: String) {
        refusedPayloads += 1
        guard refused.insert(hash).inserted else { return }
        analytics?.logger.warning("sdk.rules_refused: the payload from \(options.url.absoluteString) \(reason); \(inForce) stays")
    }

    private var inForce: String {
        ruleSet.map { "rule set \"\($0.name)\" version \($0.version) (\(source.rawValue))" } ?? "no rule set"
    }

    private func load(_ text: String, from place: String) -> RuleSet? {
        guard text.utf8.count <= options.maxBytes, options.expectedSHA256.map({ $0.lowercased() == SHA256.hex(Array(text.utf8)) }) ?? true else {
            analytics?.logger.warning("sdk.rules_refused: \(place) is too big or fails the pinned digest; not applied")
            return nil
        }
        do {
            return try RuleSetLoader.load(text)
        } catch {
            analytics?.logger.warning("sdk.rules_refused: \(place) does not load: \(error); not applied")
            return nil
        }
    }

    private func apply(_ rules: RuleSet, text: String, source: Source) {
        ruleSet = rules
        self.source = source
        failedRules = []
        digest = SHA256.hex(Array(text.utf8))
    }

    private func store(_ text: String, etag: String?, version: Int) {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: storedRules, options: .atomic)
            let meta: JSON = ["etag": etag.map(JSON.string) ?? .null, "version": .int(Int64(version))]
            try Data(JSONWriter.bytes(meta)).write(to: storedMeta, options: .atomic)
        } catch {
            analytics?.logger.warning("sdk.rules_not_stored: \(directory.path): \(error.localizedDescription); the set applies in this run only")
        }
    }

    private func scheduleFetch() {
        guard timer == nil, let analytics else { return }
        let handle = ExecutorHandle(self, on: analytics)
        timer = analytics.configuration.clock.schedule(after: options.refreshInterval) {
            handle.perform { plugin, _ in plugin.fetch() }
        }
    }
}
