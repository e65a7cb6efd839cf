/// Who may act as an app server: every sender some phone registers with now, on any
/// interface (CCS login, a legacy `key=`, a v1 project, the token endpoint, the
/// control API). Counted by phone, so a sender added on one phone is accepted at
/// once and a sender no phone registers with any more is refused at once. Kept
/// beside the phones and rebuilt from them; never saved.
public struct AppServerSenders: Sendable {
    /// Sender ids in the order first seen.
    private var order: [String] = []
    private var configs: [String: SenderConfig] = [:]
    /// Sender id → how many phones register with it.
    private var phoneCounts: [String: Int] = [:]

    init() {}

    /// One more phone (or `phones` more) registers with `sender`.
    mutating func add(_ sender: SenderConfig, phones: Int = 1) {
        let count = phoneCounts[sender.id, default: 0]
        if count == 0 {
            order.append(sender.id)
            configs[sender.id] = sender
        }
        phoneCounts[sender.id] = count + phones
    }

    /// One phone no longer registers with the sender `id`.
    mutating func remove(_ id: String) {
        guard let count = phoneCounts[id] else { return }
        if count > 1 {
            phoneCounts[id] = count - 1
            return
        }
        phoneCounts[id] = nil
        configs[id] = nil
        order.removeAll { $0 == id }
    }

    /// Every sender an app server may act for, in the order first seen.
    public var all: [SenderConfig] { order.compactMap { configs[$0] } }

    public var isEmpty: Bool { order.isEmpty }

    /// The sender with this id.
    public func sender(id: String) -> SenderConfig? { configs[id] }

    /// The sender whose server key this is, compared in constant time with every key.
    public func sender(key presented: String) -> SenderConfig? {
        var found: SenderConfig?
        for id in order {
            guard let sender = configs[id] else { continue }
            if ConstantTime.equals(sender.key, presented) && found == nil { found = sender }
        }
        return found
    }

    /// The sender `id` when `key` is its server key (a CCS login).
    public func sender(id: String, key: String) -> SenderConfig? {
        guard let sender = configs[id], ConstantTime.equals(sender.key, key) else { return nil }
        return sender
    }

    /// The sender a v1 project names (`SenderConfig.isNamed(byProject:)`: its project
    /// or its sender ID), the first seen when several are.
    public func sender(project: String) -> SenderConfig? {
        for id in order {
            if let sender = configs[id], sender.isNamed(byProject: project) { return sender }
        }
        return nil
    }

    /// The sender a request names, found as `lookup` says.
    public func find(_ lookup: SenderLookup) -> SenderConfig? {
        switch lookup {
        case .key(let key): sender(key: key)
        case .project(let project): sender(project: project)
        case .login(let id, let key): sender(id: id, key: key)
        }
    }

    /// The projects app servers may name, for an error that lists them.
    public var projectNames: String {
        order.isEmpty ? "none" : all.map { $0.project ?? $0.id }.joined(separator: ", ")
    }
}

/// How a request names the sender it acts for.
public enum SenderLookup: Sendable, Equatable {
    /// By its server key (`key=`), compared in constant time.
    case key(String)
    /// By a v1 project (or its sender ID).
    case project(String)
    /// By its sender ID and server key (a CCS login).
    case login(id: String, key: String)
}

extension DeviceEngine {
    /// The senders app servers may act for now: every sender some phone registers with.
    public var appServerSenders: AppServerSenders { registeredSenders }
}
