/// What a form is for.
public enum FormPurpose: String, Sendable {
    case compose = "Send upstream message"
    case addDevice = "Add a device"
    case push = "Push downstream message (as an app server)"
    case addSender = "Add sender"
    case saveProfile = "Save session as profile"
    case goToTime = "Go to a time of the profile"
    case reinstallAs = "Reinstall the app as another platform or SDK"
    case topic = "Subscribe to a topic, or unsubscribe (the app's subscribeToTopic)"

    /// Whether the form works on the phone the panes show (its queue, senders, app,
    /// topics; a push's default token is that phone's).
    var actsOnThePhoneShown: Bool {
        switch self {
        case .compose, .push, .addSender, .reinstallAs, .topic: true
        case .addDevice, .saveProfile, .goToTime: false
        }
    }
}

/// Which line of a form a field is: forms are read and refused by these names, and
/// the label a person sees is said once, here.
public enum FieldName: Sendable, Hashable {
    case sender, messageID, upstreamTTL, pushTTL, file, time
    case notificationTitle, notificationBody, collapseKey, priority
    case deliveryReceipt, contentAvailable, mutableContent, target, topicOrCondition
    case topic, change, platform, sdk, senderID, serverKey, project, name
    /// The key or the value of the data editor's pair `n` (from 1).
    case dataKey(Int), dataValue(Int)

    /// The field's label on the screen.
    public var label: String {
        switch self {
        case .sender: "sender"
        case .messageID: "message id"
        case .upstreamTTL: "ttl (90s, 2h, 3d)"
        case .pushTTL: "ttl (empty: 28d)"
        case .file: "file"
        case .time: "time"
        case .notificationTitle: "notification title"
        case .notificationBody: "notification body"
        case .collapseKey: "collapse key"
        case .priority: "priority"
        case .deliveryReceipt: "delivery receipt"
        case .contentAvailable: "content available"
        case .mutableContent: "mutable content"
        case .target: "target"
        case .topicOrCondition: "topic or condition"
        case .topic: "topic"
        case .change: "change"
        case .platform: "platform"
        case .sdk: "sdk"
        case .senderID: "sender id"
        case .serverKey: "server key"
        case .project: "project"
        case .name: "name"
        case .dataKey(let n): "data key \(n)"
        case .dataValue(let n): "data value \(n)"
        }
    }

    /// Part of the key/value data editor.
    var isData: Bool {
        switch self {
        case .dataKey, .dataValue: true
        default: false
        }
    }
}

/// One line of a form: free text, or a choice cycled with ←/→.
public struct FormField: Sendable, Equatable {
    public var name: FieldName
    public var value: String
    public var choices: [String]
    public var error: String?
    /// The value was given, not typed: the first key typed replaces it (as in any
    /// form whose field opens selected); editing keys keep it and edit it.
    public var prefilled: Bool

    public init(_ name: FieldName, _ value: String = "", choices: [String] = []) {
        self.name = name
        self.value = value
        self.choices = choices
        prefilled = !value.isEmpty && choices.isEmpty
    }

    /// What the screen shows beside it.
    public var label: String { name.label }
    /// Part of the key/value data editor.
    public var isData: Bool { name.isData }
}

/// A small form: ↑/↓ or Tab move, typing edits, ←/→ cycle choices, Ctrl-N adds a
/// data pair, Enter submits, Esc cancels. Errors are shown under their field.
public struct Form: Sendable, Equatable {
    public var purpose: FormPurpose
    public var fields: [FormField]
    public var focused = 0
    /// A problem with the form as a whole.
    public var error: String?

    public init(purpose: FormPurpose, fields: [FormField]) {
        self.purpose = purpose
        self.fields = fields
    }

    public enum Outcome: Sendable, Equatable { case editing, submit, cancel }

    public mutating func handle(_ key: Key) -> Outcome {
        switch key {
        case .escape: return .cancel
        case .enter: return .submit
        case .down, .tab: focused = (focused + 1) % fields.count
        case .up, .backTab: focused = (focused - 1 + fields.count) % fields.count
        case .left: cycle(-1)
        case .right: cycle(1)
        case .backspace, .delete:
            if fields[focused].choices.isEmpty, !fields[focused].value.isEmpty { fields[focused].value.removeLast() }
            fields[focused].prefilled = false
        case .control("n"):
            if fields.contains(where: \.isData) { addDataPair() }
        case .control("u"):
            if fields[focused].choices.isEmpty { fields[focused].value = "" }
            fields[focused].prefilled = false
        case .character(let c):
            if fields[focused].prefilled { fields[focused].value = "" }
            fields[focused].prefilled = false
            if fields[focused].choices.isEmpty, fields[focused].value.count < 4_096 { fields[focused].value.append(c) }
        default: break
        }
        fields[focused].error = nil
        return .editing
    }

    mutating func cycle(_ step: Int) {
        let choices = fields[focused].choices
        guard !choices.isEmpty else { return }
        let index = choices.firstIndex(of: fields[focused].value) ?? 0
        fields[focused].value = choices[(index + step + choices.count) % choices.count]
    }

    public mutating func addDataPair() {
        let pairs = fields.filter(\.isData).count / 2
        let insertAt = (fields.lastIndex(where: \.isData) ?? fields.count - 1) + 1
        fields.insert(FormField(.dataKey(pairs + 1)), at: insertAt)
        fields.insert(FormField(.dataValue(pairs + 1)), at: insertAt + 1)
        focused = insertAt
    }

    public func value(_ name: FieldName) -> String {
        fields.first { $0.name == name }?.value ?? ""
    }

    public mutating func fail(_ name: FieldName, _ message: String) {
        if let index = fields.firstIndex(where: { $0.name == name }) {
            if !hasErrors { focused = index }
            fields[index].error = message
        } else {
            error = message
        }
    }

    public var hasErrors: Bool { error != nil || fields.contains { $0.error != nil } }

    /// The data pairs typed so far; a value without a key is an error on that key.
    public mutating func dataPairs() -> [(key: String, value: String)] {
        var pairs: [(String, String)] = []
        let data = fields.indices.filter { fields[$0].isData }
        for start in stride(from: 0, to: data.count - 1, by: 2) {
            let key = fields[data[start]].value
            let value = fields[data[start + 1]].value
            if key.isEmpty && value.isEmpty { continue }
            if key.isEmpty {
                fields[data[start]].error = "a value needs a key"
                continue
            }
            pairs.append((key, value))
        }
        return pairs
    }
}
