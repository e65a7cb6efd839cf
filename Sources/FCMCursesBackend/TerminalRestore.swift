import CNCurses
import CTerminalSignals
import Foundation

/// Puts the terminal back as it was, whatever ends the program: quitting, Ctrl-C,
/// SIGINT, SIGTERM and SIGHUP (recorded, then handled by the main loop), or a crash
/// (restored in the handler, then the crash goes on as it would have).
enum TerminalRestore {
    static func install() {
        atexit { TerminalRestore.restore() }
        fcm_watch_termination_signals()
        for signalNumber in [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE] {
            signal(signalNumber) { number in
                TerminalRestore.restore()
                signal(number, SIG_DFL)
                raise(number)
            }
        }
    }

    /// Safe to call more than once.
    static func restore() {
        if isendwin() == false {
            _ = curs_set(1)
            endwin()
        }
    }
}
