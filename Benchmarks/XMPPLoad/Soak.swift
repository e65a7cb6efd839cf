import Foundation
import NIOCore
import NIOPosix

/// Many app servers at once on one `serve`: `xmppConnections` CCS connections and
/// `httpClients` HTTP clients, `total` downstream messages in all (60% over XMPP),
/// with the server's resident memory and state size sampled as it goes.
func soak(binary: String, total: Int, xmppConnections: Int, httpClients: Int) async throws {
    let serve = try ServeProcess(binary: binary)
    defer { serve.stop() }
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let perXMPP = total * 6 / 10 / xmppConnections
    let perHTTP = (total - perXMPP * xmppConnections) / httpClients
    print("soak: \(xmppConnections) XMPP connections x \(perXMPP) + \(httpClients) HTTP clients x \(perHTTP) messages")
    var xmpp: [(any Channel, LoadClient)] = []
    for _ in 0..<xmppConnections {
        let client = LoadClient(
            sender: serve.sender, key: serve.key, token: serve.token, total: perXMPP, window: 10, loop: group.next())
        let channel = try await ClientBootstrap(group: group).channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(client) }
        }.connect(host: "127.0.0.1", port: serve.ccsPlain).get()
        xmpp.append((channel, client))
    }
    for (_, client) in xmpp { try await client.ready.futureResult.get() }
    print("soak: \(xmppConnections) XMPP connections authenticated; resident \(serve.residentKiB() / 1_024) MiB")
    let clock = ContinuousClock()
    let started = clock.now
    for (channel, client) in xmpp {
        try await channel.eventLoop.submit {
            client.start(try channel.pipeline.syncOperations.context(handler: client))
        }.get()
    }
    var http: [(any Channel, HTTPLoadClient)] = []
    for _ in 0..<httpClients {
        let client = HTTPLoadClient(token: serve.token, key: serve.key, total: perHTTP, loop: group.next())
        let channel = try await ClientBootstrap(group: group).channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(client) }
        }.connect(host: "127.0.0.1", port: serve.http).get()
        http.append((channel, client))
    }
    let xmppClients = xmpp.map(\.1)
    let httpLoad = http.map(\.1)
    let sampler = Task {
        print("| seconds | messages acknowledged | resident MiB | state folder MiB |")
        print("| --- | --- | --- | --- |")
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(5))
            let done = try await group.next().submit {
                xmppClients.reduce(0) { $0 + $1.acked } + httpLoad.reduce(0) { $0 + $1.succeeded }
            }.get()
            let elapsed = (clock.now - started).components.seconds
            print("| \(elapsed) | \(done) | \(serve.residentKiB() / 1_024) | \(serve.stateKiB() / 1_024) |")
        }
    }
    for (_, client) in xmpp { try await client.finished.futureResult.get() }
    for (_, client) in http { try await client.finished.futureResult.get() }
    sampler.cancel()
    let elapsed = clock.now - started
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let acked = xmpp.reduce(0) { $0 + min($1.1.acked, perXMPP) }
    let succeeded = http.reduce(0) { $0 + $1.1.succeeded }
    print(
        "soak: \(acked) CCS acks and \(succeeded) HTTP 200s in \(Int(seconds)) s "
            + "(\(Int(Double(acked + succeeded) / seconds)) msg/s); resident \(serve.residentKiB() / 1_024) MiB, "
            + "state \(serve.stateKiB() / 1_024) MiB at the end")
    for (channel, _) in xmpp { try? await channel.close() }
    for (channel, _) in http { try? await channel.close() }
    try await group.shutdownGracefully()
}
