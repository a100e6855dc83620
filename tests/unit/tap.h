/*
 * A tiny TAP producer for the C unit tests, read by prove(1). Each check
 * prints "ok N - name" or "not ok N - name" with a diagnostic; tap_done()
 * prints the plan and returns the exit status.
 */
#ifndef TESTS_TAP_H
#define TESTS_TAP_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int	tap_count;
static int	tap_failed;

static inline int
tap_ok(int cond, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#include <stdarg.h>

static inline int
tap_ok(int cond, const char *file, int line, const char *fmt, ...)
{
	va_list	ap;

	tap_count++;
	printf("%sok %d - ", cond ? "" : "not ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond) {
		tap_failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return cond;
}

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

#define is_int(got, want, ...) do {					\
	long long g_ = (long long)(got), w_ = (long long)(want);	\
	if (!ok(g_ == w_, __VA_ARGS__))					\
		printf("#   got %lld, want %lld\n", g_, w_);		\
} while (0)

#define is_str(got, want, ...) do {					\
	const char *g_ = (got), *w_ = (want);				\
	int same_ = (g_ == NULL && w_ == NULL) ||			\
	    (g_ != NULL && w_ != NULL && strcmp(g_, w_) == 0);		\
	if (!ok(same_, __VA_ARGS__))					\
		printf("#   got '%s', want '%s'\n", g_ ? g_ : "(null)",	\
		    w_ ? w_ : "(null)");				\
} while (0)

/* Relative closeness: |got - want| <= rel * max(|want|, tiny). */
#define is_close(got, want, rel, ...) do {				\
	double g_ = (got), w_ = (want);					\
	double d_ = fabs(g_ - w_), s_ = fabs(w_) > 1e-300 ? fabs(w_) : 1e-300;\
	int ok_ = (isnan(g_) && isnan(w_)) || d_ <= (rel) * s_ ||	\
	    (w_ == 0 && d_ <= (rel));					\
	if (!ok(ok_, __VA_ARGS__))					\
		printf("#   got %.17g, want %.17g\n", g_, w_);		\
} while (0)

#define diag(...) do { printf("# "); printf(__VA_ARGS__); printf("\n"); } while (0)

static inline int
tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

#endif
