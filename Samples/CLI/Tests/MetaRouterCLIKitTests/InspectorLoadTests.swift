import CZlib
import Foundation
import MetaRouterCLIKit
import NIOConcurrencyHelpers
import Testing

/// The inspector under load, over real sockets on 127.0.0.1: more half-sent requests than it
/// keeps connections for, and the page and ingestion still answer; a gzip bomb stops at the cap
/// and says so; bodies over the per-request limit or past the bytes in flight are answered 413
/// before they are read.
@Suite(.serialized) struct InspectorLoadTests {
    private static func port(_ url: URL) -> Int { url.port ?? 0 }

    /// A request head for `path` on `port` (and what follows it, if anything).
    private static func head(_ method: String, _ path: String, port: Int, _ fields: [String] = []) -> String {
        ([ "\(method) \(path) HTTP/1.1", "Host: 127.0.0.1:\(port)"] + fields).joined(separator: "\r\n") + "\r\n\r\n"
    }

    /// A whole request posting `body` to `path`.
    private static func post(_ path: String, port: Int, body: Data, fields: [String] = []) -> Data {
        Data(head("POST", path, port: port, ["Content-Type: application/json", "Content-Length: \(body.count)"] + fields).utf8) + body
    }

    @Test func halfSentRequestsPastTheCapNeitherStarveThePageNorIngestion() async throws {
        // A long idle timeout: the cap, not the timeout, is what lets the page in.
        let inspector = InspectorServer(limits: InspectorLimits(connections: 16, idleTimeout: .seconds(120)))
        let url = try await inspector.start()
        let port = Self.port(url)
        // 64 connections, each stopped halfway through its headers or its body.
        var stalled: [LoopbackSocket] = []
        for index in 0..<64 {
            let socket = try LoopbackSocket(port: port)
            await socket.send(index.isMultiple(of: 2) ? "POST /v1/track HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Le" : Self.head("POST", "/v1/track", port: port, ["Content-Length: 1000"]) + "{\"type\":")
            stalled.append(socket)
        }
        let started = Date()
        let page = try LoopbackSocket(port: port)
        await page.send(Self.head("GET", "/", port: port))
        let pageAnswer = await page.response(within: 10)
        #expect(pageAnswer?.status == 200 && pageAnswer?.body.contains("metarouter-token") == true)
        let ingestion = try LoopbackSocket(port: port)
        await ingestion.send(Self.post("/v1/track", port: port, body: Data(#"{"type":"track","event":"Through","userId":"u"}"#.utf8)))
        #expect(await ingestion.response(within: 10)?.status == 200)
        #expect(Date().timeIntervalSince(started) < 5, "the page and ingestion waited \(Date().timeIntervalSince(started)) s")
        #expect(inspector.store.events.last?["event"]?["event"] == "Through")
        #expect(inspector.openConnections <= 16)
        // The oldest half-sent requests were the ones closed.
        #expect(await stalled[0].closedByPeer(within: 10))
        #expect(await stalled[1].closedByPeer(within: 10))
        await inspector.stop()
    }

    @Test func anIdleConnectionIsClosedAfterTheTimeout() async throws {
        let inspector = InspectorServer(limits: InspectorLimits(idleTimeout: .milliseconds(200)))
        let url = try await inspector.start()
        let headers = try LoopbackSocket(port: Self.port(url))
        await headers.send("GET / HTTP/1.1\r\nHost: 127.0.0.1")
        let body = try LoopbackSocket(port: Self.port(url))
        await body.send(Self.head("POST", "/v1/track", port: Self.port(url), ["Content-Length: 100"]) + "{")
        #expect(await headers.closedByPeer(within: 10), "half-sent headers")
        #expect(await body.closedByPeer(within: 10), "a half-sent body")
        await inspector.stop()
    }

    @Test func aGzipBombIsTooLargeWhenInflatedNotNotGzip() async throws {
        let inspector = InspectorServer(limits: InspectorLimits(inflatedBytes: 1 << 20))
        let url = try await inspector.start()
        let port = Self.port(url)
        // 64 MB of one character inflated from about 64 KB.
        let bomb = try #require(Self.gzip(Data(#"{"type":"track","event":""#.utf8) + Data(repeating: UInt8(ascii: "a"), count: 64 << 20)))
        #expect(bomb.count < 100_000)
        let socket = try LoopbackSocket(port: port)
        await socket.send(Self.post("/v1/track", port: port, body: bomb, fields: ["Content-Encoding: gzip"]))
        let answer = await socket.response(within: 30)
        #expect(answer?.status == 413)
        #expect(answer?.body.contains("too large when inflated") == true && answer?.body.contains("not gzip") == false, "\(answer?.body ?? "no answer")")
        #expect(inspector.store.batches.last?["problems"]?.arrayValue?.first?.stringValue?.contains("too large when inflated") == true)
        // Not gzip at all is still said so, and what fits inflates.
        await socket.send(Self.post("/v1/track", port: port, body: Data("plain".utf8), fields: ["Content-Encoding: gzip"]))
        let plain = await socket.response(within: 10)
        #expect(plain?.status == 400 && plain?.body.contains("not gzip") == true)
        let small = try #require(Self.gzip(Data(#"{"type":"track","event":"Small","userId":"u"}"#.utf8)))
        await socket.send(Self.post("/v1/track", port: port, body: small, fields: ["Content-Encoding: gzip"]))
        #expect(await socket.response(within: 10)?.status == 200)
        #expect(inspector.store.events.last?["event"]?["event"] == "Small")
        // Stacked or unknown codings are refused as such, never read as plain JSON and accepted.
        for coding in ["gzip, gzip", "br", "x-gzip"] {
            await socket.send(Self.post("/v1/track", port: port, body: small, fields: ["Content-Encoding: \(coding)"]))
            let refused = await socket.response(within: 10)
            #expect(refused?.status == 415 && refused?.body.contains("not supported") == true, "\(coding): \(String(describing: refused))")
        }
        #expect(inspector.bytesInFlight == 0)
        await inspector.stop()
    }

    @Test func bodiesPastTheLimitOrTheBytesInFlightAre413BeforeTheyAreRead() async throws {
        let limits = InspectorLimits(requestBytes: 4_000_000, bytesInFlight: 8_000_000)
        let inspector = InspectorServer(limits: limits)
        let url = try await inspector.start()
        let port = Self.port(url)
        // Over the per-request limit: refused on the header, the body never sent.
        let large = try LoopbackSocket(port: port)
        await large.send(Self.head("POST", "/v1/track", port: port, ["Content-Length: 4000001"]))
        let refused = await large.response(within: 10)
        #expect(refused?.status == 413 && refused?.body.contains("over the 4000000-byte limit") == true, "\(String(describing: refused))")

        // Four bodies of 3 MB announced at once: two fit the 8 MB in flight (reserved, though
        // not a byte is sent yet), the next two are refused.
        let sockets = try (0..<4).map { _ in try LoopbackSocket(port: port) }
        let body = Self.trackBody(bytes: 3_000_000)
        var answered: [Int: Int] = [:]
        for (index, socket) in sockets.enumerated() {
            await socket.send(Self.head("POST", "/v1/track", port: port, ["Content-Length: \(body.count)"]))
            // The first two are held (no answer, their bytes reserved); each later one is refused.
            if index >= 2 {
                let answer = await socket.response(within: 10)
                #expect(answer?.status == 413 && answer?.body.contains("budget") == true, "\(String(describing: answer))")
                answered[index] = answer?.status
            } else {
                try await Self.wait { inspector.bytesInFlight == (index + 1) * body.count }
            }
        }
        #expect(inspector.bytesInFlight == 2 * body.count)
        for socket in sockets.prefix(2) {
            await socket.send(body)
            #expect(await socket.response(within: 30)?.status == 200)
        }
        #expect(answered == [2: 413, 3: 413])
        #expect(inspector.bytesInFlight == 0)
        // Room again: the next one is taken.
        let later = try LoopbackSocket(port: port)
        await later.send(Self.post("/v1/track", port: port, body: body))
        #expect(await later.response(within: 30)?.status == 200)
        let refusals = inspector.store.batches.filter { $0["status"] == 413 }
        #expect(refusals.count == 3)
        await inspector.stop()
    }

    @Test func aChunkedBodyIsCountedAsItArrives() async throws {
        let inspector = InspectorServer(limits: InspectorLimits(requestBytes: 1_000_000, bytesInFlight: 2_000_000))
        let url = try await inspector.start()
        let port = Self.port(url)
        let chunked = Self.head("POST", "/v1/track", port: port, ["Content-Type: application/json", "Transfer-Encoding: chunked"])
        // Half a body held: exactly its bytes are in flight, then none once it is recorded.
        let body = Self.trackBody(bytes: 600_000)
        let socket = try LoopbackSocket(port: port)
        await socket.send(chunked)
        await socket.send(Self.chunk(body.prefix(300_000)))
        try await Self.wait { inspector.bytesInFlight == 300_000 }
        #expect(inspector.bytesInFlight == 300_000)
        await socket.send(Self.chunk(body.dropFirst(300_000)) + Data("0\r\n\r\n".utf8))
        #expect(await socket.response(within: 10)?.status == 200)
        #expect(inspector.bytesInFlight == 0 && inspector.store.events.last?["event"]?["event"] == "Big")

        // Past the limit for one request, as it arrives.
        let long = try LoopbackSocket(port: port)
        await long.send(chunked)
        await long.send(Self.chunk(Data(repeating: UInt8(ascii: "x"), count: 1_000_001)))
        let tooLong = await long.response(within: 10)
        #expect(tooLong?.status == 413 && tooLong?.body.contains("over the 1000000-byte limit") == true, "\(String(describing: tooLong))")

        // Past the bytes in flight: 1 MB reserved by a Content-Length, 900 KB of a chunked body
        // held, and the next 200 KB chunk of another is refused.
        let declared = try LoopbackSocket(port: port)
        await declared.send(Self.head("POST", "/v1/track", port: port, ["Content-Length: 1000000"]))
        let held = try LoopbackSocket(port: port)
        await held.send(chunked)
        await held.send(Self.chunk(Data(repeating: UInt8(ascii: " "), count: 900_000)))
        try await Self.wait { inspector.bytesInFlight == 1_900_000 }
        let refused = try LoopbackSocket(port: port)
        await refused.send(chunked)
        await refused.send(Self.chunk(Data(repeating: UInt8(ascii: " "), count: 200_000)))
        let busy = await refused.response(within: 10)
        #expect(busy?.status == 413 && busy?.body.contains("budget") == true, "\(String(describing: busy))")
        await inspector.stop()
    }

    /// `data` as one chunk of a chunked body.
    private static func chunk(_ data: Data) -> Data {
        Data("\(String(data.count, radix: 16))\r\n".utf8) + data + Data("\r\n".utf8)
    }

    /// Waits for `outcome`, at most 10 s.
    private static func wait(for outcome: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(10)
        while !outcome(), Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
    }

    @Test func sixteenConcurrentFiftyMegabyteBodiesKeepThePeakBounded() async throws {
        // `metarouter inspect` as a process of its own, so its peak (VmHWM) is its alone.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("metarouter-inspect-load-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("inspect.txt")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = ["inspect", "--port", "0"]
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        var url: URL?
        let deadline = Date().addingTimeInterval(30)
        while url == nil, Date() < deadline {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            url = text.split(separator: " ").first { $0.hasPrefix("http://127.0.0.1:") }.flatMap { URL(string: String($0)) }
            if url == nil { try await Task.sleep(for: .milliseconds(20)) }
        }
        let port = Self.port(try #require(url, "inspect never said where it listens"))

        let body = Self.trackBody(bytes: 50_000_000)
        let head = Self.head("POST", "/v1/track", port: port, ["Content-Type: application/json", "Content-Length: \(body.count)"])
        let statuses = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    guard let socket = try? LoopbackSocket(port: port) else { return 0 }
                    await socket.send(head)
                    await socket.send(body)
                    return await socket.response(within: 120)?.status ?? 0
                }
            }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        let status = try String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
        let peak = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }?.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        // The 64 MiB in flight holds one 50 MB body at a time; the rest are refused unread.
        #expect(statuses.allSatisfy { $0 == 200 || $0 == 413 }, "\(statuses)")
        #expect(statuses.contains(200) && statuses.filter { $0 == 413 }.count >= 8, "\(statuses)")
        // Before the budget: 1.05 GB. Now about 246 MB (one body's parse and record), measured.
        #expect(peak > 0 && peak < 600_000, "peak RSS \(peak) kB for 16 concurrent 50 MB bodies")
        process.terminate()
        process.waitUntilExit()
    }

    /// The `metarouter` executable beside the tests.
    private static var executable: URL {
        let candidates = [Bundle.main.executableURL?.deletingLastPathComponent(), Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
        let urls = candidates.compactMap { $0?.appendingPathComponent("metarouter") }
        return urls.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? urls[0]
    }

    /// A `/v1/track` body of exactly `bytes` bytes.
    static func trackBody(bytes: Int) -> Data {
        let prefix = Data(#"{"type":"track","event":"Big","userId":"u","properties":{"blob":""#.utf8)
        let suffix = Data(#""}}"#.utf8)
        return prefix + Data(repeating: UInt8(ascii: "x"), count: bytes - prefix.count - suffix.count) + suffix
    }

    /// `data` gzip-compressed with the system's zlib.
    static func gzip(_ data: Data) -> Data? {
        var stream = z_stream()
        guard deflateInit2_(&stream, 9, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        var input = data
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(data.count))))
        let status = input.withUnsafeMutableBytes { source in
            output.withUnsafeMutableBufferPointer { target -> Int32 in
                stream.next_in = source.bindMemory(to: UInt8.self).baseAddress
                stream.avail_in = uInt(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = uInt(target.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        return status == Z_STREAM_END ? Data(output[0..<Int(stream.total_out)]) : nil
    }
}
