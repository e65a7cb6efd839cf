#include "terminal_signals.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t received = 0;

static void record(int number) { received = number; }

void fcm_watch_termination_signals(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = record;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;
    sigaction(SIGINT, &action, 0);
    sigaction(SIGTERM, &action, 0);
    sigaction(SIGHUP, &action, 0);

    // A parent may have started us with these blocked; the TUI needs them.
    sigset_t wanted;
    sigemptyset(&wanted);
    sigaddset(&wanted, SIGINT);
    sigaddset(&wanted, SIGTERM);
    sigaddset(&wanted, SIGHUP);
    sigaddset(&wanted, SIGWINCH);
    sigprocmask(SIG_UNBLOCK, &wanted, 0);
}

int fcm_termination_signal(void) { return received; }
