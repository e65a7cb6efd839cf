// Termination signals for the TUI: the handler only records the signal, so the
// main loop can restore the terminal and exit on its own thread, never inside a
// signal handler that may have interrupted a write.
#ifndef FCM_TERMINAL_SIGNALS_H
#define FCM_TERMINAL_SIGNALS_H

/// Installs handlers for SIGINT, SIGTERM and SIGHUP (without SA_RESTART, so a
/// blocking read returns at once), and unblocks them and SIGWINCH.
void fcm_watch_termination_signals(void);

/// The signal that asked the program to end, or 0.
int fcm_termination_signal(void);

#endif
