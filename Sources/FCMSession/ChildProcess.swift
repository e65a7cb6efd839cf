import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `exec`'s command: started with the emulator's variables added, its signals passed
/// on, its status answered.
public enum ChildProcess {
    /// Runs the command with the emulator's variables added; its status (128 + the
    /// signal if a signal ended it; 127 if it could not start).
    /// The wait is awaited, not blocked on: the main thread, where signals are
    /// handled, must stay free for SIGINT and SIGTERM to reach the command.
    public static func run(_ argv: [String], adding environment: [String: String]) async -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = argv
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let ended = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in
            ChildSignals.child = 0
            ended.continuation.finish()
        }
        if let missing = CommandLookup.problem(argv[0]) {
            Diagnostics.write("fcm-device exec: \(missing)")
            return 127
        }
        if let error = ChildSignals.start(process) {
            Diagnostics.write("fcm-device exec: cannot run \(argv[0]): \(error)")
            return 127
        }
        ChildSignals.forward(to: process)
        for await _ in ended.stream {}
        ChildSignals.restore()
        if process.terminationReason == .uncaughtSignal { return 128 + process.terminationStatus }
        return process.terminationStatus
    }
}

/// Passes SIGINT and SIGTERM on to the command, so stopping `exec` stops it too (and
/// then the emulator, cleanly). A plain handler that only calls kill(2), which is
/// safe in a handler: the dispatch signal sources `serve` uses did not fire here
/// while the command ran.
enum ChildSignals {
    nonisolated(unsafe) static var child: pid_t = 0

    /// Starts the command from a thread that blocks no signal: a command inherits its
    /// starter's signal mask, and the threads of the emulator's pools block SIGTERM
    /// and SIGINT, which the command would then never see. The error, if it could not.
    static func start(_ process: Process) -> (any Error)? {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var failure: (any Error)?
        let thread = Thread {
            var none = sigset_t()
            sigemptyset(&none)
            pthread_sigmask(SIG_SETMASK, &none, nil)
            do { try process.run() } catch { failure = error }
            done.signal()
        }
        thread.start()
        done.wait()
        return failure
    }

    /// The command has ended: SIGINT and SIGTERM act on exec itself again.
    static func restore() {
        child = 0
        for number in [SIGINT, SIGTERM] { signal(number, SIG_DFL) }
    }

    static func forward(to process: Process) {
        child = process.processIdentifier
        for number in [SIGINT, SIGTERM] {
            signal(number) { received in
                if ChildSignals.child > 0 { kill(ChildSignals.child, received) }
            }
        }
    }
}
