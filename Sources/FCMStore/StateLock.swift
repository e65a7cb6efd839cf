import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An exclusive lock on a state file, so that two emulators never write one device.
/// Held through an open descriptor with `flock`; the system releases it when the
/// process ends, however it ends.
final class StateLock: Sendable {
    let descriptor: Int32

    /// Takes the lock at `path` (created if missing) for the state `guarding`, or
    /// says who holds it.
    init(path: String, guarding state: String) throws {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StoreError.unreadable(path: path, detail: String(cString: strerror(errno)))
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder = (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(
                in: .whitespacesAndNewlines)
            close(descriptor)
            throw StoreError.inUse(path: state, holder: holder.map { "process \($0)" } ?? "unknown process")
        }
        ftruncate(descriptor, 0)
        let pid = "\(getpid())\n"
        _ = pid.withCString { write(descriptor, $0, strlen($0)) }
        self.descriptor = descriptor
    }

    func release() {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
