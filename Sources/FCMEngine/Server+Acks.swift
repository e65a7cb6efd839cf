/// What the server does when an app server acknowledges: upstream it held, and a
/// delivery receipt it owed.
extension Server {
    /// An app server acknowledged an upstream message: it is no longer held or resent.
    mutating func ackUpstream(sender: String, id: String, _ stamp: EventStamp, into out: inout [Event]) {
        let key = MessageKey(sender: sender, id: id)
        guard awaitingAck.remove(key) != nil else {
            return stamp.emit(
                .server, .ackIgnored,
                [
                    .text("sender", sender), .text("id", id),
                    .text("detail", "no upstream message \(id) of sender \(sender) awaits an ack"),
                ], into: &out)
        }
        awaitingDeadlines.remove(key)
        releaseCarrier(key)
        stamp.emit(
            .server, .appServerAck, [.text("sender", sender), .text("id", id), .text("by", "app server")], into: &out)
    }

    /// An app server took a receipt: it is no longer owed.
    mutating func ackReceipt(sender: String, id: String, _ stamp: EventStamp, into out: inout [Event]) {
        guard let index = owedReceipts.firstIndex(where: { $0.sender == sender && $0.id == id }) else { return }
        owedReceipts.remove(at: index)
        for link in links.bySender[sender] ?? [] { links.byID[link]?.receiptsSent.remove(id) }
        stamp.emit(.server, .receiptAck, [.text("sender", sender), .text("id", id)], into: &out)
    }

    /// An upstream message no longer held (acknowledged or expired) leaves the
    /// window of the connection that carried it.
    mutating func releaseCarrier(_ key: MessageKey) {
        guard let carrierID = links.carrier.removeValue(forKey: key), var carrier = links.byID[carrierID] else {
            return
        }
        if let index = carrier.unacked.firstIndex(of: key.id) { carrier.unacked.remove(at: index) }
        links.byID[carrierID] = carrier
    }
}
