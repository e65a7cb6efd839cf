import FCMJSON

/// A topic or condition message on its way to its subscribers: the first batch of
/// copies (`StorePolicy.fanOutBatch`, 10,000 unless a profile says otherwise) goes with
/// the message, the rest in batches as big, so that a topic with a million subscribers
/// is answered when it is taken, and other requests are handled between its batches
/// (`JournalEntry.fanOut`).
/// Deterministic: the batches are inputs of their own, journaled and replayed where
/// they ran.
public struct TopicFanOut: Sendable, Equatable, Codable {
    /// The message as each copy starts (its `to` set per subscriber).
    var message: StoredMessage
    /// A v1 message's platform blocks, applied phone by phone.
    var overrides: PlatformOverrides?
    /// The subscribers as they were when the message was taken.
    var phones: [Int]
    /// Phones whose token changed since the message was taken (an uninstall, a
    /// refresh): that token is gone, and they get no copy.
    var tokenChanged: Set<Int> = []
    /// How many copies have gone out.
    var sent = 0

    init(message: StoredMessage, overrides: PlatformOverrides?, phones: [Int]) {
        self.message = message
        self.overrides = overrides
        self.phones = phones
    }

    enum CodingKeys: String, CodingKey {
        case message, overrides, phones, tokenChanged, sent
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        message = try c.decode(StoredMessage.self, forKey: .message)
        overrides = try c.decodeIfPresent(PlatformOverrides.self, forKey: .overrides)
        phones = try c.decode([Int].self, forKey: .phones)
        // A fan-out saved before this field named each copy's token instead; its phones
        // are taken as they are.
        tokenChanged = try c.decodeIfPresent(Set<Int>.self, forKey: .tokenChanged) ?? []
        sent = try c.decode(Int.self, forKey: .sent)
    }

    var isDone: Bool { sent >= phones.count }
}

/// A topic or condition message whose copies are still going out, as `state` shows a
/// saved device (a device stopped, or killed, between its batches sends the rest when
/// it runs again).
public struct PendingFanOut: Sendable, Equatable {
    public var id: String
    public var sender: String
    /// The topic, or nil for a condition's message.
    public var topic: String?
    public var sent: Int
    public var copies: Int
    /// The phones whose copies have not gone yet, by index.
    public var waiting: [Int]
}

extension DeviceEngine {
    /// The topic messages still going out, oldest first.
    public var pendingFanOuts: [PendingFanOut] {
        server.fanOuts.map { fanOut in
            PendingFanOut(
                id: fanOut.message.id, sender: fanOut.message.request.sender, topic: fanOut.message.request.topic,
                sent: fanOut.sent, copies: fanOut.phones.count,
                // As `sendBatch` reads them: a number past the fleet (a saved file
                // edited by hand) is no phone, and no copy goes to it.
                waiting: fanOut.phones[fanOut.sent...].filter { $0 < devices.count })
        }
    }

    /// The topic messages still going out as JSON, as `state --json` and the control
    /// API's `GET devices` list them under `fanOuts`: `{"id","sender","topic","sent",
    /// "copies","waiting":[phone names]}` (no `topic` for a condition's message).
    public var pendingFanOutsJSON: JSONValue {
        .array(
            pendingFanOuts.map { fanOut in
                var members: [(key: String, value: JSONValue)] = [
                    ("id", .string(fanOut.id)), ("sender", .string(fanOut.sender)),
                ]
                if let topic = fanOut.topic { members.append(("topic", .string(topic))) }
                members += [
                    ("sent", .int(fanOut.sent)), ("copies", .int(fanOut.copies)),
                    ("waiting", .strings(fanOut.waiting.map { index in phone(index) { $0.name } })),
                ]
                return .object(JSONObject(members))
            })
    }

    /// Whether a topic message still has copies to send (a shell hands the engine
    /// `JournalEntry.fanOut` until it has none).
    /// Inlinable: a shell asks it after every step, and a call across modules would
    /// copy the whole engine to pass it.
    @inlinable public var hasPendingFanOut: Bool { !server.fanOuts.isEmpty }

    /// Sends the next batch of the oldest topic message still going out.
    mutating func continueFanOut(into out: inout [Event]) {
        guard var fanOut = server.fanOuts.first else { return }
        sendBatch(of: &fanOut, into: &out)
        if fanOut.isDone {
            server.fanOuts.removeFirst()
        } else {
            // A token changed while the batch went (none does today: routing a copy
            // changes no token) is kept.
            fanOut.tokenChanged.formUnion(server.fanOuts[0].tokenChanged)
            server.fanOuts[0] = fanOut
        }
    }

    /// Notes the senders for which the phone at `index` has another token (or none)
    /// than `before`: their topic messages taken before get no copy to it.
    mutating func noteTokenChanges(ofPhoneAt index: Int, from before: SenderMap<String>) {
        let now = phone(index) { $0.tokens }
        for position in server.fanOuts.indices {
            let sender = server.fanOuts[position].message.request.sender
            if before[sender] != now[sender] { server.fanOuts[position].tokenChanged.insert(index) }
        }
    }

    /// Sends up to one batch of a topic message's copies. A phone whose token changed
    /// since the message was taken (an uninstall, a refresh) gets no copy: that token
    /// is gone.
    mutating func sendBatch(of fanOut: inout TopicFanOut, into out: inout [Event]) {
        // At least one copy a batch, whatever a saved file says: each batch moves on.
        let end = min(fanOut.phones.count, fanOut.sent + max(1, configuration.store.fanOutBatch))
        let sender = fanOut.message.request.sender
        var message = fanOut.message
        for position in fanOut.sent..<end {
            let index = fanOut.phones[position]
            guard index < devices.count, !fanOut.tokenChanged.contains(index),
                let token = phone(index, { $0.tokens })[sender]
            else { continue }
            message.request.to = token
            guard let overrides = fanOut.overrides else {
                route(message, on: index, into: &out)
                continue
            }
            var copy = message
            copy.request = shaped(message.request, by: overrides, forPhoneAt: index)
            copy.request.dropServiceData()
            copy.timeToLive = copy.request.timeToLiveOrDefault
            route(copy, on: index, into: &out)
        }
        fanOut.sent = end
    }
}
