import FCMEngine
import Foundation
import NIOCore
import NIOEmbedded
import Testing

@testable import FCMConnectionServer
@testable import FCMStore

/// The write-ahead gate between a connection and its socket, on a test channel, with
/// the journal's commits held and let go by hand.
@Suite("Write-ahead gate")
struct DurableFlushGateTests {
    let engine = DeviceEngine(WriteAheadTests.configuration)

    func openStore() throws -> DeviceStore {
        let folder = NSTemporaryDirectory() + "fcm-gate-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return try DeviceStore.open(
            path: folder + "/device.sqlite", configuration: WriteAheadTests.configuration, seedNamed: true
        ) { Issue.record("write failed: \($0)") }.0
    }

    @Test("what is on disk leaves, flushed, while a newer write and the flush asked for still wait for theirs")
    func onDiskLeavesFirst() async throws {
        let store = try openStore()
        defer { store.close(final: engine) }
        let channel = NIOAsyncTestingChannel()
        try await channel.testingEventLoop.executeInContext {
            try channel.pipeline.syncOperations.addHandler(
                DurableFlushGate(releases: DurableReleases(store: store)))
        }
        store.writer.pause()
        let first = store.append([.advance(to: 1)], engine: engine)
        try await channel.testingEventLoop.executeInContext { channel.write(ByteBuffer(string: "a"), promise: nil) }
        store.writer.resume()
        await store.durable(first)
        store.writer.pause()
        store.append([.advance(to: 2)], engine: engine)
        try await channel.testingEventLoop.executeInContext {
            channel.write(ByteBuffer(string: "b"), promise: nil)
            channel.flush()
        }
        await channel.testingEventLoop.run()
        #expect(try await channel.readOutbound(as: ByteBuffer.self) == ByteBuffer(string: "a"))
        #expect(try await channel.readOutbound(as: ByteBuffer.self) == nil, "a write left before its state was on disk")
        store.writer.resume()
        await store.durable(store.appendedSeq)
        await channel.testingEventLoop.run()
        #expect(try await channel.readOutbound(as: ByteBuffer.self) == ByteBuffer(string: "b"))
    }
}
