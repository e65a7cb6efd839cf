import FCMDoor
import FCMEngine
import FCMProfiles

/// Play mode: keys that play, pause, step and seek the profile's timeline; the
/// virtual clock; and the fork that makes the session the user's own.
extension TUIModel {
    /// Handles a play-mode key; nil when the key is not one (the live keys then act,
    /// and acting forks the session).
    mutating func handlePlayKey(_ key: Key) -> [Effect]? {
        guard var state = play, let action = KeyTable.playAction(for: key) else { return nil }
        switch action {
        case .playPause:
            if state.playback.finished {
                say("the profile has ended: Home plays it again, ← steps back")
                state.playing = false
            } else {
                state.playing.toggle()
                state.waited = 0
            }
        case .stepForward:
            state.playing = false
            state.playback.stepForward()
        case .stepBack:
            state.playing = false
            state.playback.stepBack()
        case .faster:
            state.speed = state.speed.faster()
        case .slower:
            state.speed = state.speed.slower()
        case .restart:
            state.playing = false
            state.playback.restart()
        case .toEnd:
            // Every step, at once: where the summary says how the profile fared.
            state.playing = false
            if let last = state.playback.steps.last { state.playback.go(to: max(last.at, state.playback.time)) }
        case .goToTime:
            state.playing = false
            let at = String(DurationText.stamp(state.playback.time).dropLast(4))
            overlay = .form(Form(purpose: .goToTime, fields: [FormField(.time, at)]))
        }
        play = state
        showPlayback()
        return []
    }

    /// Goes to a moment typed in the go-to form.
    mutating func goToTime(_ form: inout Form) {
        let text = form.value(.time)
        guard let target = DurationText.moment(text) else {
            return form.fail(.time, "a time such as +00:02:05, 2:05, 90s or 3d")
        }
        play?.playback.go(to: target)
        showPlayback()
        say("at \(DurationText.stamp(target).dropLast(4))")
    }

    /// The screen follows the playback: its engine and its events.
    mutating func showPlayback() {
        guard let playback = play?.playback else { return }
        // The panes follow the phone the step just played names, as its note speaks of it.
        if let name = playback.currentStep?.action.phoneName, playback.position != shownStep,
            playback.engine.deviceNumber(named: name) != nil
        {
            shownName = name
        }
        shownStep = playback.position
        see(DeviceView(playback.engine))
        log = playback.events
        appendedTotal = playback.events.count
        // The report card follows the playback: on by the new events, again from the
        // start after a step back.
        if card.eventCount > log.count { card = ReportCard() }
        for event in log[card.eventCount...] { card.observe(event) }
        eventScroll = min(eventScroll, max(0, log.count - 1))
        for pane in [Pane.senders, .queue, .tray] {
            selection[pane] = max(0, min(selected(pane), itemCount(pane) - 1))
        }
        // The inbox shows the newest message the playback has delivered.
        inboxSeen = shown.inbox.count
        selection[.inbox] = max(0, inboxSeen - 1)
    }

    /// Moves the virtual clock by the real time since the last tick: the playback
    /// at its speed, or, after a fork, the engine at the real pace.
    mutating func tickVirtual(now real: Millis) -> Bool {
        defer { lastTick = real }
        guard let last = lastTick, real > last else { return false }
        let elapsed = real - last
        if var state = play {
            guard state.playing else { return false }
            let before = (state.playback.position, state.playback.time / 1_000)
            if state.speed == .jump {
                state.waited += elapsed
                if state.waited >= PlaySpeed.jumpInterval {
                    state.waited = 0
                    state.playback.stepForward()
                }
            } else {
                state.playback.run(for: elapsed * Millis(state.speed.rawValue))
            }
            if state.playback.finished { state.playing = false }
            play = state
            showPlayback()
            return before != (state.playback.position, state.playback.time / 1_000)
        }
        // After a fork: the session the TUI runs moves on at the real pace.
        guard let door else { return false }
        let moved = door.tick(now: door.now + elapsed)
        return absorb(refresh: moved) || moved
    }

    /// The user acted while a profile played: the timeline stops here and the
    /// session is theirs (`w` saves the steps played so far and what they did).
    mutating func forkIfPlaying() {
        guard let state = play else { return }
        let playback = state.playback
        let point = ForkPoint(
            steps: Array(playback.steps.prefix(playback.position)), total: playback.steps.count, at: playback.time,
            speed: state.speed)
        // The played engine is handed to a session of its own: the TUI runs it no more.
        mode = .forked(SessionDoor.own(engine: playback.engine), point)
        say("forked at step \(playback.position)/\(playback.steps.count): yours now; w saves it, Home goes back")
    }

    /// Leaves a fork: the profile again from its start, paused.
    mutating func replayProfile() {
        var state = PlayState(profile: profile)
        state.speed = fork?.speed ?? play?.speed ?? .x10
        mode = .playing(state)
        lastTick = nil
        card = ReportCard()
        showPlayback()
        say("back to the profile at +0, paused (Space plays); what you did after the fork is gone")
    }

    /// The steps a saved session starts with: those played before the user acted.
    var playedSteps: [Step] {
        if let fork { return fork.steps }
        guard let playback = play?.playback else { return [] }
        return Array(playback.steps.prefix(playback.position))
    }
}
