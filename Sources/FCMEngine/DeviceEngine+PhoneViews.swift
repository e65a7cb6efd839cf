/// What shells read of one phone. Every call names the phone (by its index in
/// `devices`); none reads a phone "in focus".
extension DeviceEngine {
    /// Whether any phone was ever given a token (the device has started).
    public var hasIssuedTokens: Bool { !tokenDevices.isEmpty }

    /// The phone with this name, or nil.
    public func phone(named name: String) -> Phone? {
        deviceIndex[name].map { devices[$0] }
    }

    /// A token the phone at `index` was given for `sender`: the latest (`back` 0), the
    /// one before it (1), and so on; nil when there were not so many. Read in place: a
    /// push step asks this for every message it plays.
    public func issuedToken(of sender: String, onPhoneAt index: Int, back: Int = 0) -> String? {
        // The maps are taken first and looked up outside: a lookup inside `phone`'s
        // closure makes the compiler copy the whole phone.
        let current = phone(index) { $0.tokens }
        let retired = phone(index) { $0.retiredTokens }
        var back = back
        if let token = current[sender] {
            if back == 0 { return token }
            back -= 1
        }
        guard back >= 0, let list = retired[sender], back < list.count else { return nil }
        return list[list.count - 1 - back]
    }

    /// Whether the phone at `index` can talk to the connection server now.
    public func isConnected(phoneAt index: Int) -> Bool { connected(index) }

    /// The messages the connection server holds for the phone at `index`, oldest
    /// first, each with why it is held.
    public func heldMessages(ofPhoneAt index: Int) -> [HeldMessage] { heldMessages(on: index) }

    /// The phone's store counted against its limits.
    public func storeUsage(ofPhoneAt index: Int) -> StoreUsage { storeUsage(on: index) }

    /// Whether the app on the phone at `index` already used this upstream message id
    /// (for any sender) since it was installed.
    public func hasUsedMessageID(_ id: String, onPhoneAt index: Int) -> Bool {
        hasUsedMessageID(id, on: index)
    }
}
