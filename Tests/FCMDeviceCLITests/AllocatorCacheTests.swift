import Foundation
import Testing

/// A long-running command starts itself again once with glibc's per-thread cache of
/// freed blocks made larger (`GLIBC_TUNABLES`), and the programs it starts do not
/// inherit the setting; a setting the user made is kept.
@Suite("The allocator's cache")
struct AllocatorCacheTests {
    static let tunable = "GLIBC_TUNABLES=glibc.malloc.tcache_count=1000"

    /// What `exec`'s command sees of `GLIBC_TUNABLES`, with `environment` given to fcm-device.
    static func seenByExecsCommand(_ environment: [String: String]) throws -> String {
        let outcome = try CLI.run(
            ["exec", "--", "sh", "-c", #"echo "seen:[$GLIBC_TUNABLES]""#], environment: environment)
        return outcome.stdout.split(separator: "\n").first { $0.hasPrefix("seen:") }.map(String.init) ?? outcome.stdout
    }

    static var environmentWithout: [String: String] {
        ProcessInfo.processInfo.environment.filter { $0.key != "GLIBC_TUNABLES" }
    }

    @Test("serve runs with the larger cache, set when the process started")
    func serveStartsWithTheLargerCache() throws {
        #if os(Linux)
            let state = FileManager.default.temporaryDirectory.appendingPathComponent("fcm-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: state) }
            let (process, output) = try CLI.serve(state: state)
            defer {
                process.terminate()
                process.waitUntilExit()
            }
            // The listening line comes from the process started again.
            _ = output.availableData
            let environ = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(process.processIdentifier)/environ"))
            let variables = environ.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            #expect(variables.contains(Self.tunable))
        #endif
    }

    @Test("exec's command does not inherit the setting")
    func execsCommandDoesNotInheritIt() throws {
        #if os(Linux)
            #expect(try Self.seenByExecsCommand(Self.environmentWithout) == "seen:[]")
        #endif
    }

    @Test("a setting the user made is kept, and handed on")
    func theUsersSettingIsKept() throws {
        #if os(Linux)
            var environment = Self.environmentWithout
            environment["GLIBC_TUNABLES"] = "glibc.malloc.tcache_count=7"
            #expect(try Self.seenByExecsCommand(environment) == "seen:[glibc.malloc.tcache_count=7]")
        #endif
    }
}
