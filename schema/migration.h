/*
 * The numbered SQL migrations, embedded at build time from
 * schema/migrations/NNNN-name.sql by tools/embed-sql.sh.
 */
#ifndef SCHEMA_MIGRATION_H
#define SCHEMA_MIGRATION_H

#include <stddef.h>

struct migration {
	int		 version;
	const char	*name;
	const char	*sql;
};

extern const struct migration	migrations[];
extern const size_t		nr_migrations;

#endif
