import FCMJSON

/// Downstream acceptance: the connection server's validation, then delivery now,
/// storage for later, or discarding.
extension DeviceEngine {
    /// Validates and takes a downstream message; the id on success (the app
    /// server's own, or one generated like `0:…%…`). The one rule every way in
    /// shares: a profile's or the TUI's `push`, a message on an app server's CCS
    /// connection, the HTTP APIs' `send(_:into:)`.
    @discardableResult
    mutating func admit(
        _ checked: DownstreamRequest, fanOutShapedBy overrides: PlatformOverrides? = nil, into out: inout [Event]
    ) -> Result<String, DownstreamError> {
        let id = checked.messageID ?? (checked.isTopicSend ? nextTopicMessageID() : nextMessageID())
        // One check after another, not `??`: its closures would capture a copy of the engine.
        var refusal = validate(checked)
        if refusal == nil { refusal = rateProblem(checked) }
        if refusal == nil { refusal = server.injectedError(for: checked, stamp, into: &out) }
        if let problem = refusal {
            // A token's refusal names the phone the token was issued on, if any.
            var fields: [Field] = [
                .text("sender", checked.sender), .text("id", id), .text("error", problem.legacyName),
                .text("ccs", problem.ccsCode),
                .text("detail", problem.detail + (checked.details?.readNote.map { " (\($0))" } ?? "")),
            ]
            if let origin = arriving {
                // A group's member copies name no token the app server sent to.
                if !checked.isTopicSend, !origin.toGroup, let token = checked.to {
                    fields.append(.text("token", token))
                }
                origin.append(to: &fields)
                fields.append(.text("handling", problem.handling.rawValue))
                if let wait = problem.retryAfter(on: origin.api) { fields.append(.number("retry_after", wait)) }
            }
            let holder = checked.isTopicSend ? nil : candidate(holding: checked.to ?? "")
            emit(.server, .downstreamRejected, fields, on: holder, into: &out)
            return .failure(problem)
        }
        var request = checked
        request.dropServiceData()
        let ttl = request.timeToLiveOrDefault
        guard request.isTopicSend else {
            // Validation took only a token some phone holds.
            guard let p = candidate(holding: request.to ?? "") else {
                return .failure(.invalidRegistration(request.to ?? ""))
            }
            // Made in the call and handed on, not copied: the message goes on to the
            // phone's store or its app as it is.
            acceptForToken(StoredMessage(id: id, request: request, acceptedAt: now, timeToLive: ttl), on: p, into: &out)
            return .success(id)
        }
        var message = StoredMessage(id: id, request: request, acceptedAt: now, timeToLive: ttl)
        var subscribers = subscribers(of: request)
        // A copy restricted to a package reaches only the apps of that package (the
        // restriction may come with one platform's block only).
        let subscribed = subscribers.count
        if request.details?.restrictedPackageName != nil
            || overrides?.android?.details?.restrictedPackageName != nil
        {
            subscribers.removeAll { index in
                let copy = overrides.map { shaped(request, by: $0, forPhoneAt: index) } ?? request
                return !takesPackage(of: copy, phoneAt: index)
            }
        }
        var fields: [Field] = [.text("sender", request.sender), .text("id", id)]
        if let topic = request.topic { fields.append(.text("topic", topic)) }
        if let condition = request.condition { fields.append(.text("condition", condition)) }
        fields.append(.number("subscribers", subscribers.count))
        if subscribed > subscribers.count { fields.append(.number("other_package", subscribed - subscribers.count)) }
        acceptedFields(request, ttl: ttl, into: &fields)
        emit(.server, .downstreamAccepted, fields, on: nil, into: &out)
        guard !request.dryRun else { return .success(id) }
        message.request.condition = nil
        message.from = request.topic.map { TopicName.prefix + $0 }
        // The first batch goes out now; a bigger topic's rest follows in batches, each
        // an input of its own, after the answer (`TopicFanOut`).
        var fanOut = TopicFanOut(message: message, overrides: overrides, phones: subscribers)
        sendBatch(of: &fanOut, into: &out)
        if !fanOut.isDone { server.fanOuts.append(fanOut) }
        return .success(id)
    }

    /// An HTTP v1 message with platform blocks: a message for one token is shaped
    /// for the phone that holds it before it is checked (a token no phone holds takes
    /// no block); a topic's or condition's copies are shaped phone by phone as they
    /// are routed.
    mutating func admit(_ request: DownstreamRequest, overrides: PlatformOverrides, into out: inout [Event])
        -> Result<String, DownstreamError>
    {
        guard request.isTopicSend else {
            let phone = candidate(holding: request.to ?? "")
            return admit(phone.map { shaped(request, by: overrides, forPhoneAt: $0) } ?? request, into: &out)
        }
        // A topic's copies are shaped later, phone by phone; each block is checked now
        // as its platform's copies would be, so a bad block refuses the whole message
        // as it does a message to one token.
        for platform in Platform.allCases where overrides.block(for: platform) != nil {
            let copy = request.shaped(by: overrides, for: platform, wallClock: wallClock, at: now)
            if validate(copy) != nil { return admit(copy, into: &out) }
        }
        return admit(request, fanOutShapedBy: overrides, into: &out)
    }

    /// A v1 message as the phone at `index` gets it: the block of its platform
    /// applied (`android` or `apns`), expirations read on the engine's wall clock.
    func shaped(_ request: DownstreamRequest, by overrides: PlatformOverrides, forPhoneAt index: Int)
        -> DownstreamRequest
    {
        request.shaped(by: overrides, for: phone(index) { $0.platform }, wallClock: wallClock, at: now)
    }

    /// A message for one token, taken: the event, then delivery or storage.
    mutating func acceptForToken(_ message: consuming StoredMessage, on p: Int, into out: inout [Event]) {
        let request = message.request
        var fields: [Field] = []
        // Room for an app server's send: its own fields, the wire's (api, request,
        // connection or HTTP stamps, bearer) and the platform's.
        // And one for the phone's name, in a fleet.
        fields.reserveCapacity((arriving == nil ? 7 : 16) + (devices.count > 1 ? 1 : 0))
        fields.append(.text("sender", request.sender))
        fields.append(.text("id", message.id))
        fields.append(.text("token", request.to ?? ""))
        acceptedFields(request, ttl: message.timeToLive, into: &fields)
        // The report card counts an app server's sends to each Android phone.
        if let arriving, !arriving.toGroup, self[p].installed {
            let platform = self[p].platform
            fields.append(.text("platform", platform.rawValue))
            // Whether an iPhone's message has an alert (the report card's APNs priority rule).
            if platform == .ios { fields.append(.flag("notification", request.notification != nil)) }
        }
        emit(.server, .downstreamAccepted, fields, on: p, into: &out)
        countTowardRate(request, on: p)
        if !request.dryRun { route(message, on: p, into: &out) }
    }

    /// Inlined: a call would copy the whole engine to pass it.
    @inline(__always) func acceptedFields(_ request: DownstreamRequest, ttl: Int64, into fields: inout [Field]) {
        fields.append(.text("priority", request.effectivePriority.rawValue))
        fields.append(.number("ttl", ttl))
        if let key = request.collapseKey { fields.append(.text("collapse_key", key)) }
        if request.dryRun { fields.append(.flag("dry_run", true)) }
        arriving?.append(to: &fields)
    }

    func validate(_ request: DownstreamRequest) -> DownstreamError? {
        guard server.serviceUp else { return .unavailable }
        let isTopicSend = request.isTopicSend
        if !isTopicSend {
            guard let token = request.to, !token.isEmpty else { return .missingRegistration }
        }
        if let priority = request.priority, Priority(rawValue: priority) == nil {
            return .invalidParameters("priority must be \"high\" or \"normal\", not \"\(priority)\"")
        }
        if let problem = isTopicSend ? topicTargetProblem(request) : tokenProblem(request) { return problem }
        if let key = request.data.first(where: { ServiceLimits.isReservedDataKey($0.key) })?.key {
            return .invalidDataKey(key)
        }
        if let ttl = request.timeToLive, !ServiceLimits.isValidTimeToLive(ttl) { return .invalidTtl(ttl) }
        let size = ServiceLimits.payloadSize(request.data) + ServiceLimits.payloadSize(request.notification ?? [])
        let limit = isTopicSend ? ServiceLimits.maxTopicPayloadBytes : ServiceLimits.maxPayloadBytes
        if size > limit {
            let platform = isTopicSend ? nil : candidate(holding: request.to ?? "").map { phone($0) { $0.platform } }
            return .messageTooBig(size, limit: limit, platform: platform)
        }
        return nil
    }

    /// A message for one token: the token must be the sender's, and still valid.
    func tokenProblem(_ request: DownstreamRequest) -> DownstreamError? {
        let token = request.to ?? ""
        // The phone is found once: every question below is asked of it.
        guard let p = candidate(holding: token) else { return .invalidRegistration(token) }
        if let owner = activeOwner(of: token, onPhoneAt: p) {
            if owner != request.sender { return .mismatchSenderID(token) }
        } else if let owner = everOwner(of: token, onPhoneAt: p) {
            return owner == request.sender ? .notRegistered(token) : .mismatchSenderID(token)
        } else {
            return .invalidRegistration(token)
        }
        if tokenExpired(token, phoneAt: p) { return .tokenExpired(token) }
        // A package name is Android's: an iPhone or a browser ignores it (and says so).
        if let restricted = request.details?.restrictedPackageName, phone(p, { $0.platform }) == .android {
            let app = phone(p) { $0.settings.app }
            if app != restricted { return .invalidPackageName(restricted: restricted, app: app) }
        }
        return nil
    }

    /// Whether the phone at `index` takes a copy restricted to a package: only an
    /// Android app of that package does; other platforms ignore the restriction.
    func takesPackage(of request: DownstreamRequest, phoneAt index: Int) -> Bool {
        guard let restricted = request.details?.restrictedPackageName, phone(index, { $0.platform }) == .android
        else { return true }
        return phone(index) { $0.settings.app } == restricted
    }

    /// A message for a topic or a condition: one of them, readable.
    func topicTargetProblem(_ request: DownstreamRequest) -> DownstreamError? {
        if let condition = request.condition {
            if let to = request.to, !to.isEmpty {
                return .invalidParameters("give either to or condition, not both")
            }
            if case .failure(let error) = TopicCondition.parse(condition) { return .invalidTopic(error.description) }
            return nil
        }
        if let problem = TopicName.problem(request.topic ?? "") { return .invalidTopic(problem) }
        return nil
    }

    /// The phones a topic or condition message is for, in the order the phones were
    /// made: subscribed, installed, and with a token that has not expired. A topic's are
    /// read from `topicIndex`; a condition is tried on every phone.
    func subscribers(of request: DownstreamRequest) -> [Int] {
        let sender = request.sender
        guard let condition = request.condition else {
            guard let topic = request.topic, let phones = server.topicIndex.subscribers(of: topic, sender: sender)
            else {
                return []
            }
            var found = phones.phones
            found.removeAll { !takesTopicCopies(phoneAt: $0, sender: sender) }
            return found
        }
        guard case .success(let parsed) = TopicCondition.parse(condition) else { return [] }
        var found: [Int] = []
        // One pass over the phones where they lie: each phone's fields are read through
        // the buffer's addressor, not copied out of the array.
        devices.withUnsafeBufferPointer { buffer in
            guard let phones = buffer.baseAddress else { return }
            for index in 0..<buffer.count {
                guard let subscribed = phones[index].topics[sender], parsed.matches(subscribed) else { continue }
                found.append(index)
            }
        }
        found.removeAll { !takesTopicCopies(phoneAt: $0, sender: sender) }
        return found
    }

    /// Whether a phone subscribed for `sender` takes a topic's copy: installed, with a
    /// token that has not expired.
    func takesTopicCopies(phoneAt index: Int, sender: String) -> Bool {
        phone(index, { $0.installed }) && !tokenExpired(phone(index) { $0.tokens }[sender], phoneAt: index)
    }

    /// A topic message's id, as the legacy API answers it: a number.
    mutating func nextTopicMessageID() -> String {
        server.messageCounter += 1
        var rng = SeededGenerator(seed: configuration.device.seed ^ (server.messageCounter &* 0x9E37_79B9))
        return String(rng.next() >> 1)
    }

    mutating func nextMessageID() -> String {
        server.messageCounter += 1
        var rng = SeededGenerator(seed: configuration.device.seed ^ (server.messageCounter &* 0x9E37_79B9))
        let stamp = (1_700_000_000_000 + now) * 1_000 + Int64(server.messageCounter % 1_000)
        // `0:STAMP%HEX16`, written as bytes: every downstream message takes one.
        var bytes: [UInt8] = [UInt8(ascii: "0"), UInt8(ascii: ":")]
        bytes.reserveCapacity(40)
        JSONText.appendInt(stamp, to: &bytes)
        bytes.append(UInt8(ascii: "%"))
        let random = rng.next()
        for shift in stride(from: 60, through: 0, by: -4) {
            let nibble = UInt8((random >> UInt64(shift)) & 0xF)
            bytes.append(nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The message is taken (`consuming`): stored, it is moved into the store.
    mutating func route(_ message: consuming StoredMessage, on p: Int, into out: inout [Event]) {
        if !connected(p), let since = self[p].unreachableSince, now - since > ServiceLimits.inactivityLimit {
            self[p].lastInactiveDropAt = now
            self[p].deletedCount += 1
            emit(
                .server, .discarded,
                [
                    .text("id", message.id), .text("reason", "inactive"),
                    .text("detail", "the device has not connected for over a month"),
                ], on: p, into: &out)
        } else if let reason = holdReason(message.request, on: p) {
            if message.timeToLive == 0 {
                emit(
                    .server, .discarded,
                    [
                        .text("id", message.id), .text("reason", "ttl-zero"),
                        .text("detail", "time to live 0 and the device cannot take it now (\(reason))"),
                    ], on: p, into: &out)
            } else {
                store(message, reason: reason, on: p, into: &out)
            }
        } else {
            deliver(message, on: p, into: &out)
        }
    }

    /// Why a message cannot be handed to the phone at `p` now (`Phone.holdReason`), or
    /// nil when it can.
    mutating func holdReason(_ request: DownstreamRequest, on p: Int) -> String? {
        self[p].holdReason(request, serviceUp: server.serviceUp, limitsOn: deviceLimitsOn, at: now)
    }

    mutating func store(_ message: consuming StoredMessage, reason: String, on p: Int, into out: inout [Event]) {
        let app = self[p].settings.app
        if let key = Phone.collapseSlot(message.request, app: app) {
            if let index = self[p].stored.firstIndex(where: { Phone.collapses($0, with: message, key: key, app: app) })
            {
                let old = self[p].stored.remove(at: index)
                emit(
                    .server, .collapsed,
                    [.text("id", old.id), .text("by", message.id), .text("collapse_key", key)], on: p, into: &out)
            } else if self[p].storedCollapseSlots() >= configuration.store.collapseKeyLimit {
                let victimIndex: Int? =
                    configuration.store.eviction == .oldest
                    ? self[p].stored.firstIndex { Phone.collapseSlot($0.request, app: app) != nil } : nil
                let victim = victimIndex.map { self[p].stored.remove(at: $0) }
                emit(
                    .server, .discarded,
                    [
                        .text("id", victim?.id ?? message.id), .text("reason", "collapse-key-limit"),
                        .text("collapse_key", Phone.collapseSlot(victim?.request ?? message.request, app: app) ?? ""),
                    ], on: p, into: &out)
                if victimIndex == nil { return }
            }
        } else if self[p].stored.count(where: { Phone.collapseSlot($0.request, app: app) == nil })
            >= configuration.store.nonCollapsibleLimit
        {
            let ids = self[p].stored.map(\.id) + [message.id]
            self[p].stored.removeAll()
            self[p].deletedCount += ids.count
            emit(
                .server, .discarded,
                [.text("reason", "store-limit"), .number("count", ids.count), Field("ids", .list(ids))],
                on: p, into: &out)
            return
        }
        let id = message.id
        self[p].stored.append(message)
        emit(
            .server, .stored, [.text("id", id), .text("reason", reason), .number("stored", self[p].stored.count)],
            on: p, into: &out)
    }

}
