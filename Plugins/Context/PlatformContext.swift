import Foundation
import MetaRouterCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the facts about the running platform that go into `context`.
enum PlatformContext {
    static func collect(application: ApplicationInfo) -> [String: JSON] {
        var context: [String: JSON] = [
            "library": ["name": .string(LibraryInfo.name), "version": .string(LibraryInfo.version)],
            "app": .object(app(application)),
            "os": .object(os()),
            "device": .object(device()),
            "timezone": .string(TimeZone.current.identifier),
        ]
        let locale = Locale.current.identifier
        if !locale.isEmpty { context["locale"] = .string(locale) }
        return context
    }

    private static func app(_ info: ApplicationInfo) -> [String: JSON] {
        let bundle = Bundle.main.infoDictionary ?? [:]
        var app: [String: JSON] = [:]
        let name = info.name ?? (bundle["CFBundleDisplayName"] as? String) ?? (bundle["CFBundleName"] as? String)
            ?? ProcessInfo.processInfo.processName
        app["name"] = .string(name)
        app["version"] = (info.version ?? bundle["CFBundleShortVersionString"] as? String).map(JSON.string)
        app["build"] = (info.build ?? bundle["CFBundleVersion"] as? String).map(JSON.string)
        app["namespace"] = (info.namespace ?? Bundle.main.bundleIdentifier).map(JSON.string)
        return app
    }

    private static func os() -> [String: JSON] {
        #if os(Linux)
        let kernel = uname()
        var os: [String: JSON] = ["name": .string(kernel.sysname.isEmpty ? "Linux" : kernel.sysname)]
        if !kernel.release.isEmpty { os["version"] = .string(kernel.release) }
        if let distribution = linuxDistribution() { os["distribution"] = .string(distribution) }
        return os
        #else
        return ["name": .string(RuntimePlatform.current.osName), "version": .string(osVersion(ProcessInfo.processInfo.operatingSystemVersion))]
        #endif
    }

    private static func device() -> [String: JSON] {
        #if os(Linux)
        var device: [String: JSON] = ["type": .string(RuntimePlatform.current.deviceType)]
        let machine = uname().machine
        if !machine.isEmpty { device["model"] = .string(machine) }
        return device
        #else
        return ["manufacturer": "Apple", "type": .string(RuntimePlatform.current.deviceType), "model": .string(uname().machine)]
        #endif
    }

    /// `major.minor.patch`.
    static func osVersion(_ version: OperatingSystemVersion) -> String {
        "\(version.majorVersion).\(version.minorVersion).\(version.patchVersion)"
    }

    private static func uname() -> (sysname: String, release: String, machine: String) {
        var info = utsname()
        guard systemUname(&info) == 0 else { return ("", "", "") }
        func text<T>(_ field: T) -> String {
            withUnsafeBytes(of: field) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
        }
        return (text(info.sysname), text(info.release), text(info.machine))
    }

    private static func systemUname(_ info: inout utsname) -> Int32 {
        #if canImport(Glibc)
        return Glibc.uname(&info)
        #elseif canImport(Musl)
        return Musl.uname(&info)
        #else
        return Darwin.uname(&info)
        #endif
    }

    #if os(Linux)
    /// `PRETTY_NAME` from `/etc/os-release`, e.g. `Debian GNU/Linux 12 (bookworm)`.
    private static func linuxDistribution() -> String? {
        guard let text = try? String(contentsOfFile: "/etc/os-release", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("PRETTY_NAME=") {
            return line.dropFirst("PRETTY_NAME=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return nil
    }
    #endif
}
