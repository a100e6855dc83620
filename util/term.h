/*
 * What reaches a terminal: messages quote job files, commit subjects and
 * remote output, any of which can hold control bytes (an ANSI sequence
 * that rewrites the screen, a carriage return that hides a line). The
 * programs' stdout and stderr go through a filter that shows such bytes
 * as \xHH and passes newlines, tabs and UTF-8 through.
 */
#ifndef UTIL_TERM_H
#define UTIL_TERM_H

#include <stddef.h>
#include <stdio.h>

/*
 * Replace stdout and stderr with filtered streams over the same file
 * descriptors (stderr stays unbuffered). Call once, first thing in main.
 */
void	 term_filter_std(void);
/* The filter itself: dst gets src with control bytes as \xHH. */
struct strbuf;
void	 term_escape(struct strbuf *dst, const char *src, size_t len);

#endif
