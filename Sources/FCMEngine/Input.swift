/// Everything that can happen to the fleet, its connection server or one phone from
/// outside: the one vocabulary every door speaks (a key in the TUI, a step of a
/// profile, a stanza, an HTTP request, a control-API action). What happens to one
/// phone is a `PhoneCommand`, carried by `on(device:_:)`: it cannot hold another
/// phone's command or a fleet's, and it cannot nest. The engine takes an input at
/// its time (`JournalEntry.input`).
public indirect enum Input: Sendable, Equatable, Codable {
    /// A command for the phone with this name (`DeviceEngine.phoneIndex(named:)`);
    /// without one, the only phone of a device of one (a fleet refuses it).
    case on(device: String? = nil, PhoneCommand)
    /// A phone joins: a new installation that registers with its senders.
    case addDevice(DeviceSpec)
    case setService(up: Bool)
    /// A profile's or the TUI's downstream message (to a token, a topic, a condition
    /// or a device group's key).
    case push(DownstreamRequest)
    /// An HTTP API's downstream messages (their platform blocks and where they came
    /// from), answered together: the reply is what became of each (`sent`).
    case send([SendOrder])
    /// A Web Push request at the push service (`/fcm/send/<id>`, `/wp/<id>`): the
    /// reply is its answer (`webPush`), the browser's side its events.
    case webPush(WebPushRequest)
    /// A real client's call on Google's registration hosts (check-in, register3,
    /// Installations, FCM registrations): the reply is the answer (`receiver`).
    case receiver(ReceiverRequest)
    /// What happened on a real client's MCS connection.
    case mcs(MCSInput)
    /// What the faults in scope do to an HTTP request on `path` (each use counted):
    /// the reply is their effects (`faults`). A check that found no fault in scope
    /// changed nothing, and is not kept.
    case httpFaults(path: String)
    /// An HTTP request the send APIs refused before it reached the device: logged
    /// (`requestRejected`), so a profile's `expect` and the report card see it.
    case requestRejected(RejectedRequest)
    /// A send the app server went away from before its answer (`requestAbandoned`).
    case requestAbandoned(AbandonedRequest)
    /// The token endpoint took a service-account assertion signed by a key the
    /// emulator did not make (`credentialsUnverified`).
    case credentialsUnverified(account: String, key: String, project: String)
    /// A profile's push aimed at the token of a phone that no phone's name names (a
    /// reset took it away, say): refused, naming the phones there are. (A push's own
    /// case stays lean: replay makes one for every message.)
    case pushToUnknownPhone(String)
    /// An app server acknowledges an upstream message.
    case ackUpstream(sender: String, id: String)
    /// An app server acknowledges a delivery receipt (`dr2:…`).
    case ackReceipt(sender: String, id: String)
    /// The connection server asks its app-server connections to drain.
    case drain
    /// Whether a real app server of this sender is connected; while one is, the
    /// built-in echo app server stays silent for that sender. (Connections now say
    /// this themselves; kept so journals saved before them replay.)
    case setAppServerPresent(sender: String, present: Bool)
    /// Something happened on an app server's CCS connection.
    case appServer(AppServerInput)
    /// An app server's device-group call (the HTTP API's, or a profile's `group:`
    /// step); the current token of each phone named in `phones` joins `order.tokens`.
    /// Its reply is the group's outcome.
    case group(GroupOrder, phones: [String] = [])
    /// An app server's topic-management call (IID or v1 `topicSubscriptions`, a
    /// profile's `topics:` step); the current token of each phone named in `phones`
    /// joins `order.tokens`. The only way a web app joins a topic. Its reply is each
    /// token's outcome.
    case topics(TopicOrder, phones: [String] = [])
    /// A test suite or a profile makes the service fail on purpose.
    case addFault(Fault)
    case clearFaults
    /// The UNIX time (milliseconds) is this now: the engine reads absolute times an
    /// app server sends (`apns-expiration`) on its own clock from here on. A shell
    /// that runs on the real clock says so when it starts; a replay keeps
    /// `WallClock`'s fixed default, so it replays the same every time.
    case setWallClock(unixMillis: Int64)
    /// The built-in echo app server on or off (`--no-echo` on a saved device).
    case setAppServerMode(AppServerMode)
    /// Production's per-device limits on or off (`--no-device-limits` on a saved device).
    case setDeviceLimits(Bool)
    /// How long a new connection may take to reach a session (a shell setting:
    /// shorter in tests).
    case setLoginTimeout(Millis)
    /// Back to the profile's start: the same tokens, nothing held, no topics, groups
    /// or faults; app-server connections ended.
    case reset
}

/// What happens to one phone: its user, its app and its SDK. Made by a door for the
/// phone it names (`Input.on(device:_:)`); the engine runs it on that phone alone.
/// Encoded as it was when these were `Input`s of their own, so journals read alike.
public enum PhoneCommand: Sendable, Equatable, Codable {
    case setNetwork(Network)
    case setDoze(Bool)
    case setAppState(AppState)
    case uninstall
    case reinstall
    /// The app uninstalled (if it is installed) and installed again on another
    /// platform or with another SDK: a new installation, new tokens, the platform's
    /// own callback names.
    case reinstallAs(platform: Platform, sdk: SDK)
    /// A new token for one sender, or for all when nil.
    case refreshToken(sender: String?)
    case addSender(SenderConfig)
    case removeSender(String)
    case send(UpstreamRequest)
    /// The user taps a tray notification.
    case tap(TapTarget)
    /// The app subscribes to a topic (the SDK's subscribeToTopic), for one sender or
    /// the default (first) one.
    case subscribe(topic: String, sender: String?)
    case unsubscribe(topic: String, sender: String?)
    /// A web app calls getToken for one sender, or for every one when nil: the cached
    /// token, a new one when it was deleted or is a week old, or a rejection without
    /// notification permission.
    /// A VAPID key other than the one the token was made with (nil: Firebase's
    /// default key) deletes that token and makes a new one.
    case getToken(sender: String?, vapidKey: String? = nil)
    /// A web app calls deleteToken: the token is gone, and app servers get NotRegistered.
    case deleteToken(sender: String?)
    /// The user answers the browser's notification prompt (or changes the site setting).
    case setPermission(NotificationPermission)
    /// The built-in app server sends Web Push to the browser's push subscription
    /// (boxed: a rare command does not make every command larger).
    indirect case webPush(WebPushStep)
}

extension PhoneCommand {
    /// The command's name in refusals: its step's key in a profile (a test holds the
    /// two together).
    public var stepName: String {
        switch self {
        case .setNetwork: "network"
        case .setDoze: "doze"
        case .setAppState: "state"
        case .uninstall: "uninstall"
        case .reinstall, .reinstallAs: "reinstall"
        case .refreshToken: "refresh_token"
        case .addSender: "add_sender"
        case .removeSender: "remove_sender"
        case .send: "send"
        case .tap: "tap"
        case .subscribe: "subscribe"
        case .unsubscribe: "unsubscribe"
        case .getToken: "get_token"
        case .deleteToken: "delete_token"
        case .setPermission: "permission"
        case .webPush: "web_push"
        }
    }
}

extension Input {
    /// The input's name in refusals: its step's key in a profile.
    public var stepName: String {
        switch self {
        case .on(_, let command): command.stepName
        case .addDevice: "add_device"
        case .push, .pushToUnknownPhone, .appServer(.received(_, .downstream)): "push"
        case .setService: "service"
        case .topics: "topics"
        case .group: "group"
        case .addFault: "fault"
        case .clearFaults: "clear_faults"
        case .drain: "drain"
        case .ackUpstream, .ackReceipt: "ack"
        default: "command"
        }
    }
}

/// Which tray notification a tap means.
public enum TapTarget: Sendable, Equatable, Codable {
    case last
    /// Counted from 1, oldest first.
    case index(Int)
    case id(String)
}
