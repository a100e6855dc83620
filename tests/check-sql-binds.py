#!/usr/bin/python3
"""Every store_stmt() call binds as many values as its SQL has '?': a
format string of the wrong length would bind garbage or read past the
arguments. Reads schema/*.c and prints each mismatch; exits 1 on any."""
import glob
import re
import sys

bad = 0
for path in sorted(glob.glob(sys.argv[1] + "/schema/*.c")):
    src = open(path).read()
    macros = dict(re.findall(r'#define (\w+)\s+((?:"[^"]*"\s*\\?\s*)+)', src))
    sqls = {}
    for m in re.finditer(r'static const char (sql_\w+)\[\] =\s*(.*?);\n', src,
                         re.S):
        body = m.group(2)
        for name, text in macros.items():
            body = body.replace(name, text)
        text = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', body))
        sqls[m.group(1)] = text.count("?")
    for m in re.finditer(r'store_stmt\(\w+, &\w+, \w+,\s*(sql_\w+),\s*"(\w*)"',
                         src):
        want = sqls.get(m.group(1))
        if want is None:
            print("%s: %s: no such statement" % (path, m.group(1)))
            bad += 1
        elif want != len(m.group(2)):
            print("%s: %s has %d parameters, format '%s' binds %d" %
                  (path, m.group(1), want, m.group(2), len(m.group(2))))
            bad += 1
print("checked %s" % ("with %d mismatches" % bad if bad else "ok"))
sys.exit(1 if bad else 0)
