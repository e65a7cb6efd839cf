/// Why the device's state file could not be used. Each names the file and says
/// what to do.
public enum StoreError: Error, CustomStringConvertible, Equatable {
    /// Another fcm-device has the state open.
    case inUse(path: String, holder: String)
    /// The profile's device settings differ from those the state was saved with.
    case configurationChanged(path: String, detail: String)
    /// The file is not a state file this version can read.
    case unreadable(path: String, detail: String)
    /// Writing the state failed (a full disk, a removed folder).
    case writeFailed(path: String, detail: String)

    public var description: String {
        switch self {
        case .inUse(let path, let holder):
            "the state \(path) is in use by another fcm-device (\(holder)); stop it, or use another --state folder"
        case .configurationChanged(let path, let detail):
            "the state \(path) was saved for other device settings (\(detail)); "
                + "--fresh starts the device over, or use another --state folder"
        case .unreadable(let path, let detail):
            "cannot read the state \(path): \(detail); --fresh starts the device over"
        case .writeFailed(let path, let detail):
            "cannot write the state \(path): \(detail)"
        }
    }
}
