#!/bin/sh
# Every prepared statement binds exactly as many values as it has
# parameters (a static check of schema/*.c).
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'bind formats match the SQL' '
	"$PYTHON3" "$BISECTD_SRC/tests/check-sql-binds.py" "$BISECTD_SRC"
'

test_expect_success 'the check catches a mismatch' '
	mkdir -p fake/schema &&
	printf "%s\n" "static const char sql_x[] =" "    \"SELECT ? + ?\";" \
		"f() { store_stmt(st, &stmt, cause, sql_x, \"i\", 1); }" \
		>fake/schema/x.c &&
	! "$PYTHON3" "$BISECTD_SRC/tests/check-sql-binds.py" fake
'

test_done
