# Stage timing for .ci/run and scripts/test.sh (sourced, not run). `stage NAME command...` runs the
# command and records how long it took; the first script of a run prints every stage's time when it
# exits, passing or failing, and the run's wall clock time.
if [ -z "${STAGES_FILE:-}" ]; then
    STAGES_FILE=$(mktemp "${TMPDIR:-/tmp}/dragonstones-stages.XXXXXX")
    export STAGES_FILE
    stages_report() {
        echo
        echo "== stage times (wall clock, seconds) =="
        # A stage run beside others (the deploy tests) overlaps them: the total is the wall
        # clock of the whole run, not the sum of the stages.
        awk -F '\t' -v wall="$SECONDS" '{ printf "%6d s  %-40s %s\n", $2, $1, ($3 == 0 ? "" : "exit " $3) }
            END { printf "%6d s  total (wall clock of the run)\n", wall }' "$STAGES_FILE"
        rm -f "$STAGES_FILE"
    }
    trap stages_report EXIT
fi

stage() {
    local name=$1 started=$SECONDS rc=0
    shift
    echo "== $name"
    "$@" || rc=$?
    printf '%s\t%d\t%d\n' "$name" $((SECONDS - started)) "$rc" >>"$STAGES_FILE"
    return $rc
}
