/*
 * The version both programs and the agent print for --version. It moves
 * with the release notes in docs/; builds from git say which commit in
 * their own log (bisectd logs it at start).
 */
#ifndef UTIL_VERSION_H
#define UTIL_VERSION_H

#define BISECTD_VERSION	"0.3.0"

#endif
