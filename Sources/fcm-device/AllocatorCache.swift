import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// glibc keeps, for each thread, a cache of the blocks it freed: 7 of each size by
/// default. The event loop makes a message's values (its box, its events) in bursts,
/// and other threads (the journal's, the log's) free many of them; with 7 a size most of
/// the loop's next burst takes the allocator's slow path (a lock, bins consolidated).
/// With 1,000 a size the loop spent 11% less CPU a CCS message, and the log's writer
/// 17% less (BENCHMARKS.md). glibc reads the size from `GLIBC_TUNABLES` only when a
/// process starts, so a long-running command starts itself again, once, with it set:
/// the same process, arguments and environment; the variable is taken out again
/// before anything runs, so the programs `exec` starts do not inherit it. A
/// `GLIBC_TUNABLES` already set (even empty) is the user's choice and left alone.
enum AllocatorCache {
    static let tunable = "glibc.malloc.tcache_count=1000"
    /// The commands that serve or emulate for long: the rest end before it would pay.
    static let quickCommands: Set<String> = ["replay", "env", "credentials", "profile", "state", "help"]

    static func restartWithLargerCache(arguments: [String]) {
        #if os(Linux) && canImport(Glibc)
            if let set = getenv("GLIBC_TUNABLES").map({ String(cString: $0) }) {
                // This process is the one started again: its cache is sized already.
                if set == tunable { unsetenv("GLIBC_TUNABLES") }
                return
            }
            let first = arguments.first ?? ""
            guard !quickCommands.contains(first), !first.hasPrefix("--help"), first != "-h", first != "--version"
            else { return }
            setenv("GLIBC_TUNABLES", tunable, 1)
            execv("/proc/self/exe", CommandLine.unsafeArgv)
            // Still here: it could not start again; it goes on with the default cache.
            unsetenv("GLIBC_TUNABLES")
        #endif
    }
}
