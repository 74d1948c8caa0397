// placeholder until the TerminalUI helper fills it in
#ifndef BYTECLUB_CNCURSESW_H
#define BYTECLUB_CNCURSESW_H
#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <ncursesw/curses.h>
#endif
