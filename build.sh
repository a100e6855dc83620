oid=$(cut -c1-40 .bisectd-checkout)
echo "start $oid $$ $PWD" >>"$TRASH/builds.log"
while [ ! -e "$TRASH/gate.$oid" ] && [ ! -e "$TRASH/gate.all" ]; do
	sleep 0.05
done
echo "done $oid $$" >>"$TRASH/builds.log"
