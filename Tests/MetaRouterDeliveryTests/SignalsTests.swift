import Foundation
import MetaRouter

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import MetaRouterTesting
import Testing

/// Signals end to end: emitted signals go into the buffer in call order, generators (in Swift
/// and in the rule language) turn them into events that travel the whole pipeline to the
/// collector, instrumentation never feeds itself, broadcasters relay, reset and forget clear.
@Suite struct SignalsTests {
    private struct Instance {
        let analytics: MetaRouter.Analytics
        let collector: Collector
        let directory: TemporaryDirectory

        func stop() async {
            await analytics.shutdown()
            collector.stop()
            directory.remove()
        }

        /// What reached the collector once the generators' events (queued behind the calls
        /// already made when their signal ran) were sent.
        func delivered() async throws -> [JSON] {
            await analytics.engine.settle()
            await analytics.flushAndWait()
            return try await collector.acceptedEvents()
        }

        /// The signals plugin's buffer as the executor sees it.
        func signals() async -> [Signal] {
            await withCheckedContinuation { continuation in
                analytics.engine.perform { timeline in continuation.resume(returning: timeline.find(SignalsPlugin.self)?.buffer.signals ?? []) }
            }
        }
    }

    private func start(_ signals: SignalsConfiguration, debug: Bool = false, logs: RecordingLogSink = RecordingLogSink()) async throws -> Instance {
        let collector = try await Collector.start()
        let directory = try TemporaryDirectory()
        var options = InitOptions(
            writeKey: "signals-\(UUID())", ingestionHost: collector.baseURL.absoluteString, debug: debug, flushIntervalSeconds: 3600)
        options.storageDirectory = directory.url
        options.keyValueStore = InMemoryKeyValueStore()
        options.logSink = logs
        options.signals = signals
        return Instance(analytics: MetaRouter.Analytics.instance(for: options), collector: collector, directory: directory)
    }

    static let addToCart = """
        generator "Add To Cart" {
            on interaction when data.title = "Add To Cart"
            find product: network where data.action = "response" and contains(data.url, "product")
            track "Add To Cart"
            set properties.price = product.data.data.content.price
            set properties.currency = product.data.data.content.currency ?? "USD"
            set properties.productId = product.data.data.content.id
            set properties.button = signal.data.title
        }
        """

    @Test func theSeedsAddToCartJoinsATapWithTheLastProductResponse() async throws {
        let instance = try await start(SignalsConfiguration(generators: [try SignalGenerator.rules(Self.addToCart)]))
        let analytics = instance.analytics
        analytics.emit(.network(.response, url: "https://shop.example/products/1", statusCode: 200, data: ["content": ["price": 10, "currency": "EUR", "id": "p1"]]))
        analytics.emit(.network(.response, url: "https://shop.example/products/2", statusCode: 200, data: ["content": ["price": 20, "id": "p2"]]))
        analytics.emit(.network(.response, url: "https://shop.example/cart", statusCode: 200, data: ["content": ["price": 99]]))
        analytics.emit(.interaction(component: "button", title: "Add To Wishlist"))
        analytics.emit(.interaction(component: "button", title: "Add To Cart"))
        let events = try await instance.delivered()
        try #require(events.count == 1)
        #expect(events[0]["event"] == "Add To Cart")
        #expect(events[0]["properties"] == ["price": 20, "currency": "USD", "productId": "p2", "button": "Add To Cart"])
        // A generated event is an event like any other: identity and context were added.
        #expect(events[0]["anonymousId"]?.stringValue?.isEmpty == false)
        #expect(events[0]["context"]?["library"] != nil)
        await instance.stop()
    }

    /// The generator and the two signals of `Docs/Signals.md`'s first example, read from the
    /// page itself: what a user copies delivers the price.
    @Test func theDocsAddToCartExampleDeliversThePrice() async throws {
        let page = try String(contentsOf: URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Docs/Signals.md"), encoding: .utf8)
        let rules = try #require(page.components(separatedBy: "SignalGenerator.rules(\"\"\"\n").dropFirst().first?
            .components(separatedBy: "\"\"\")").first)
        #expect(rules.contains("generator \"Add To Cart\""))
        #expect(page.contains("data: [\"content\": [\"price\": 19.99, \"id\": \"p7\"]]"))
        #expect(page.contains(".interaction(component: \"button\", title: \"Add To Cart\")"))
        let instance = try await start(SignalsConfiguration(generators: [try SignalGenerator.rules(rules)]))
        instance.analytics.emit(.network(.response, url: "https://shop.example/products/7", statusCode: 200,
                                         data: ["content": ["price": 19.99, "id": "p7"]]))
        instance.analytics.emit(.interaction(component: "button", title: "Add To Cart"))
        let events = try await instance.delivered()
        try #require(events.count == 1)
        #expect(events[0]["properties"] == ["price": 19.99, "currency": "USD", "productId": "p7"])
        await instance.stop()
    }

    @Test func aSwiftGeneratorLooksBackAndTheBufferWraps() async throws {
        let screens = SignalGenerator(name: "screens") { signal, buffer in
            guard signal.type == .navigation, signal.data["action"] == "entering", let screen = signal.data["screen"]?.stringValue else { return [] }
            let previous = buffer.find(before: signal, type: .navigation) { $0.data["action"] == "entering" }
            return [Event(type: .screen, name: screen, properties: ["from": previous?.data["screen"] ?? .null])]
        }
        var configuration = SignalsConfiguration(generators: [screens])
        configuration.maximumBufferSize = 5
        let instance = try await start(configuration)
        for screen in ["Home", "List", "Detail"] {
            instance.analytics.emit(.navigation(.entering, screen: screen))
            instance.analytics.emit(.navigation(.leaving, screen: screen))
        }
        for index in 0..<6 { instance.analytics.emit(.localData(.loaded, identifier: "item-\(index)")) }
        let events = try await instance.delivered()
        #expect(events.map { $0["name"]?.stringValue ?? "" } == ["Home", "List", "Detail"])
        #expect(events.map { $0["properties"]?["from"] ?? .null } == [.null, "Home", "List"])
        let kept = await instance.signals()
        #expect(kept.map(\.index) == Array(7...11))
        #expect(kept.allSatisfy { $0.type == .localData })
        await instance.stop()
    }

    @Test func signalsKeepTheirPlaceAmongTheCallsAndResetAndForgetClearThem() async throws {
        var configuration = SignalsConfiguration()
        configuration.instrumentation = true
        let instance = try await start(configuration)
        let analytics = instance.analytics
        analytics.track("First")
        analytics.emit(.interaction(component: "button", title: "Buy"))
        analytics.emit(userDefined: ["cart": 3])
        analytics.track("Second")
        let signals = await instance.signals()
        #expect(signals.map(\.type) == [.instrumentation, .interaction, .userDefined, .instrumentation])
        #expect(signals.map(\.index) == [0, 1, 2, 3])
        #expect(signals[0].data["rawEvent"]?["event"] == "First" && signals[3].data["rawEvent"]?["event"] == "Second")
        #expect(signals[2].data == ["cart": 3])
        #expect(signals.allSatisfy { !$0.anonymousId.isEmpty })
        #expect(signals[1].json["timestamp"]?.stringValue?.count == 24)
        await analytics.engine.resetAndWait()
        #expect(await instance.signals().isEmpty)
        analytics.emit(.interaction(component: "button"))
        #expect(await analytics.forget().signals == 1)
        await instance.stop()
    }

    @Test(arguments: [true, false])
    func debugModeLogsEachSignal(debug: Bool) async throws {
        let logs = RecordingLogSink()
        let instance = try await start(SignalsConfiguration(), debug: debug, logs: logs)
        instance.analytics.emit(.interaction(component: "button", title: "Buy"))
        _ = await instance.signals()
        let lines = logs.messages.filter { $0.contains("sdk.signal: ") }
        #expect(lines.count == (debug ? 1 : 0))
        #expect(lines.allSatisfy { $0.contains(#""title":"Buy""#) && $0.contains(#""type":"interaction""#) })
        await instance.stop()
    }

    @Test func signalDataNestedTooDeepIsReportedAndLeftOut() async throws {
        let instance = try await start(SignalsConfiguration())
        var deep: JSON = "leaf"
        for _ in 0..<40 { deep = .array([deep]) }
        instance.analytics.emit(.userDefined(["deep": deep, "kept": 1]))
        instance.analytics.emit(.interaction(component: "button", data: ["deep": deep]))
        let signals = await instance.signals()
        func depth(_ value: JSON?) -> Int {
            switch value {
            case .array(let items)?: return 1 + (items.map { depth($0) }.max() ?? 0)
            case .object(let members)?: return 1 + (members.values.map { depth($0) }.max() ?? 0)
            default: return 0
            }
        }
        #expect(signals.count == 2 && signals[0].data["kept"] == 1)
        #expect(depth(signals[0].data["deep"]) < 32 && depth(signals[1].data["data"]) < 33)
        #expect(await instance.analytics.getDebugInfo().invalidInput["event_properties_too_deep"] == 2)
        await instance.stop()
    }

    @Test func aGeneratorNeverFeedsItself() async throws {
        // Echoes every instrumentation signal as an event: without the guard, each echo would
        // make another instrumentation signal, and another echo, for ever.
        let echo = SignalGenerator(name: "echo") { signal, _ in
            guard signal.type == .instrumentation else { return [] }
            return [Event(type: .track, event: "Echo", properties: ["of": signal.data["rawEvent"]?["event"] ?? .null])]
        }
        var configuration = SignalsConfiguration(generators: [echo])
        configuration.instrumentation = true
        let instance = try await start(configuration)
        instance.analytics.track("Original")
        let events = try await instance.delivered()
        #expect(events.map { $0["event"]?.stringValue ?? "" } == ["Original", "Echo"])
        #expect(events.last?["properties"]?["of"] == "Original")
        // The echo's own instrumentation signal is kept, not acted on.
        let kept = await instance.signals()
        #expect(kept.count == 2, "\(kept)")
        await instance.stop()
    }

    @Test func theWebhookBroadcasterRelaysEveryRelayCountSignals() async throws {
        let receiver = try await Collector.start()
        defer { receiver.stop() }
        let webhook = WebhookSignalBroadcaster(url: receiver.baseURL.appendingPathComponent("signals"))
        var configuration = SignalsConfiguration(broadcasters: [webhook])
        configuration.relayCount = 3
        let instance = try await start(configuration)
        for index in 0..<7 { instance.analytics.emit(.userDefined(["n": .int(Int64(index))])) }
        // A generous bound (it returns as soon as both relays are in): under ThreadSanitizer
        // the instance's start and each relay's request take seconds.
        let requests = try await receiver.waitFor(timeout: 60) { $0.count >= 2 }
        let relayed = requests.map { request in request.body?["signals"]?.arrayValue?.compactMap { $0["data"]?["n"]?.int64Value } ?? [] }
        #expect(relayed == [[0, 1, 2], [3, 4, 5]])
        #expect(requests.allSatisfy { $0.path.hasSuffix("/signals") })
        // Shutting down relays what is left.
        await instance.stop()
        let all = try await receiver.waitFor(timeout: 60) { $0.count >= 3 }
        #expect(all.last?.body?["signals"]?.arrayValue?.count == 1)
    }

    @Test func networkSignalsComeFromTheAppsOwnSessionAndNeverFromTheSDKsHosts() async throws {
        let api = try await Collector.start()
        defer { api.stop() }
        var configuration = SignalsConfiguration()
        configuration.network = NetworkSignals.Options()
        let instance = try await start(configuration)
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        NetworkSignals.watch(sessionConfiguration)
        NetworkSignals.watch(sessionConfiguration)
        #expect(sessionConfiguration.protocolClasses?.filter { $0 == NetworkSignalsProtocol.self }.count == 1)
        let session = URLSession(configuration: sessionConfiguration)
        let product = #"{"content":{"price":5,"id":"p5"}}"#
        let large = "{\"blob\":\"" + String(repeating: "x", count: 100_000) + "\"}"
        try await api.script([
            ScriptedResponse(status: 200, headers: ["X-Secret": "hidden"], body: product), ScriptedResponse(status: 200, body: large),
        ])
        func send(_ url: URL) async -> (Data?, Int?) {
            await withCheckedContinuation { continuation in
                var request = URLRequest(url: url)
                request.httpMethod = "POST"
                request.httpBody = Data("{}".utf8)
                request.setValue("Bearer app-token", forHTTPHeaderField: "Authorization")
                session.dataTask(with: request) { data, response, _ in
                    continuation.resume(returning: (data, (response as? HTTPURLResponse)?.statusCode))
                }.resume()
            }
        }
        // The app gets its answers unchanged.
        let (body, status) = await send(api.baseURL.appendingPathComponent("products/5"))
        #expect(status == 200 && body.map { String(decoding: $0, as: UTF8.self) } == product)
        #expect(await send(api.baseURL.appendingPathComponent("catalog")).0?.count == large.utf8.count)
        // A request to the SDK's own ingestion host through the same session makes no signal.
        _ = await send(instance.collector.baseURL.appendingPathComponent("v1/health"))
        await instance.analytics.engine.settle()
        let signals = await instance.signals()
        #expect(signals.map { $0.data["action"]?.stringValue ?? "" } == ["request", "response", "request", "response"])
        #expect(signals[1].data["statusCode"] == 200)
        #expect(signals[1].data["data"] == ["content": ["price": 5, "id": "p5"]])
        #expect(signals[3].data["data"] == nil, "a body above the cap is not kept")
        #expect(signals.allSatisfy { $0.data["url"]?.stringValue?.hasPrefix(api.baseURL.absoluteString) == true })
        #expect(!signals.map { JSONWriter.string($0.json) }.joined().contains("hidden"), "headers are never kept")
        #expect(!signals.map { JSONWriter.string($0.json) }.joined().contains("app-token"))
        NetworkSignals.stopSending(to: instance.analytics.engine)
        await instance.stop()
    }
}
