#if os(Linux)
import Foundation
import MetaRouterCurlShim

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The few libcurl entry points ``CurlTransport`` needs, looked up at run time in the
/// `libcurl.so.4` that FoundationNetworking itself links, so the package keeps zero
/// dependencies and needs no curl headers to build.
///
/// `curl_easy_setopt` and `curl_easy_getinfo` are variadic in C, so they are called from C
/// (`MetaRouterCurlShim`), with one argument of the type the option names; Swift keeps only
/// their addresses.
struct LibCurl: Sendable {
    typealias Handle = OpaquePointer
    typealias WriteCallback = @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int

    let easyInit: @convention(c) () -> Handle?
    let easyCleanup: @convention(c) (Handle?) -> Void
    let easyReset: @convention(c) (Handle?) -> Void
    let easyPerform: @convention(c) (Handle?) -> Int32
    /// The addresses of `curl_easy_setopt` and `curl_easy_getinfo` (as integers, which are
    /// `Sendable`; they are constant for the life of the process).
    private let setoptAddress: Int
    private let getinfoAddress: Int
    let errorText: @convention(c) (Int32) -> UnsafePointer<CChar>?
    let listAppend: @convention(c) (OpaquePointer?, UnsafePointer<CChar>) -> OpaquePointer?
    let listFree: @convention(c) (OpaquePointer?) -> Void

    /// The option and info numbers used (from `curl/curl.h`, stable across libcurl 7 and 8).
    enum Option {
        static let writeData: Int32 = 10_001
        static let url: Int32 = 10_002
        static let postFields: Int32 = 10_015
        static let httpHeader: Int32 = 10_023
        static let headerData: Int32 = 10_029
        static let customRequest: Int32 = 10_036
        static let writeFunction: Int32 = 20_011
        static let headerFunction: Int32 = 20_079
        static let post: Int32 = 47
        static let postFieldSize: Int32 = 60
        static let noSignal: Int32 = 99
        static let timeoutMs: Int32 = 155
        static let protocols: Int32 = 181
        static let redirectProtocols: Int32 = 182
        /// `CURLINFO_LONG + 2`.
        static let responseCode: Int32 = 0x20_0002
        /// `CURLINFO_LONG + 29`: the connection's socket, -1 when none is kept.
        static let lastSocket: Int32 = 0x20_001D
        /// `CURLINFO_LONG + 25`: the `errno` of the last failed connect.
        static let osErrno: Int32 = 0x20_0019
        /// `CURLPROTO_HTTP | CURLPROTO_HTTPS`.
        static let httpAndHTTPS = 3
    }

    /// `curl_easy_setopt` with a pointer (a string, a header list, a body, a context).
    func setPointer(_ handle: Handle?, _ option: Int32, _ value: UnsafeRawPointer?) -> Int32 {
        metarouter_curl_setopt_pointer(UnsafeMutableRawPointer(bitPattern: setoptAddress), UnsafeMutableRawPointer(handle), option, value)
    }

    /// `curl_easy_setopt` with a `long`.
    func setLong(_ handle: Handle?, _ option: Int32, _ value: Int) -> Int32 {
        metarouter_curl_setopt_long(UnsafeMutableRawPointer(bitPattern: setoptAddress), UnsafeMutableRawPointer(handle), option, value)
    }

    /// `curl_easy_setopt` with a write or header callback.
    func setCallback(_ handle: Handle?, _ option: Int32, _ value: WriteCallback) -> Int32 {
        metarouter_curl_setopt_callback(UnsafeMutableRawPointer(bitPattern: setoptAddress), UnsafeMutableRawPointer(handle), option, value)
    }

    /// `curl_easy_getinfo` for a `long` answer.
    func getLong(_ handle: Handle?, _ info: Int32, _ value: UnsafeMutablePointer<Int>) -> Int32 {
        metarouter_curl_getinfo_long(UnsafeMutableRawPointer(bitPattern: getinfoAddress), UnsafeMutableRawPointer(handle), info, value)
    }

    /// The library, loaded once per process; `nil` where libcurl cannot be loaded.
    static let shared: LibCurl? = load()

    private static func load() -> LibCurl? {
        guard let library = dlopen("libcurl.so.4", RTLD_NOW) ?? dlopen("libcurl.so", RTLD_NOW) else { return nil }
        func symbol<T>(_ name: String, as type: T.Type) -> T? {
            dlsym(library, name).map { unsafeBitCast($0, to: type) }
        }
        guard
            let globalInit = symbol("curl_global_init", as: (@convention(c) (Int) -> Int32).self),
            let easyInit = symbol("curl_easy_init", as: (@convention(c) () -> Handle?).self),
            let easyCleanup = symbol("curl_easy_cleanup", as: (@convention(c) (Handle?) -> Void).self),
            let easyReset = symbol("curl_easy_reset", as: (@convention(c) (Handle?) -> Void).self),
            let easyPerform = symbol("curl_easy_perform", as: (@convention(c) (Handle?) -> Int32).self),
            let setopt = dlsym(library, "curl_easy_setopt"),
            let getinfo = dlsym(library, "curl_easy_getinfo"),
            let errorText = symbol("curl_easy_strerror", as: (@convention(c) (Int32) -> UnsafePointer<CChar>?).self),
            let listAppend = symbol("curl_slist_append", as: (@convention(c) (OpaquePointer?, UnsafePointer<CChar>) -> OpaquePointer?).self),
            let listFree = symbol("curl_slist_free_all", as: (@convention(c) (OpaquePointer?) -> Void).self)
        else { return nil }
        // CURL_GLOBAL_DEFAULT; FoundationNetworking makes the same call, and repeated calls
        // only count references.
        guard globalInit(3) == 0 else { return nil }
        return LibCurl(
            easyInit: easyInit, easyCleanup: easyCleanup, easyReset: easyReset, easyPerform: easyPerform,
            setoptAddress: Int(bitPattern: setopt), getinfoAddress: Int(bitPattern: getinfo), errorText: errorText,
            listAppend: listAppend, listFree: listFree)
    }
}
#endif
