import Foundation

// destinations-tool conformance [host]   the requests of ConformanceCalls, as JSON
// destinations-tool child …              an app for the kill -9 tests (ChildMode.swift)
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "conformance":
    try printConformance(host: URL(string: arguments.dropFirst().first ?? "http://127.0.0.1:9")!)
case "child":
    await runChild(Array(arguments.dropFirst()))
default:
    FileHandle.standardError.write(Data("usage: destinations-tool conformance [host] | child …\n".utf8))
    exit(64)
}
