import Foundation
import NIOCore
import NIOPosix
import NIOSSL

// Load on `fcm-device serve` over loopback: downstream and upstream messages per
// second on 1 and 10 connections, plain and TLS, and resident memory per idle
// connection.
// Usage: xmpp-load PATH/TO/fcm-device [downstream messages per run] [upstream messages per run]
//        xmpp-load PATH/TO/fcm-device soak [TOTAL] [XMPP CONNECTIONS] [HTTP CLIENTS]
//          (1,000,000 messages on 1,000 connections and 200 HTTP clients by default)
//        xmpp-load PATH/TO/fcm-device one [MESSAGES] [ROUNDS]
//          (downstream on one plain connection only, ROUNDS runs of MESSAGES on one
//          server: 100,000 and 5 by default)

let binary = CommandLine.arguments.dropFirst().first ?? "../.build/release/fcm-device"
if CommandLine.arguments.dropFirst(2).first == "soak" {
    let numbers = CommandLine.arguments.dropFirst(3).compactMap { Int($0) }
    try await soak(
        binary: binary, total: numbers.first ?? 1_000_000, xmppConnections: numbers.dropFirst().first ?? 1_000,
        httpClients: numbers.dropFirst(2).first ?? 200)
    exit(0)
}
let oneConnection = CommandLine.arguments.dropFirst(2).first == "one"
let messages =
    Int(CommandLine.arguments.dropFirst(oneConnection ? 3 : 2).first ?? "") ?? (oneConnection ? 100_000 : 200_000)
let upstreamMessages = Int(CommandLine.arguments.dropFirst(3).first ?? "20000") ?? 20_000
let serve = try ServeProcess(binary: binary)
defer { serve.stop() }
let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

func connect(port: Int, tls: NIOSSLContext?, client: some ChannelHandler & Sendable) async throws -> any Channel {
    try await ClientBootstrap(group: group)
        .channelOption(.socketOption(.tcp_nodelay), value: 1)
        .channelInitializer { channel in
            do {
                if let tls {
                    try channel.pipeline.syncOperations.addHandler(
                        try NIOSSLClientHandler(context: tls, serverHostname: "fcm.googleapis.com"))
                }
                try channel.pipeline.syncOperations.addHandler(client)
                return channel.eventLoop.makeSucceededVoidFuture()
            } catch {
                return channel.eventLoop.makeFailedFuture(error)
            }
        }
        .connect(host: "127.0.0.1", port: port).get()
}

func run(connections: Int, tls: Bool) async throws -> Double {
    var configuration = TLSConfiguration.makeClientConfiguration()
    configuration.trustRoots = .file(serve.certificate)
    let context = tls ? try NIOSSLContext(configuration: configuration) : nil
    let loop = group.next()
    let perConnection = messages / connections
    var pairs: [(any Channel, LoadClient)] = []
    for _ in 0..<connections {
        let client = LoadClient(
            sender: serve.sender, key: serve.key, token: serve.token, total: perConnection, window: 100, loop: loop)
        pairs.append((try await connect(port: tls ? serve.ccs : serve.ccsPlain, tls: context, client: client), client))
    }
    for (_, client) in pairs { try await client.ready.futureResult.get() }
    let clock = ContinuousClock()
    let started = clock.now
    for (channel, client) in pairs {
        try await channel.eventLoop.submit {
            client.start(try channel.pipeline.syncOperations.context(handler: client))
        }.get()
    }
    for (_, client) in pairs { try await client.finished.futureResult.get() }
    let elapsed = clock.now - started
    for (channel, _) in pairs { try? await channel.close() }
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return Double(perConnection * connections) / seconds
}

/// Measured on a server of its own: after the load runs, the allocator would hand the
/// connections memory those runs freed, and the growth would read as nothing.
func idleMemory(connections: Int) async throws -> Double {
    let serve = try ServeProcess(binary: binary)
    defer { serve.stop() }
    let before = serve.residentKiB()
    var channels: [any Channel] = []
    let loop = group.next()
    for _ in 0..<connections {
        let client = LoadClient(
            sender: serve.sender, key: serve.key, token: serve.token, total: 0, window: 1, loop: loop)
        channels.append(try await connect(port: serve.ccsPlain, tls: nil, client: client))
        try await client.ready.futureResult.get()
    }
    try await Task.sleep(for: .seconds(1))
    let after = serve.residentKiB()
    for channel in channels { try? await channel.close() }
    return Double(after - before) / Double(connections)
}

if CommandLine.arguments.dropFirst(2).first == "one" {
    let rounds = Int(CommandLine.arguments.dropFirst(4).first ?? "5") ?? 5
    var rates: [Int] = []
    for _ in 0..<rounds { rates.append(Int(try await run(connections: 1, tls: false))) }
    print(
        "downstream, 1 connection, plain, \(messages) messages a run: \(rates.map(String.init).joined(separator: ", ")) msg/s"
    )
    serve.stop()
    exit(0)
}
print("| run | messages/s |")
print("| --- | --- |")
for (connections, tls) in [(1, false), (10, false), (1, true), (10, true)] {
    let rate = try await run(connections: connections, tls: tls)
    print(
        "| downstream, \(connections) connection\(connections == 1 ? "" : "s"), \(tls ? "TLS" : "plain") | \(Int(rate)) |"
    )
}
/// The device sends `upstreamMessages` at once; `connections` app servers receive
/// and ack them (at most 100 unacknowledged per connection, the CCS rule).
func upstream(connections: Int, tls: Bool) async throws -> Double {
    let profile = try UpstreamProfile.write(
        count: upstreamMessages, at: 4, sender: "123456789012", key: "demo-server-key")
    let device = try ServeProcess(binary: binary, profile: profile)
    defer { device.stop() }
    var configuration = TLSConfiguration.makeClientConfiguration()
    configuration.trustRoots = .file(device.certificate)
    let context = tls ? try NIOSSLContext(configuration: configuration) : nil
    let tally = UpstreamTally(expected: upstreamMessages)
    var channels: [any Channel] = []
    for _ in 0..<connections {
        let negotiation = LoadClient(
            sender: device.sender, key: device.key, token: device.token, total: 0, window: 1, loop: group.next())
        let client = UpstreamClient(negotiation: negotiation, tally: tally)
        channels.append(try await connect(port: tls ? device.ccs : device.ccsPlain, tls: context, client: client))
        try await negotiation.ready.futureResult.get()
    }
    let finished = await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(returning: tally.done.wait(timeout: .now() + 120)) }
    }
    for channel in channels { try? await channel.close() }
    guard finished == .success else { throw LoadError.upstreamIncomplete }
    return tally.rate
}

enum LoadError: Error { case upstreamIncomplete }

for (connections, tls) in [(1, false), (10, false), (1, true), (10, true)] {
    let rate = try await upstream(connections: connections, tls: tls)
    print(
        "| upstream, \(connections) connection\(connections == 1 ? "" : "s"), \(tls ? "TLS" : "plain") | \(Int(rate)) |"
    )
}
let perConnection = try await idleMemory(connections: 1_000)
print("\nresident memory per idle authenticated connection (1,000 plain): \(Int(perConnection)) KiB")
try await group.shutdownGracefully()
