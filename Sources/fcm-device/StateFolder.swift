import ArgumentParser
import FCMEngine
import FCMHTTPAPI
import FCMStore
import Foundation

/// Where state lives by default: $XDG_STATE_HOME/fcm-device, else ~/.local/state/fcm-device.
enum StateFolder {
    /// The emulator's service-account key in `folder`; exit 2 with the reason when it cannot be had.
    static func serviceAccountKey(_ folder: String) throws -> ServiceAccountKey {
        do {
            return try ServiceAccountKey.inFolder(folder)
        } catch {
            Diagnostics.write("cannot prepare the service-account key in \(folder): \(error)")
            throw ExitCode(2)
        }
    }

    static var `default`: String {
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_STATE_HOME"], !xdg.isEmpty { return xdg + "/fcm-device" }
        return (environment["HOME"] ?? FileManager.default.currentDirectoryPath) + "/.local/state/fcm-device"
    }

    /// The device's state file in `folder`: one per profile, named after its file
    /// (`default.sqlite` for the built-in device).
    static func devicePath(_ folder: String, profilePath: String?) -> String {
        let stem = profilePath.map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent } ?? "default"
        let safe = String(stem.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." ? $0 : "_" })
        return folder + "/" + (safe.isEmpty ? "device" : safe) + ".sqlite"
    }

    /// Opens the device's state: the saved engine, or a new one; exit 2 with the
    /// reason when the file cannot be used. A write that fails later ends the
    /// process (exit 3): nothing after it could be acknowledged.
    static func openDevice(
        _ folder: String, profilePath: String?, configuration: EngineConfiguration, seedNamed: Bool, fresh: Bool,
        commitDelay: Duration = .zero
    ) throws -> (DeviceStore, DeviceEngine, resumed: Bool) {
        let path = devicePath(folder, profilePath: profilePath)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let (store, opening) = try DeviceStore.open(
                path: path, configuration: configuration, seedNamed: seedNamed, fresh: fresh, commitDelay: commitDelay
            ) { error in
                Diagnostics.write("fcm-device: \(error); stopping, since nothing more can be acknowledged")
                exit(3)
            }
            switch opening {
            case .new(let engine): return (store, engine, false)
            case .resumed(let engine, _): return (store, engine, true)
            }
        } catch {
            Diagnostics.write("\(error)")
            throw ExitCode(2)
        }
    }
}
