/// Time passing: batch windows close, TTLs run out, the server retries upstream.
extension DeviceEngine {
    /// The earliest moment something will happen by itself, if anything will.
    /// Inlined: the engine's own calls (before and after every input) would copy the
    /// whole engine to pass it to a call.
    @inline(__always) public var nextDeadline: Millis? {
        var earliest: Millis?
        func consider(_ time: Millis) {
            if earliest.map({ time < $0 }) ?? true { earliest = time }
        }
        if let phone = phoneDeadlines.earliest { consider(phone) }
        if let held = server.awaitingDeadlines.earliest { consider(held) }
        if let link = server.links.timers.earliest { consider(link) }
        if !server.webPush.held.isEmpty, let held = server.webPush.earliestExpiry { consider(held) }
        if !server.mcsLoginDeadlines.isEmpty, let login = server.mcsLoginDeadlines.values.min() { consider(login) }
        return earliest
    }

    /// Lets time pass up to `time`, firing every timer due on the way in order.
    mutating func advance(to time: Millis, into out: inout [Event]) {
        runTimers(to: time, into: &out)
    }

    mutating func runTimers(to time: Millis, into out: inout [Event]) {
        while let deadline = nextDeadline, deadline <= time {
            now = max(now, deadline)
            fireTimers(into: &out)
        }
        now = max(now, time)
    }

    mutating func fireTimers(into out: inout [Event]) {
        // The phones' queues first, then the connection server's own timers, then
        // the phones' stores and batch windows.
        let phonesDue = phoneDeadlines.due(by: now).sorted()
        for p in phonesDue { expireQueue(on: p, into: &out) }
        if let due = server.links.timers.earliest, due <= now {
            fireLinkTimers(into: &out)
        }
        if let held = server.awaitingDeadlines.earliest, held <= now {
            retryUpstream(into: &out)
        }
        if !server.webPush.held.isEmpty, let due = server.webPush.earliestExpiry, due <= now {
            expireWebPush(into: &out)
        }
        if !server.mcsLoginDeadlines.isEmpty, let due = server.mcsLoginDeadlines.values.min(), due <= now {
            closeSilentMCSConnections(into: &out)
        }
        for index in phonesDue {
            expireStoreAndFlush(on: index, into: &out)
            // Read again from the phone itself, so that a due entry can never stay
            // behind and bring the clock back here for ever.
            noteDeadline(of: index)
        }
    }

    /// The phone at `p`: messages whose time to live ran out in its queue.
    mutating func expireQueue(on p: Int, into out: inout [Event]) {
        if self[p].pending.contains(where: { $0.expiresAt <= now }) {
            for message in self[p].pending where message.expiresAt <= now {
                sendFailure(
                    id: message.id, error: "SERVICE_NOT_AVAILABLE",
                    detail: "time to live ran out before the service could be reached", on: p, into: &out)
            }
            let time = now
            self[p].pending.removeAll { $0.expiresAt <= time }
        }
    }

    /// The phone at `p`: stored messages past their time to live; its batch window.
    mutating func expireStoreAndFlush(on p: Int, into out: inout [Event]) {
        if self[p].stored.contains(where: { $0.expiresAt <= now }) {
            for message in self[p].stored where message.expiresAt <= now {
                emit(
                    .server, .expired, [.text("id", message.id), .text("sender", message.request.sender)], on: p,
                    into: &out)
            }
            let time = now
            self[p].stored.removeAll { $0.expiresAt <= time }
        }
        if let open = self[p].batch, open.flushAt <= now {
            flushBatch(on: p, into: &out)
        }
        // The collapsible budget grew: what throttling held may go now.
        if let wake = self[p].policy.throttleWake(self[p].stored), wake <= now {
            self[p].policy.refill(at: now)
            deliverWaiting(on: p, into: &out)
        }
    }

    mutating func retryUpstream(into out: inout [Event]) {
        var kept: [HeldUpstream] = []
        for var held in server.awaitingAck {
            let message = held.message
            if message.expiresAt <= now {
                emit(
                    .server, .expired,
                    [
                        .text("id", message.id), .text("sender", message.sender),
                        .text("detail", "the app server never acknowledged it"),
                    ], on: nil, into: &out)
                server.releaseCarrier(held.heapKey)
                continue
            }
            if held.nextRetryAt <= now {
                held.attempts += 1
                held.retryDelay = min(held.retryDelay * 2, ServiceLimits.maxRetryDelay)
                held.nextRetryAt = now + held.retryDelay
                emit(
                    .server, .upstreamRetry,
                    [.text("id", message.id), .text("sender", message.sender), .number("attempt", held.attempts)],
                    on: nil, into: &out)
                retryOnLinks(message, into: &out)
            }
            kept.append(held)
        }
        server.awaitingAck = HeldUpstreams(kept)
        server.awaitingDeadlines.rebuild(kept.map { ($0.heapKey, $0.deadline) })
        server.links.pruneWaiting()
        // Retries and expiries freed room on connections: what waits goes out.
        for sender in server.links.bySender.keys.sorted() { fillWindows(of: sender, into: &out) }
    }
}
