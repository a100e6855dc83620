#!/bin/sh
# A stress-ng stressor, method or type that the installed stress-ng does
# not have (Debian 12's 0.15.06 lacks many that lkp-tests' files name) is
# refused at check and queue time with FILE:LINE:COL, from what stress-ng
# itself lists: "stress-ng --stressors" and "--TEST-method which". A
# stress-ng that does not answer leaves them to the run.
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'setup: a stress-ng with cpu and sock, sock types stream only' '
	mkdir bin nobin &&
	cat >bin/stress-ng <<-\EOF &&
	#!/bin/sh
	case "$*" in
	--stressors) echo "cpu sock vm" ;;
	"--sock 1 --sock-type which") echo "sock-type option '"'"'which'"'"' not known, options are: stream, seqpacket"; exit 1 ;;
	"--cpu 1 --cpu-method which") echo "cpu-method must be one of: all ackermann fft"; exit 1 ;;
	"--vm 1 --vm-method which") echo "stress-ng: unrecognized option '"'"'--vm-method'"'"'"; exit 1 ;;
	*) exit 1 ;;
	esac
	EOF
	printf "#!/bin/sh\nexit 1\n" >nobin/stress-ng &&
	chmod +x bin/stress-ng nobin/stress-ng
'

refused() {
	PATH=$TRASH/bin:$PATH test_expect_code 2 bisectctl check "$1" 2>err &&
	grep -x "error: $2" err || { cat err; return 1; }
}

test_expect_success 'a stressor it does not list is refused at the test' '
	printf "testcase: stress-ng\nnr_threads: 1\ntest: acct\n" >acct.yaml &&
	refused acct.yaml "acct.yaml:3:1: testcase .stress-ng.: stressor .acct. is not one the installed stress-ng has (.stress-ng --stressors. does not list it)"
'

test_expect_success 'a type or method it does not have, and an option it lacks' '
	printf "testcase: stress-ng\ntest: sock\ntype: dgram\n" >dgram.yaml &&
	refused dgram.yaml "dgram.yaml:3:1: testcase .stress-ng.: type .dgram. is not one the installed stress-ng.s --sock-type has (it has stream seqpacket)" &&
	printf "testcase: stress-ng\ntest: cpu\nmethod: zeta\n" >zeta.yaml &&
	refused zeta.yaml "zeta.yaml:3:1: testcase .stress-ng.: method .zeta. is not one the installed stress-ng.s --cpu-method has (it has all ackermann fft)" &&
	printf "testcase: stress-ng\ntest: vm\nmethod: flip\n" >vm.yaml &&
	refused vm.yaml "vm.yaml:3:1: testcase .stress-ng.: the installed stress-ng has no --vm-method, which .method. gives"
'

test_expect_success 'what it has is accepted; a stress-ng that does not answer: not checked' '
	printf "testcase: stress-ng\ntest: sock\ntype: stream\n" >stream.yaml &&
	PATH=$TRASH/bin:$PATH bisectctl check stream.yaml >out &&
	printf "testcase: stress-ng\ntest: cpu\nmethod: fft\n" >fft.yaml &&
	PATH=$TRASH/bin:$PATH bisectctl check fft.yaml >out &&
	PATH=$TRASH/nobin:$PATH bisectctl check acct.yaml >out
'

test_expect_success 'queue refuses it, exit 2, before anything runs' '
	git init -q repo && echo x >repo/x && git -C repo add x &&
	test_tick && git -C repo commit -q -m one &&
	printf "repos:\n  - name: r\n    path: repo\n" >bisectd.yaml &&
	PATH=$TRASH/bin:$PATH test_expect_code 2 bisectctl queue acct.yaml --commit HEAD --wait 2>err &&
	grep "^error: acct.yaml:3:1: testcase .stress-ng.: stressor .acct." err &&
	! test -d state/runs/1
'

test_done
