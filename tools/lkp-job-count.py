#!/usr/bin/env python3
#
# The number of jobs LKP's own rules make of each job file, computed from
# the files' structure as lkp-tests' jobs/README.md and lib/job.rb describe
# it (not by running LKP): includes spliced as text, documents split as
# hash_0, hash_0 + hash_1, ... hash_0 + hash_N, and a list expanded only
# when its key is a program, a program's option (the "# - NAME" lines at
# the head of its scripts) or one of LKP's fixed dimensions.
#
#   tools/lkp-job-count.py LKP_SRC FILE...   prints "FILE COUNT" lines
#
import glob
import os
import re
import sys

import yaml

FIXED_DIMS = {"kconfig", "commit", "rootfs", "ltp_commit", "nvml_commit",
              "blktests_commit", "qemu_commit", "perf_test_commit",
              "linux_commit"}


def script_options(path):
    opts = []
    try:
        with open(path, errors="replace") as f:
            for line in f:
                if line.strip() == "":
                    break
                m = re.match(r"^# [-=] ([a-zA-Z0-9_.]+)$", line.rstrip("\n"))
                if m:
                    opts.append(m.group(1))
    except OSError:
        pass
    return opts


def programs_of(src):
    progs = {}
    for kind in ("run", "setup", "daemon"):
        for p in glob.glob(os.path.join(src, "programs", "*", kind)):
            progs.setdefault(os.path.basename(os.path.dirname(p)), []).append(p)
    return progs


def find_include(name, relative_to, src):
    if name.startswith("/"):
        return name if os.path.exists(name) else None
    if name.startswith("./") or name.startswith("../"):
        p = os.path.join(relative_to, name)
        return p if os.path.exists(p) else None
    for d in (relative_to, src):
        p = os.path.join(d, name)
        if os.path.exists(p):
            return p
    parts = relative_to.split(os.sep)
    roots = [src]
    if "jobs" in parts and not name.startswith("jobs/"):
        i = len(parts) - 1 - parts[::-1].index("jobs")
        roots.insert(0, os.sep.join(parts[:i + 1]))
    for r in roots:
        m = sorted(glob.glob(os.path.join(r, "**", name), recursive=True))
        if m:
            return m[0]
    return None


def splice_includes(text, relative_to, src, depth=0):
    if depth > 8:
        raise ValueError("includes nested too deep")
    out = []
    for line in text.split("\n"):
        m = re.match(r"^(.*)<< *: +([^*\[].*)$", line)
        if not m:
            out.append(line)
            continue
        prefix, content = m.group(1), m.group(2).strip()
        opts = {}
        name = None
        if content.startswith("{"):
            try:
                parsed = yaml.safe_load(content)
            except yaml.YAMLError:
                parsed = None
            if isinstance(parsed, dict) and "file" in parsed:
                name = parsed.pop("file")
                opts = parsed
        if name is None:
            name = re.sub(r"^(['\"])(.*)\1$", r"\2", content)
        path = find_include(name, relative_to, src)
        if path is None:
            raise ValueError("include not found: " + name)
        with open(path) as f:
            inc = splice_includes(f.read(), os.path.dirname(path), src,
                                  depth + 1)
        ignore = opts.pop("ignore", None)
        if ignore:
            keys = [str(k) for k in (ignore if isinstance(ignore, list)
                                     else [ignore])]
            inc = "\n".join(l for l in inc.split("\n")
                            if not re.match(r"^(%s)\s*:" % "|".join(
                                map(re.escape, keys)), l)) + "\n"
        for key, value in opts.items():
            val = yaml.safe_dump(value, default_flow_style=True).strip()
            val = re.sub(r"\n\.\.\.$", "", val)
            pat = re.compile(r"^(%s)[ \t]*:[ \t]+.*$" % re.escape(key), re.M)
            docs = re.split(r"(?m)^---[ \t]*\n", inc)
            for i, d in enumerate(docs):
                if d.strip() == "":
                    continue
                if pat.search(d):
                    docs[i] = pat.sub("%s: %s" % (key, val), d)
                else:
                    docs[i] = d.rstrip("\n") + "\n%s: %s\n" % (key, val)
            inc = "---\n".join(docs)
        indent = re.sub(r"[^ ]", " ", prefix)
        out.append(prefix)
        out.extend(indent + l for l in inc.split("\n"))
    return "\n".join(out)


def revise(base, rev):
    job = dict(base)
    special = []
    for k, v in rev.items():
        if k.endswith("+") or k.endswith("-") or "." in k:
            special.append((k, v))
        else:
            job[k] = v
    for k, v in list(base.items()):
        if k.endswith("+") or k.endswith("-") or "." in k:
            del job[k]
            special.insert(0, (k, v))
    for k, v in special:
        if k.endswith("-"):
            path = k[:-1].split(".")
            h = job
            for p in path[:-1]:
                h = h.get(p) if isinstance(h.get(p), dict) else {}
            if path[-1] in h:
                if v is None:
                    del h[path[-1]]
                elif isinstance(h[path[-1]], dict):
                    for d in (v if isinstance(v, list) else [v]):
                        h[path[-1]].pop(d, None)
        elif k.endswith("+"):
            path = k[:-1].split(".")
            h = job
            for p in path[:-1]:
                h = h.setdefault(p, {})
            old = h.get(path[-1])
            add = v if isinstance(v, list) else [v]
            h[path[-1]] = ([] if old is None else
                           old if isinstance(old, list) else [old]) + add
        else:
            path = k.split(".")
            h = job
            for p in path[:-1]:
                if not isinstance(h.get(p), dict):
                    h[p] = {}
                h = h[p]
            h[path[-1]] = v
    return job


def dims_of(job, progs, wrapper):
    dims = set(FIXED_DIMS) | set(wrapper)

    def walk(h):
        for k, v in h.items():
            if k in progs:
                dims.add(k)
                for p in progs[k]:
                    dims.update(script_options(p))
            if isinstance(v, dict):
                walk(v)
    walk(job)
    return dims


def count(job, dims):
    def first(h):
        for k, v in h.items():
            if k in dims and isinstance(v, list):
                return h, k, v
            if isinstance(v, dict):
                r = first(v)
                if r:
                    return r
        return None
    r = first(job)
    if r is None:
        return 1
    h, k, v = r
    n = 0
    for item in v:
        h[k] = item
        n += count(job, dims)
    h[k] = v
    return n


def main():
    src = sys.argv[1]
    progs = programs_of(src)
    wrapper = (script_options(os.path.join(src, "bin", "run-test")) +
               script_options(os.path.join(src, "bin", "run-daemon")))
    for f in sys.argv[2:]:
        try:
            with open(f) as fh:
                text = splice_includes(fh.read(), os.path.dirname(f), src)
            docs = [d if d is not None else {}
                    for d in yaml.safe_load_all(text)]
            hashes = [revise(docs[0], {})]
            hashes += [revise(docs[0], d) for d in docs[1:]]
            n = sum(count(h, dims_of(h, progs, wrapper)) for h in hashes)
            print(f, n)
        except Exception as e:
            print(f, "error", str(e).split("\n")[0])


main()
