/*
 * Directories: create with parents, remove or copy a tree, and the one
 * walker that every tree walk of the code goes through (dir_walk): each
 * entry below a root, in name order, lstat'ed, directories entered unless
 * the visitor says not to.
 */
#ifndef UTIL_DIR_H
#define UTIL_DIR_H

#include <sys/stat.h>

struct dir_walk_entry {
	const char		*path;	/* the root joined with rel */
	const char		*rel;	/* below the root: "a", "a/b" */
	const char		*name;	/* the last part of rel */
	const struct stat	*st;	/* lstat: links are not followed */
	int			 depth;	/* 0 for the root's own entries */
};

/* A visit's answer: leave this entry, and a directory's contents, out. */
#define DIR_WALK_SKIP	1

struct dir_walk {
	/* Each entry, before a directory's contents: 0, DIR_WALK_SKIP or -1. */
	int		(*visit)(const struct dir_walk_entry *, void *arg,
			    char **cause);
	/* When not NULL: each directory visited, after its contents. */
	int		(*leave)(const struct dir_walk_entry *, void *arg,
			    char **cause);
	void		*arg;
	/* A directory deeper than this is an error, before its visit; 0: none. */
	int		 max_depth;
};

/*
 * Walk the tree below the directory root (not root itself). 0, or -1 with
 * *cause: the visitor's, or the walk's own (a directory that cannot be
 * read, an entry that cannot be stat'ed, one nested too deep).
 */
int	 dir_walk(const char *root, const struct dir_walk *, char **cause);
int	 dir_create(const char *path, char **cause);
/* path and all below it; a missing path is no error. */
int	 dir_remove_tree(const char *path, char **cause);
/* A copy of from at to: files with their modes, links as links. */
int	 dir_copy_tree(const char *from, const char *to, char **cause);

#endif
