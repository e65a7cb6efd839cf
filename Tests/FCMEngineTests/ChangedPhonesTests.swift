import Foundation
import Testing

@testable import FCMEngine

@Suite("Which phones a call changed (what a store saves)")
struct ChangedPhonesTests {
    static func recordingFleet(_ count: Int) -> Fleet {
        var fleet = Fleet([DeviceSpec(DeviceSettings(name: "phone", seed: 8), count: count)])
        var events: [Event] = []
        fleet.engine = DeviceEngine(fleet.engine.configuration)
        fleet.engine.inputs.isOn = true
        fleet.engine.handle(.start(at: 0), into: &events)
        return fleet
    }

    @Test("a fleet's start changes no phone: it is made again from the configuration")
    func startForgetsChanges() {
        var fleet = Self.recordingFleet(30)
        #expect(fleet.engine.inputs.changedPhones.isEmpty)
        #expect(fleet.engine.devices.allSatisfy { !$0.tokens.isEmpty })
        // The journal up to the start makes the fleet as started: a store asks the input.
        #expect(fleet.engine.inputs.take().inputs.map(\.startsFleet) == [true])
        #expect(!JournalEntry.advance(to: 5).startsFleet && !JournalEntry.input(.reset, at: 5).startsFleet)
    }

    @Test("a door's call is kept at the engine's time when another door moved the clock on first")
    func aCallIsKeptAtTheEnginesTime() {
        var fleet = Self.recordingFleet(1)
        _ = fleet.engine.inputs.take()
        var events: [Event] = []
        // A clock moved on an hour, firing nothing (not kept), then a send stamped earlier.
        fleet.engine.handle(.advance(to: Span.hour), into: &events)
        let token = fleet.engine.devices[0].tokens.values.first
        fleet.engine.handle(
            .input(.send([SendOrder(DownstreamRequest(sender: Harness.sender, to: token))]), at: 5), into: &events)
        #expect(fleet.engine.inputs.take().inputs.map(\.time) == [Span.hour])
    }

    @Test("a call to one phone of many notes that phone alone; a topic notes its subscribers")
    func oneCallOnePhone() {
        var fleet = Self.recordingFleet(30)
        fleet.run(.setNetwork(.offline), on: "phone-12")
        let changed = fleet.engine.inputs.changedPhones.take()
        #expect(changed.map(\.index) == [11])
        #expect(changed.first?.fields.contains(.network) == true && changed.first?.fields.contains(.inbox) == false)
        fleet.run(.subscribe(topic: "news", sender: nil), on: "phone-3")
        fleet.run(.subscribe(topic: "news", sender: nil), on: "phone-20")
        _ = fleet.engine.inputs.changedPhones.take()
        fleet.push(to: nil, topic: "news")
        let reached = fleet.engine.inputs.changedPhones.take()
        #expect(reached.map(\.index).sorted() == [2, 19])
        #expect(reached.allSatisfy { $0.fields == .inbox }, "a data message in the foreground changes the inbox alone")
        fleet.push(to: fleet.token(of: "phone-30"))
        #expect(fleet.engine.inputs.changedPhones.take().map(\.index) == [29])
    }

    @Test("a phone joining is noted; a reset notes every phone (their tokens are issued anew)")
    func joinsAndResets() {
        var fleet = Self.recordingFleet(4)
        fleet.run(.addDevice(DeviceSpec(DeviceSettings(name: "tablet", seed: 1))))
        #expect(fleet.engine.inputs.changedPhones.take().map { [$0.index: $0.fields] } == [[4: .all]])
        fleet.run(.reset)
        #expect(fleet.engine.inputs.changedPhones.take().map(\.index).sorted() == [0, 1, 2, 3])
    }

    @Test("time passing with no timer due is not recorded, a stop is: the calls alone bring the clock back")
    func aStopRecordsTheClock() {
        var fleet = Self.recordingFleet(3)
        _ = fleet.engine.inputs.take()
        var events: [Event] = []
        fleet.engine.handle(.advance(to: 5_000), into: &events)
        #expect(fleet.engine.inputs.take().inputs.isEmpty)
        fleet.engine.handle(.stop(at: 9_000), into: &events)
        let recorded = fleet.engine.inputs.take().inputs
        #expect(recorded == [.advance(to: 9_000)])
        var replayed = DeviceEngine(fleet.engine.startConfiguration)
        replayed.handle(.start(at: 0), into: &events)
        for input in recorded { replayed.handle(input, into: &events) }
        #expect(replayed.now == 9_000)
    }

    @Test("nothing is noted while nothing records (a replay pays nothing for it)")
    func offRecordsNothing() {
        var fleet = Fleet([DeviceSpec(DeviceSettings(name: "phone", seed: 8), count: 5)])
        fleet.run(.setNetwork(.offline), on: "phone-2")
        #expect(fleet.engine.inputs.changedPhones.isEmpty)
    }
}
