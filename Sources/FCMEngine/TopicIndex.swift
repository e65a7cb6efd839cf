/// The phones subscribed to each topic of each sender, kept as subscriptions change
/// (its one writer is `settle`, after a phone's `topics` changed, and the rebuilding of
/// the maps over phones), so a topic message finds its subscribers without reading
/// every phone of the fleet. Derived from the phones: never saved.
struct TopicIndex: Sendable {
    struct Key: Hashable, Sendable {
        var sender: String
        var topic: String
    }

    private var members: [Key: PhoneSet] = [:]

    /// The phones subscribed to `topic` for `sender`.
    func subscribers(of topic: String, sender: String) -> PhoneSet? {
        members[Key(sender: sender, topic: topic)]
    }

    /// Notes that the phone at `index` went from the subscriptions `old` to `new`.
    mutating func update(phone index: Int, from old: SenderMap<Set<String>>, to new: SenderMap<Set<String>>) {
        for (sender, topics) in old {
            let now = new[sender]
            for topic in topics where now?.contains(topic) != true {
                remove(index, from: Key(sender: sender, topic: topic))
            }
        }
        for (sender, topics) in new {
            let before = old[sender]
            for topic in topics where before?.contains(topic) != true {
                members[Key(sender: sender, topic: topic), default: PhoneSet()].insert(index)
            }
        }
    }

    /// Every phone's subscriptions, read afresh.
    /// Forgets every subscription (before the engine adds each phone's again).
    mutating func removeAll() {
        members.removeAll(keepingCapacity: true)
    }

    private mutating func remove(_ index: Int, from key: Key) {
        guard var phones = members.removeValue(forKey: key) else { return }
        phones.remove(index)
        if !phones.isEmpty { members[key] = phones }
    }
}
