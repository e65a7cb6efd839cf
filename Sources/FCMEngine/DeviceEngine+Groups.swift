/// Legacy device groups: create, add and remove members (at most 20), and messages to
/// a notification key, which reach every member by its own rules.
extension DeviceEngine {
    /// An app server's group call.
    /// A group call, its members named as tokens and as phones: each phone's current
    /// token for the sender; nil, the call refused by name, when a phone has none.
    mutating func changeGroup(_ order: GroupOrder, phones: [String], into out: inout [Event]) -> GroupOutcome? {
        var order = order
        guard let tokens = currentTokens(of: phones, sender: order.sender, for: "group", into: &out) else { return nil }
        order.tokens += tokens
        return changeGroup(order, into: &out)
    }

    /// The current token of `sender` on each phone named, for an app server's call
    /// (`step`) that names phones; nil, with the call refused by name, when a phone
    /// has none.
    mutating func currentTokens(of phones: [String], sender: String, for step: String, into out: inout [Event])
        -> [String]?
    {
        var tokens: [String] = []
        for name in phones {
            guard let index = deviceIndex[name], let token = phone(index, { $0.tokens })[sender] else {
                refuse(step, "device \(name) has no token of sender \(sender)", side: .server, on: nil, into: &out)
                return nil
            }
            tokens.append(token)
        }
        return tokens
    }

    mutating func changeGroup(_ order: GroupOrder, into out: inout [Event]) -> GroupOutcome {
        guard server.serviceUp else { return .serviceDown }
        let outcome = groupChange(order)
        switch outcome {
        case .key(let key):
            let members = server.groups.first { $0.key == key }?.members.count ?? 0
            emit(
                .server, .groupChanged,
                [
                    .text("sender", order.sender), .text("operation", order.operation.rawValue),
                    .text("name", order.name ?? server.groups.first { $0.key == key }?.name ?? ""),
                    .text("notification_key", key), .number("members", members),
                ], on: nil, into: &out)
        case .refused(let why):
            emit(
                .server, .groupRefused,
                [
                    .text("sender", order.sender), .text("operation", order.operation.rawValue),
                    .text("error", why),
                ], on: nil, into: &out)
        case .serviceDown: break
        }
        return outcome
    }

    /// The notification key of the sender's group of this name, if there is one.
    public func groupKey(sender: String, name: String) -> String? {
        server.groups.first { $0.sender == sender && $0.name == name }?.key
    }

    mutating func groupChange(_ order: GroupOrder) -> GroupOutcome {
        if order.tokens.isEmpty { return .refused("registration_ids is empty") }
        if let bad = order.tokens.first(where: { activeOwner(of: $0) != order.sender && order.operation != .remove }) {
            return .refused("\(TokenText.short(bad)) is not a valid registration token of sender \(order.sender)")
        }
        // An expired token joins no group (its app instance has been away 270 days).
        if order.operation != .remove, let expired = order.tokens.first(where: tokenHasExpired) {
            return .refused(
                "\(TokenText.short(expired)) expired: its app instance has not connected for "
                    + "\(DeviceLimits.tokenExpiryDays) days")
        }
        switch order.operation {
        case .create:
            guard let name = order.name, !name.isEmpty else { return .refused("notification_key_name is missing") }
            if groupKey(sender: order.sender, name: name) != nil { return .refused("notification_key already exists") }
            let members = unique(order.tokens)
            if members.count > DeviceGroup.maxMembers { return tooMany(members.count) }
            let key = nextGroupKey()
            server.groups.append(DeviceGroup(sender: order.sender, name: name, key: key, members: members))
            return .key(key)
        case .add, .remove:
            guard let index = groupIndex(order) else { return .refused("notification_key not found") }
            if let name = order.name, !name.isEmpty, server.groups[index].name != name {
                return .refused("notification_key_name does not match notification_key")
            }
            let key = server.groups[index].key
            if order.operation == .add {
                let members = unique(server.groups[index].members + order.tokens)
                if members.count > DeviceGroup.maxMembers { return tooMany(members.count) }
                server.groups[index].members = members
            } else {
                server.groups[index].members.removeAll { order.tokens.contains($0) }
                // The last member gone, the key is gone too.
                if server.groups[index].members.isEmpty { server.groups.remove(at: index) }
            }
            return .key(key)
        }
    }

    func groupIndex(_ order: GroupOrder) -> Int? {
        if let key = order.key, !key.isEmpty {
            return server.groups.firstIndex { $0.key == key && $0.sender == order.sender }
        }
        guard let name = order.name else { return nil }
        return server.groups.firstIndex { $0.name == name && $0.sender == order.sender }
    }

    func tooMany(_ count: Int) -> GroupOutcome {
        .refused("a device group has at most \(DeviceGroup.maxMembers) members; this would make \(count)")
    }

    func unique(_ tokens: [String]) -> [String] {
        var seen = Set<String>()
        return tokens.filter { seen.insert($0).inserted }
    }

    /// A notification key: `APA91b` and 134 characters, like a GCM token (never a `:`).
    mutating func nextGroupKey() -> String {
        server.messageCounter += 1
        var rng = SeededGenerator(
            seed: configuration.device.seed ^ 0x6A09_E667 ^ (server.messageCounter &* 0x9E37_79B9))
        return "APA91b" + TokenFactory.randomString(length: TokenFactory.gcmLength - 6, using: &rng)
    }

    /// A message to a notification key: a copy to every member; the members that
    /// could not take it are named.
    mutating func sendToGroup(
        _ group: DeviceGroup, _ request: DownstreamRequest, overrides: PlatformOverrides? = nil,
        into out: inout [Event]
    ) -> GroupDelivery {
        var delivery = GroupDelivery(success: 0, failed: [])
        let origin = arriving
        arriving?.toGroup = true
        defer { arriving = origin }
        for member in group.members {
            var copy = request
            copy.to = member
            copy.messageID = nil
            let result =
                if let overrides { admit(copy, overrides: overrides, into: &out) } else { admit(copy, into: &out) }
            switch result {
            case .success: delivery.success += 1
            case .failure: delivery.failed.append(member)
            }
        }
        return delivery
    }
}
