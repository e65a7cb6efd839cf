import FCMJSON
import FCMWebPush

/// What a device-side client (firebase-messaging, a Chrome-style web push receiver)
/// asks of Google's registration hosts, as the HTTP door read it: the engine checks
/// every field and answers.
public enum ReceiverRequest: Sendable, Equatable, Codable {
    /// `POST android.clients.google.com/checkin`: a new device (no id), or a saved
    /// one checking in with its `android_id` and `security_token`.
    case checkin(androidID: UInt64?, securityToken: UInt64?)
    /// `POST android.clients.google.com/c2dm/register3`: a GCM token for the device
    /// the `Authorization: AidLogin <android_id>:<security_token>` header names.
    case register3(Register3)
    /// `POST firebaseinstallations.googleapis.com/v1/projects/P/installations`.
    case installation(Installation)
    /// `POST fcmregistrations.googleapis.com/v1/projects/P/registrations`: the web
    /// push subscription a receiver made, for its FCM token.
    case registration(Registration)

    public struct Register3: Sendable, Equatable, Codable {
        public var authorization: String?
        public var app: String?
        public var subtype: String?
        public var sender: String?

        public init(authorization: String?, app: String?, subtype: String?, sender: String?) {
            self.authorization = authorization
            self.app = app
            self.subtype = subtype
            self.sender = sender
        }
    }

    public struct Installation: Sendable, Equatable, Codable {
        public var project: String
        public var apiKey: String?
        public var appID: String?
        public var fid: String?

        public init(project: String, apiKey: String?, appID: String?, fid: String?) {
            self.project = project
            self.apiKey = apiKey
            self.appID = appID
            self.fid = fid
        }
    }

    public struct Registration: Sendable, Equatable, Codable {
        public var project: String
        public var apiKey: String?
        /// `x-goog-firebase-installations-auth`, bare or as `FIS <token>`.
        public var installationAuth: String?
        public var endpoint: String?
        public var p256dh: String?
        public var auth: String?
        public var applicationPubKey: String?

        public init(
            project: String, apiKey: String?, installationAuth: String?, endpoint: String?, p256dh: String?,
            auth: String?, applicationPubKey: String?
        ) {
            self.project = project
            self.apiKey = apiKey
            self.installationAuth = installationAuth
            self.endpoint = endpoint
            self.p256dh = p256dh
            self.auth = auth
            self.applicationPubKey = applicationPubKey
        }
    }

    /// The endpoint's name in events and refusals.
    public var endpoint: String {
        switch self {
        case .checkin: "checkin"
        case .register3: "register3"
        case .installation: "installations"
        case .registration: "registrations"
        }
    }
}

/// The registration hosts' answer to a receiver's request.
public enum ReceiverAnswer: Sendable, Equatable {
    /// 200 with an `AndroidCheckinResponse` (the door writes the protobuf).
    case checkedIn(androidID: UInt64, securityToken: UInt64)
    /// register3's form-encoded answer: `token=…` or `Error=…`.
    case form(status: Int, String)
    /// A JSON answer (Installations, registrations, their errors in Google's shape).
    case json(status: Int, JSONValue)
    /// A plain-text refusal (check-in's).
    case text(status: Int, String)

    public var status: Int {
        switch self {
        case .checkedIn: 200
        case .form(let status, _), .json(let status, _), .text(let status, _): status
        }
    }
}

/// What happened on an MCS connection, as the MCS door read it.
public enum MCSInput: Sendable, Equatable, Codable {
    /// A connection came, not logged in yet: it must log in within the login timeout
    /// (`ConnectionRules.loginTimeout`, as a CCS connection must reach a session).
    case opened(ConnectionID)
    /// A `LoginRequest`: the device's `android_id` and `security_token` (decimal, as
    /// the client writes them in `user` and `auth_token`) and the persistent ids it
    /// says it received.
    case login(ConnectionID, MCSLogin)
    /// Selective acks (`IqStanza` extension 12): the persistent ids it took.
    case acked(ConnectionID, [String])
    /// The connection is gone; `reason` when the MCS door ended it for what the client
    /// sent (a frame it could not read), nil when it simply closed.
    case closed(ConnectionID, reason: String? = nil)

    public var connection: ConnectionID {
        switch self {
        case .opened(let id), .login(let id, _), .acked(let id, _), .closed(let id, _): id
        }
    }
}

public struct MCSLogin: Sendable, Equatable, Codable {
    public var user: String
    public var authToken: String
    public var received: [String]

    public init(user: String, authToken: String, received: [String]) {
        self.user = user
        self.authToken = authToken
        self.received = received
    }
}

/// What the engine asks the MCS door to write on a connection.
public enum MCSStanza: Sendable, Equatable {
    /// A `LoginResponse` with no error.
    case loginAccepted
    /// A `LoginResponse` whose `error` says why; the door closes the connection after it.
    case loginRefused(code: Int, message: String)
    /// A `DataMessageStanza`.
    case data(ReceiverMessage)
    /// A `Close`, then the connection ends (another login took the device's place).
    case close
}

/// One message as a receiver's MCS connection carries it: what FCM writes in a
/// `DataMessageStanza` for a Chrome-style receiver (the payload encrypted to its
/// subscription, `aesgcm`, with the keys in app data).
public struct ReceiverMessage: Sendable, Equatable, Codable {
    /// The message's id as the app server knows it (FCM's message id, or the Web Push
    /// message's), which events name it by.
    public var messageID: String
    /// The connection's own id for it, which the client acks.
    public var persistentID: String
    public var from: String
    /// The receiver's app (`org.chromium.linux`).
    public var category: String
    public var appData: [KeyValue]
    public var rawData: [UInt8]
    public var ttl: Int64
    /// When the server sent it (Unix seconds).
    public var sent: Int64

    public init(
        messageID: String, persistentID: String, from: String, category: String, appData: [KeyValue],
        rawData: [UInt8], ttl: Int64, sent: Int64
    ) {
        self.messageID = messageID
        self.persistentID = persistentID
        self.from = from
        self.category = category
        self.appData = appData
        self.rawData = rawData
        self.ttl = ttl
        self.sent = sent
    }
}

/// The registration side of Google's service for device-side clients: the devices
/// that checked in, their GCM registrations, Firebase installations, and the
/// receivers (phones of the fleet) that finished registering, with the MCS
/// connection each has and what it sent there and was not acked.
public struct Receivers: Sendable, Equatable, Codable {
    /// A device that checked in.
    public struct Checkin: Sendable, Equatable, Codable {
        public var androidID: UInt64
        public var securityToken: UInt64
    }

    /// A GCM registration (register3): its token names the device and the app's
    /// subtype (`wp:<bundle>#<uuid>`).
    public struct GCMRegistration: Sendable, Equatable, Codable {
        public var token: String
        public var androidID: UInt64
        public var app: String
        public var subtype: String
    }

    /// A Firebase installation: its `fid` and the auth token a registration shows.
    public struct Installation: Sendable, Equatable, Codable {
        public var fid: String
        public var project: String
        public var authToken: String
        public var refreshToken: String
    }

    /// A phone of the fleet that is a real client: its device and its GCM registration
    /// (the push subscription's id), and what was written to it and not acked, oldest
    /// first. One device (one MCS connection) may hold several registrations, as
    /// Chrome holds one per site.
    public struct Receiver: Sendable, Equatable, Codable {
        public var phone: Int
        public var androidID: UInt64
        public var gcmToken: String
        public var unacked: [ReceiverMessage] = []
        /// The sender key agreed with its subscription's keys, drawn from the seed when
        /// it registered: every message to it is encrypted with it (a fresh salt each).
        public var agreed: WebPushCipher.AgreedKey?
    }

    public internal(set) var checkins: [UInt64: Checkin] = [:]
    /// GCM token → its registration.
    public internal(set) var gcm: [String: GCMRegistration] = [:]
    /// Auth token → its installation.
    public internal(set) var installations: [String: Installation] = [:]
    /// Phone → its receiver.
    public internal(set) var byPhone: [Int: Receiver] = [:]
    /// Device (`android_id`) → its receivers' phones, in the order they joined.
    public private(set) var phonesByDevice: [UInt64: [Int]] = [:]
    /// MCS connection → the device logged in on it, and the other way.
    public private(set) var deviceByConnection: [ConnectionID: UInt64] = [:]
    public private(set) var connectionByDevice: [UInt64: ConnectionID] = [:]
    /// Ids and tokens made so far: the seed of the next.
    var made: UInt64 = 0
    /// Messages written to receivers so far: the next persistent id's number.
    var written: UInt64 = 0

    public init() {}

    /// The app a Chrome-style receiver registers as, and its messages' category.
    public static let chromeApp = "org.chromium.linux"
    /// The app data key that tells a stanza of the service's own from a message, and
    /// its value for the notice of messages the server discarded.
    public static let messageTypeKey = "message_type"
    public static let deletedMessages = "deleted_messages"
    /// The app data key of how many messages such a notice says were discarded.
    public static let totalDeletedKey = "total_deleted"
    /// How long an installation's auth token lasts (`expiresIn`).
    public static let authTokenSeconds = 604_800
    /// The most messages kept unacked for one receiver: past it the oldest is dropped.
    public static let unackedLimit = 100
    /// The longest `app`, `X-subtype` or `fid` taken.
    public static let maxFieldLength = 256

    public func receiver(ofPhone p: Int) -> Receiver? { byPhone[p] }
    public func isReceiver(_ p: Int) -> Bool { byPhone[p] != nil }

    /// The phones of the device `androidID`, once it registered.
    public func phones(ofDevice androidID: UInt64) -> [Int] { phonesByDevice[androidID] ?? [] }

    /// The MCS connection the device of the phone at `p` is logged in on, if any.
    public func connection(ofPhone p: Int) -> ConnectionID? {
        byPhone[p].flatMap { connectionByDevice[$0.androidID] }
    }

    /// The receiver registered with GCM token `token`, if any.
    public func phone(ofGCMToken token: String) -> Int? {
        gcm[token].flatMap { registration in
            phones(ofDevice: registration.androidID).first { byPhone[$0]?.gcmToken == token }
        }
    }

    mutating func join(_ receiver: Receiver) {
        byPhone[receiver.phone] = receiver
        phonesByDevice[receiver.androidID, default: []].append(receiver.phone)
    }

    /// The device logs in on `connection`: the connection it had before, if any.
    mutating func attach(_ connection: ConnectionID, device: UInt64) -> ConnectionID? {
        let old = connectionByDevice.updateValue(connection, forKey: device)
        if let old { deviceByConnection[old] = nil }
        deviceByConnection[connection] = device
        return old
    }

    /// The connection is gone: the device that was logged in on it, if it still was.
    mutating func detach(_ connection: ConnectionID) -> UInt64? {
        guard let device = deviceByConnection.removeValue(forKey: connection) else { return nil }
        connectionByDevice[device] = nil
        return device
    }

    /// The device `AidLogin <android_id>:<security_token>` names, if the pair checked in.
    func checkin(aidLogin header: String?) -> Checkin? {
        guard let header, header.hasPrefix("AidLogin ") else { return nil }
        let pair = header.dropFirst("AidLogin ".count).split(separator: ":")
        guard pair.count == 2, let id = UInt64(pair[0]), let token = UInt64(pair[1]) else { return nil }
        return checkin(id: id, token: token)
    }

    func checkin(id: UInt64, token: UInt64) -> Checkin? {
        guard let known = checkins[id], ConstantTime.equals(String(known.securityToken), String(token)) else {
            return nil
        }
        return known
    }

    /// What a reset keeps: every registration, the receivers re-joined by whoever
    /// resets, their connections (still open at the door) and nothing they held.
    var keptByReset: Receivers {
        var kept = self
        kept.byPhone = [:]
        kept.phonesByDevice = [:]
        return kept
    }
}
