#!/bin/sh
# A job's kconfig: map reaches the build (with the daemon side wired): the
# build row keeps the fragment, the .config has it over the recipe's base
# (a make target), the image hash and release are recorded, and a job
# without the map builds another recipe. A fake kbuild tree, no compiler.
# And a culprit whose image is its parent's is said to be one in the result
# and the report.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/lib-bisect.sh"

# kbuild's part in a few lines: tinyconfig writes a base, bzImage is made
# from the sources and the .config.
fake_kbuild() {
	cat <<\EOF
O ?= .
tinyconfig:
	mkdir -p $(O)
	printf 'CONFIG_64BIT=y\n# CONFIG_PRINTK is not set\n' >$(O)/.config
olddefconfig:
	true
bzImage:
	mkdir -p $(O)/arch/x86/boot $(O)/include/config
	echo 6.1.0-fake >$(O)/include/config/kernel.release
	cat kernel/sys.c $(O)/.config >$(O)/arch/x86/boot/bzImage
EOF
}

jobs() {
	cat >job.yaml <<\EOF
testcase: cfg
run: 'echo "printk: $(grep -cx CONFIG_PRINTK=y .config)"'
runs: 1
metric: cfg.printk
kconfig:
  CONFIG_PRINTK: y
EOF
	head -n 4 job.yaml >plain.yaml
}

test_expect_success 'a fake kernel tree' '
	mkdir -p linux/kernel &&
	fake_kbuild >linux/Makefile &&
	echo "int getppid;" >linux/kernel/sys.c &&
	git -C linux init -q && git -C linux add . && test_tick &&
	git -C linux commit -q -m A && git -C linux tag A &&
	echo "int getppid2;" >>linux/kernel/sys.c && test_tick &&
	git -C linux commit -q -a -m B && git -C linux tag B &&
	cat >bisectd.yaml <<-EOF &&
	repos:
	  - name: linux
	    path: linux
	    build:
	      command: make -s O=\$BUILD_DIR olddefconfig bzImage
	      kconfig: tinyconfig
	      artifacts: [arch/x86/boot/bzImage]
	EOF
	jobs
'

test_expect_success 'the fragment is in the build row and the .config' '
	bisectctl compare A B job.yaml --wait >out 2>err &&
	test "$(db_query "SELECT count(*) FROM builds
		WHERE kconfig = '\''CONFIG_PRINTK=y'\'' || char(10)")" = 2 &&
	db_query "SELECT artifact_dir FROM builds" >dirs &&
	while read -r d; do
		grep -qx "CONFIG_PRINTK=y" "$d/.config" &&
		! grep -q "# CONFIG_PRINTK is not set" "$d/.config" || return 1
	done <dirs &&
	test "$(db_query "SELECT count(*) FROM samples WHERE
		metric = '\''cfg.printk'\'' AND value = 1")" = 2
'

test_expect_success 'the image hash and release are recorded' '
	test "$(db_query "SELECT count(DISTINCT image_hash) FROM builds
		WHERE kernel_release = '\''6.1.0-fake'\''")" = 2
'

test_expect_success 'a job without kconfig: another recipe, the base alone' '
	bisectctl compare A B plain.yaml --wait >out 2>err &&
	test "$(db_query "SELECT count(DISTINCT recipe) FROM builds")" = 2 &&
	test "$(db_query "SELECT count(*) FROM builds WHERE kconfig IS NULL")" = 2 &&
	test "$(db_query "SELECT count(*) FROM samples WHERE
		metric = '\''cfg.printk'\'' AND value = 0")" = 2
'

# image_cmd CMD: the bench repository built with an "image" made by CMD.
bench_with_image() {
	setup_bench --commits 40 --culprit 25 --change -5 &&
	cat >bisectd.yaml <<-EOF
	repos:
	  - name: bench
	    path: repo
	    build:
	      command: mkdir -p \$BUILD_DIR/arch/x86/boot && $1 >\$BUILD_DIR/arch/x86/boot/bzImage
	      artifacts: [bench.sh, speed, noise, arch/x86/boot/bzImage]
	EOF
}

test_expect_success 'a culprit whose image is its parent'"'"'s is said to be one' '
	bench_with_image "echo the same kernel" &&
	bisectctl bisect job.yaml --good "$(commit_oid "commit 1")" \
		--bad master --wait --json >out.json 2>progress &&
	test "$(json_get out.json "d[\"culprit\"]")" = "$(culprit_oid)" &&
	test "$(json_get out.json "d.get(\"same_image_as_parent\")")" = True &&
	bisectctl report "$(json_get out.json "d[\"id\"]")" >report &&
	tr "\n" " " <report | grep -q "byte-identical to its parent.s (the same kernel image)"
'

test_expect_success 'not when the image changed' '
	bench_with_image "cat speed" &&
	bisectctl bisect job.yaml --good "$(commit_oid "commit 1")" \
		--bad master --wait --json >out.json 2>progress &&
	test "$(json_get out.json "d[\"culprit\"]")" = "$(culprit_oid)" &&
	test "$(json_get out.json "d.get(\"same_image_as_parent\")")" = None
'

test_done
