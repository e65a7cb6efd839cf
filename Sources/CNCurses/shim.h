// The parts of ncursesw that fcm-device paints and reads keys with. ncurses offers
// attributes, colour pairs and its global windows as macros and variables that do
// not import into Swift, so small functions stand in for them.
#ifndef FCM_CNCURSES_SHIM_H
#define FCM_CNCURSES_SHIM_H

#define _XOPEN_SOURCE_EXTENDED 1
#define NCURSES_WIDECHAR 1
#include <locale.h>
#if defined(__APPLE__)
// Apple's SDK: <curses.h> is ncurses with the wide-character calls (under
// _XOPEN_SOURCE_EXTENDED); Homebrew's ncurses provides the same header.
#include <curses.h>
#else
#include <ncursesw/curses.h>
#endif

static inline WINDOW *fcm_stdscr(void) { return stdscr; }
static inline int fcm_lines(void) { return getmaxy(stdscr); }
static inline int fcm_cols(void) { return getmaxx(stdscr); }
static inline int fcm_color_pair(short n) { return (int)COLOR_PAIR(n); }
static inline int fcm_attr_bold(void) { return (int)A_BOLD; }
static inline int fcm_attr_dim(void) { return (int)A_DIM; }
static inline int fcm_attr_reverse(void) { return (int)A_REVERSE; }
static inline int fcm_attr_underline(void) { return (int)A_UNDERLINE; }
static inline int fcm_attr_normal(void) { return (int)A_NORMAL; }
static inline int fcm_set_attr(int attr) { return attrset(attr); }
static inline int fcm_move_add(int y, int x, const char *text) { return mvaddstr(y, x, text); }
static inline int fcm_get_key(unsigned int *out) {
    wint_t ch = 0;
    int result = wget_wch(stdscr, &ch);
    *out = (unsigned int)ch;
    return result;
}
static inline void fcm_set_timeout(int ms) { wtimeout(stdscr, ms); }
static inline int fcm_has_colors(void) { return has_colors(); }

#endif
