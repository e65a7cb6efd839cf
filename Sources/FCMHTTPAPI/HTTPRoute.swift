/// The endpoints the HTTP port serves, read from a request's path (each segment
/// percent-decoded).
enum Route: Equatable {
    case legacy
    case v1(project: String)
    case token
    /// `/iid/v1:batchAdd` or `/iid/v1:batchRemove`.
    case iidBatch(add: Bool)
    /// `/iid/v1/{token}/rel/topics/{topic}`: one token subscribed.
    case iidRelation(token: String, topic: String)
    /// `/v1/projects/P/registrations/{token}/topicSubscriptions[/{topic}]`.
    case topicSubscription(project: String, token: String, topic: String?)
    /// `/fcm/notification` (or `/gcm/notification`): device groups.
    case groups
    /// `/v1/projects/-/serviceAccounts/{email}/allowedLocations` on the
    /// iamcredentials host: google-auth's regional-access-boundary lookup, which
    /// follows every token refresh.
    case allowedLocations

    /// The methods each endpoint takes.
    var methods: [String] {
        switch self {
        case .topicSubscription(_, _, let topic): topic == nil ? ["POST"] : ["DELETE"]
        case .groups: ["POST", "GET"]
        case .allowedLocations: ["GET"]
        default: ["POST"]
        }
    }

    init?(path: String) {
        switch path {
        case "/fcm/send", "/gcm/send": self = .legacy
        case "/token", "/oauth2/v4/token": self = .token
        case "/fcm/notification", "/gcm/notification": self = .groups
        case "/iid/v1:batchAdd": self = .iidBatch(add: true)
        case "/iid/v1:batchRemove": self = .iidBatch(add: false)
        default:
            if let project = Self.plainV1SendProject(path) {
                self = .v1(project: project)
                return
            }
            let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map {
                FormDecoding.decode($0) ?? ""
            }
            switch parts.count {
            case 4 where parts[0] == "v1" && parts[1] == "projects" && parts[3] == "messages:send" && !parts[2].isEmpty:
                self = .v1(project: parts[2])
            case 6 where parts[0] == "iid" && parts[1] == "v1" && parts[3] == "rel" && parts[4] == "topics":
                self = .iidRelation(token: parts[2], topic: parts[5])
            case 6
            where parts[0] == "v1" && parts[1] == "projects" && parts[3] == "serviceAccounts"
                && parts[5] == "allowedLocations":
                self = .allowedLocations
            case 6, 7:
                guard parts[0] == "v1", parts[1] == "projects", parts[3] == "registrations",
                    parts[5] == "topicSubscriptions",
                    !parts[2].isEmpty, !parts[4].isEmpty
                else { return nil }
                self = .topicSubscription(
                    project: parts[2], token: parts[4], topic: parts.count == 7 ? parts[6] : nil)
            default: return nil
            }
        }
    }

    /// The project of `/v1/projects/P/messages:send` when P needs no decoding (no `%`,
    /// `+` or `/`): the path every v1 send takes, read without splitting it. Any other
    /// path is nil and read segment by segment.
    static func plainV1SendProject(_ path: String) -> String? {
        let prefix = "/v1/projects/".utf8
        let suffix = "/messages:send".utf8
        let bytes = path.utf8
        guard bytes.count > prefix.count + suffix.count, bytes.starts(with: prefix),
            bytes.reversed().starts(with: suffix.reversed())
        else { return nil }
        let project = bytes.dropFirst(prefix.count).dropLast(suffix.count)
        guard
            !project.contains(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") })
        else { return nil }
        return String(Substring(project))
    }
}
