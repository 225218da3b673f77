import Foundation

// destinations-tool conformance [host]   the requests of ConformanceCalls, as JSON
let arguments = CommandLine.arguments.dropFirst()
switch arguments.first {
case "conformance":
    try printConformance(host: URL(string: arguments.dropFirst().first ?? "http://127.0.0.1:9")!)
default:
    FileHandle.standardError.write(Data("usage: destinations-tool conformance [host]\n".utf8))
    exit(64)
}
