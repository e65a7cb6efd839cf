import FCMConnectionServer
import FCMCredentials
import FCMEngine
import FCMHTTPAPI
import FCMStore
import Foundation

/// The emulator's state folder: by default $XDG_STATE_HOME/fcm-device, else
/// ~/.local/state/fcm-device. It holds one device file per profile, the TLS
/// identity and the service-account key.
public enum StateFolder {
    public static var `default`: String {
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_STATE_HOME"], !xdg.isEmpty { return xdg + "/fcm-device" }
        return (environment["HOME"] ?? FileManager.default.currentDirectoryPath) + "/.local/state/fcm-device"
    }

    /// The emulator's service-account key in `folder` (made on first use).
    public static func serviceAccountKey(_ folder: String) throws(SessionError) -> ServiceAccountKey {
        do {
            return try ServiceAccountKey.inFolder(folder)
        } catch {
            throw SessionError("cannot prepare the service-account key in \(folder): \(error)")
        }
    }

    /// The device's state file in `folder`: one per profile, named after its file
    /// (`default.sqlite` for the built-in device).
    public static func devicePath(_ folder: String, profilePath: String?) -> String {
        let stem = profilePath.map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent } ?? "default"
        let safe = String(stem.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." ? $0 : "_" })
        return folder + "/" + (safe.isEmpty ? "device" : safe) + ".sqlite"
    }

    /// The file a running session writes beside the device's state: where it listens.
    public static func runningPath(_ folder: String, profilePath: String?) -> String {
        let device = devicePath(folder, profilePath: profilePath)
        return String(device.dropLast(".sqlite".count)) + ".running.json"
    }

    /// Opens the device's state: the saved engine, or a new one. A write that
    /// fails later calls `onWriteFailure`.
    static func openDevice(
        _ folder: String, profilePath: String?, configuration: EngineConfiguration, seedNamed: Bool, fresh: Bool,
        commitDelay: Duration, checkpointEvery: Int, onWriteFailure: @escaping @Sendable (any Error) -> Void
    ) throws(SessionError) -> (DeviceStore, DeviceEngine, resumed: Bool) {
        let path = devicePath(folder, profilePath: profilePath)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let (store, opening) = try DeviceStore.open(
                path: path, configuration: configuration, seedNamed: seedNamed, fresh: fresh,
                checkpointEvery: checkpointEvery,
                commitDelay: commitDelay,
                onFailure: { onWriteFailure($0) })
            switch opening {
            case .new(let engine): return (store, engine, false)
            case .resumed(let engine, _): return (store, engine, true)
            }
        } catch {
            throw SessionError("\(error)")
        }
    }
}
