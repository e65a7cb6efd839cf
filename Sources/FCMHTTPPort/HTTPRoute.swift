/// The one route table of the HTTP port: every endpoint it serves, read from a
/// request's path (each segment percent-decoded), with the methods it takes and how
/// its callers prove who they are (`credential`, checked by `HTTPSendService
/// .authenticate`). The listener, the send path served on the event loop and the
/// send service all read this table.
public enum HTTPRoute: Equatable, Sendable {
    /// `GET /healthz`: readiness, touching nothing.
    case healthz
    /// `/emulator/v1/projects/{project}/…`: the control API (`rest` is what follows).
    case control(project: String, rest: String)
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
    /// `/fcm/send/{subscription}` or `/wp/{subscription}`: Web Push (RFC 8030) to a
    /// browser's push subscription, signed with VAPID (the engine checks it).
    case webPush(subscription: String)
    /// `/checkin` (android.clients.google.com): a real client's Android check-in.
    case checkin
    /// `/c2dm/register3` (android.clients.google.com): its GCM token.
    case register3
    /// `/v1/projects/{project}/installations` (firebaseinstallations.googleapis.com).
    case installations(project: String)
    /// `/v1/projects/{project}/registrations` (fcmregistrations.googleapis.com): its
    /// web push subscription registered for an FCM token.
    case registrations(project: String)

    /// How a caller proves who it is on an endpoint.
    public enum Credential: Equatable, Sendable {
        /// Nothing: anyone may call (readiness, the token endpoint, google-auth's lookup).
        case none
        /// `Authorization: key=SERVER_KEY` of a sender some phone registers with.
        case serverKey
        /// A bearer token from the token endpoint, granted for the path's project.
        case bearer(project: String)
        /// Either of the two (the Instance ID API, device groups).
        case serverKeyOrBearer
        /// The control token, when one is set (and the control API is open at all).
        case controlToken
    }

    /// The methods each endpoint takes (the control API routes its own).
    public var methods: [String] {
        switch self {
        case .healthz, .allowedLocations: ["GET"]
        case .control: ["GET", "POST", "DELETE"]
        case .topicSubscription(_, _, let topic): topic == nil ? ["POST", "GET"] : ["GET", "PATCH", "DELETE"]
        case .groups: ["POST", "GET"]
        default: ["POST"]
        }
    }

    /// How callers of this endpoint prove who they are.
    public var credential: Credential {
        switch self {
        // The registration hosts check their callers' own credentials (the engine does).
        case .healthz, .token, .allowedLocations, .webPush, .checkin, .register3, .installations, .registrations:
            .none
        case .control: .controlToken
        case .legacy: .serverKey
        case .v1(let project), .topicSubscription(let project, _, _): .bearer(project: project)
        case .iidBatch, .iidRelation, .groups: .serverKeyOrBearer
        }
    }

    /// Whether a send on this endpoint (legacy, v1) is answered on the connection's
    /// event loop (`HTTPSendService.answerSend`), over HTTP/1.1 and HTTP/2 alike.
    public var isSend: Bool {
        switch self {
        case .legacy, .v1: true
        default: false
        }
    }

    public static let controlPrefix = "/emulator/v1/projects/"

    /// Every endpoint of the port as a person writes it, with a path that reads as
    /// it: a 404 lists them with the methods the table gives each, and a test reads
    /// each example back to the route it names.
    public static let catalog: [(pattern: String, example: String)] = [
        ("/fcm/send and /gcm/send", "/fcm/send"),
        ("/v1/projects/PROJECT/messages:send", "/v1/projects/p/messages:send"),
        ("/token", "/token"),
        ("/iid/v1:batchAdd", "/iid/v1:batchAdd"),
        ("/iid/v1:batchRemove", "/iid/v1:batchRemove"),
        ("/iid/v1/TOKEN/rel/topics/TOPIC", "/iid/v1/t/rel/topics/news"),
        (
            "/v1/projects/PROJECT/registrations/TOKEN/topicSubscriptions",
            "/v1/projects/p/registrations/t/topicSubscriptions"
        ),
        (
            "/v1/projects/PROJECT/registrations/TOKEN/topicSubscriptions/TOPIC",
            "/v1/projects/p/registrations/t/topicSubscriptions/news"
        ),
        ("/fcm/notification and /gcm/notification", "/fcm/notification"),
        ("/fcm/send/SUBSCRIPTION and /wp/SUBSCRIPTION (Web Push)", "/wp/s"),
        ("/checkin (a real client's check-in)", "/checkin"),
        ("/c2dm/register3", "/c2dm/register3"),
        ("/v1/projects/PROJECT/installations", "/v1/projects/p/installations"),
        ("/v1/projects/PROJECT/registrations", "/v1/projects/p/registrations"),
        ("/healthz", "/healthz"),
        ("\(controlPrefix)PROJECT/… (the control API)", "\(controlPrefix)p/devices"),
    ]

    /// The catalog, as a 404 lists it: `POST /fcm/send and /gcm/send; …`.
    public static var listed: String {
        catalog.map { entry in
            let methods = HTTPRoute(path: entry.example)?.methods.joined(separator: ", ") ?? ""
            return "\(methods) \(entry.pattern)"
        }.joined(separator: "; ")
    }

    public init?(path: String) {
        switch path {
        case "/healthz": self = .healthz
        case "/fcm/send", "/gcm/send": self = .legacy
        case "/token", "/oauth2/v4/token": self = .token
        case "/fcm/notification", "/gcm/notification": self = .groups
        case "/iid/v1:batchAdd": self = .iidBatch(add: true)
        case "/iid/v1:batchRemove": self = .iidBatch(add: false)
        case "/checkin": self = .checkin
        case "/c2dm/register3": self = .register3
        default:
            if let project = Self.plainV1SendProject(path) {
                self = .v1(project: project)
                return
            }
            if path.hasPrefix(Self.controlPrefix) {
                let rest = path.dropFirst(Self.controlPrefix.count)
                let project = rest.prefix { $0 != "/" }
                self = .control(project: String(project), rest: String(rest.dropFirst(project.count)))
                return
            }
            let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map {
                FormDecoding.decode($0) ?? ""
            }
            switch parts.count {
            case 2 where parts[0] == "wp" && !parts[1].isEmpty:
                self = .webPush(subscription: parts[1])
            case 3 where parts[0] == "fcm" && parts[1] == "send" && !parts[2].isEmpty:
                self = .webPush(subscription: parts[2])
            case 4 where parts[0] == "v1" && parts[1] == "projects" && parts[3] == "messages:send" && !parts[2].isEmpty:
                self = .v1(project: parts[2])
            case 4 where parts[0] == "v1" && parts[1] == "projects" && parts[3] == "installations" && !parts[2].isEmpty:
                self = .installations(project: parts[2])
            case 4 where parts[0] == "v1" && parts[1] == "projects" && parts[3] == "registrations" && !parts[2].isEmpty:
                self = .registrations(project: parts[2])
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
