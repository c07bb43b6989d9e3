#!/usr/bin/env bash
# Runs the commands of the CI templates in ci/ against a consumer project (a
# copy of tests/consumer/project in a git repository of its own whose main branch
# holds baselines and whose branch `feature` changes one), job by job, each in
# a fresh clone as a CI runner has it: the gate's three shards, then the report
# over what they kept, then the comment scripts.
#
#   run_templates.sh github   ci/github/tileperf.yml and tileperf-fork-comment.yml
#   run_templates.sh gitlab   ci/gitlab/tileperf.gitlab-ci.yml
#
# What runs for real: every run: step and script: line except the Debian
# packages; the install steps of tileperf and of the Python environment run
# as they do after a cache restore (the prefix and the environment are in
# place and stamped: the steps check the stamps and reuse them); the result
# cache starts as a restore of main's. What does not run: the actions
# (checkout, cache, artifacts; the test copies folders instead), apt-get, the
# build of tileperf from its git tag and pip. The comment scripts run against
# a stand-in API: github-script under node (skipped without node), GitLab's
# notes API through a stand-in curl. Without node, or jq (which the GitLab
# template installs), those parts are left out, and say so.
#
# Environment: TILEPERF_BUILD (tileperf's build folder), TILEPERF_SOURCE,
# TILEPERF_PYTHON (with cuda-tile), CI_JOB_SCRIPT (tests/ci/ci_job_script),
# WORK (scratch folder).
set -euo pipefail
: "${TILEPERF_BUILD:?}" "${TILEPERF_SOURCE:?}" "${TILEPERF_PYTHON:?}" "${CI_JOB_SCRIPT:?}" "${WORK:?}"
system=${1:?usage: run_templates.sh github|gitlab}
work=$WORK/$system
ci=$TILEPERF_SOURCE/ci
shards=3

fail() { echo "run_templates.sh $system: $*" >&2; exit 1; }
quiet() { "$@" >"$work/last.log" 2>&1 || { cat "$work/last.log"; return 1; }; }

rm -rf "$work"
mkdir -p "$work/home" "$work/jobs"
export HOME=$work/home
git config --global user.name tileperf-test
git config --global user.email tileperf-test@example.invalid
git config --global init.defaultBranch main
git config --global advice.detachedHead false
unset TILEPERF_UPDATE_BASELINES TILEPERF_FILTER TILEPERF_LABEL TILEPERF_CACHE_DIR TILEPERF_RUN_ID
export CI=true

# tileperf as the install step leaves it (stamped with the template's ref); the project's Python packages as
# the environment step leaves them (an interpreter in .tileperf/venv, stamped
# with the requirements file).
prefix=$work/prefix
template=$ci/github/tileperf.yml
[[ $system == gitlab ]] && template=$ci/gitlab/tileperf.gitlab-ci.yml
ref=$(sed -n 's/^ *TILEPERF_REF: *\([^ ]*\).*/\1/p' "$template" | head -1)
quiet cmake --install "$TILEPERF_BUILD" --prefix "$prefix"
echo "$ref" >"$prefix/tileperf-ref"

# The project: its main branch holds the baselines its update_baselines wrote
# (filling a result cache, as main's gate leaves one); `feature` changes one.
project=$work/project
origin=$work/origin.git
cp -r "$TILEPERF_SOURCE/tests/consumer/project" "$project"
rm -f "$project/check.sh"
cp "$prefix/share/tileperf/requirements.txt" "$project/requirements-perf.txt"
quiet cmake -S "$project" -B "$work/build-main" -DCMAKE_PREFIX_PATH="$prefix" -DTILEPERF_PYTHON="$TILEPERF_PYTHON"
TILEPERF_CACHE_DIR=$work/cache-main quiet cmake --build "$work/build-main" --target update_baselines
rm -rf "$work/build-main"
git -C "$project" init -q
git -C "$project" add .
git -C "$project" commit -qm "kernels and baselines"
git clone -q --bare "$project" "$origin"
git -C "$project" remote add origin "$origin"
git -C "$project" checkout -qb feature
sed -i 's/"sass.instructions": \([0-9]*\)/"sass.instructions": 9\1/' "$project/baselines/scale/f16_512.sm_90.json"
git -C "$project" commit -qam "accept a change of f16_512.sm_90"
git -C "$project" push -q origin feature

# A runner's checkout of the feature branch, with tileperf and the Python
# environment restored from their caches, and main's result cache.
workspace() {
  local ws=$work/$1
  git clone -q -b feature "$origin" "$ws"
  mkdir -p "$ws/.tileperf/venv/bin"
  cp -r "$prefix" "$ws/.tileperf/prefix"
  printf '#!/bin/sh\nexec %q "$@"\n' "$TILEPERF_PYTHON" >"$ws/.tileperf/venv/bin/python"
  chmod +x "$ws/.tileperf/venv/bin/python"
  cp "$ws/requirements-perf.txt" "$ws/.tileperf/venv/tileperf-requirements.txt"
  # Shard 1 starts without a result cache, the others from main's.
  if [[ $1 != shard-1 ]]; then
    cp -r "$work/cache-main" "$ws/.tileperf/cache"
    cp "$ws/requirements-perf.txt" "$ws/.tileperf/cache.requirements"  # GitLab's stamp of the cache
  fi
  echo "$ws"
}

# What each shard kept: the count, its results and run record, its JUnit file
# (their number in $kept).
check_shard() {
  local dir=$1 shard=$2 run=$3
  [[ $(cat "$dir/expected") == 4 ]] || fail "shard $shard expects $(cat "$dir/expected") results, not 4"
  grep -q "\"run\": \"$run\"" "$dir/run.json" || fail "shard $shard's run is not $run: $(cat "$dir/run.json")"
  local n
  n=$(find "$dir" -name '*.result.json' | wc -l)
  [[ $n -ge 1 ]] || fail "shard $shard kept no result"
  [[ $(grep -c '<testcase name="perf\.' "$dir/junit.xml") == "$n" ]] ||
    fail "shard $shard's JUnit file does not list its $n perf tests"
  kept=$n
}

check_report() {
  local ws=$1
  # The branch's baseline of f16_512.sm_90 says 9xx instructions: that test improved, the others pass.
  [[ $(sed -n '/"counts": {/,/}/p' "$ws/report.json" | tr -d ' \n') == '"counts":{"improved":1,"pass":3},' ]] &&
    grep -q '^  "expected": 4,$' "$ws/report.json" ||
    fail "the report does not hold 3 passes and 1 improved of 4: $(head -c 500 "$ws/report.json")"
  grep -q '^> \*\*Review:\*\* this merge request changes 1 baseline' "$ws/report.md" ||
    fail "the report does not review the baselines against the merge base: $(head -20 "$ws/report.md")"
  grep -q '^<details><summary><b>regressed</b> <code>perf.scale.f16_512.sm_90</code>: sass.instructions \([0-9]*\) -> 9\1 ' \
    "$ws/report.md" || fail "the report does not show the baseline the branch changed: $(head -20 "$ws/report.md")"
  [[ -s $ws/report.html ]] || fail "no HTML report"
  grep -q '"format": "tileperf-history/1"' "$ws/history.json" ||
    fail "the report job read no history of the baselines (for their drift): $(cat "$ws/history.err" 2>/dev/null)"
  grep -q '0123abcd' "$ws/report.md" || fail "the report does not name the commit"
  grep -q 'pipelines/777\|actions/runs/4242' "$ws/report.md" || fail "the report does not link the run"
  cmp -s "$ws/tileperf-base/baselines/scale/f16_512.sm_90.json" <(git -C "$origin" show main:baselines/scale/f16_512.sm_90.json) ||
    fail "the merge base's baselines were not extracted"
}

run_github() {
  local table=$work/table wf=$ci/github/tileperf.yml
  local -a common=(
    "github.run_id	4242" "github.run_attempt	1" "strategy.job-total	$shards"
    "github.base_ref	main" "github.event.pull_request.number	7"
    "github.server_url	https://github.example" "github.repository	owner/project"
    "github.event.pull_request.head.sha || github.sha	0123abcd"
    "if: !cancelled()	always" "if: !cancelled() && hashFiles('report.md') != ''	always"
    "if: !cancelled() && github.event_name == 'pull_request' && github.event.pull_request.head.repo.fork	never"
    "vars.TILEPERF_CACHE_URL	" "github.event_name == 'push' && '1' || '0'	0"
    "github.event_name == 'push' && secrets.TILEPERF_CACHE_WRITE_TOKEN || secrets.TILEPERF_CACHE_READ_TOKEN	")
  local report_ws
  report_ws=$(workspace report)
  local shard total=0 ws jobdir kept
  local -a kept_by_shard
  for shard in $(seq "$shards"); do
    ws=$(workspace "shard-$shard")
    jobdir=$work/jobs/gate-$shard
    mkdir -p "$jobdir"
    printf '%s\n' "${common[@]}" "matrix.shard	$shard" >"$table"
    "$CI_JOB_SCRIPT" github "$wf" gate "$table" "$jobdir" --skip "Debian packages"
    (cd "$ws" && GITHUB_ENV=$jobdir/env GITHUB_WORKSPACE=$ws GITHUB_STEP_SUMMARY=$jobdir/summary \
      bash "$jobdir/run.sh") >"$work/last.log" 2>&1 || { cat "$work/last.log"; fail "the gate's shard $shard failed"; }
    grep -q "^TILEPERF_CACHE_DIR=$ws/.tileperf/cache$" "$jobdir/env" || fail "TILEPERF_CACHE_DIR is not the workspace's"
    [[ $shard != 1 || -n $(ls "$ws/.tileperf/cache") ]] || fail "shard 1 left its result cache empty"
    grep -q "^$ws/.tileperf/cache: kept [0-9]* entries" "$work/last.log" || fail "shard $shard did not prune its result cache"
    check_shard "$ws/tileperf-shard/$shard" "$shard" 4242-1
    total=$((total + kept))
    kept_by_shard[$shard]=$kept
    mkdir -p "$report_ws/tileperf-shard"
    cp -r "$ws/tileperf-shard/$shard" "$report_ws/tileperf-shard/"
  done
  [[ $total == 4 ]] || fail "the shards kept $total results, not 4"

  jobdir=$work/jobs/report
  mkdir -p "$jobdir"
  printf '%s\n' "${common[@]}" >"$table"
  "$CI_JOB_SCRIPT" github "$wf" report "$table" "$jobdir" --skip "Debian packages"
  (cd "$report_ws" && GITHUB_ENV=$jobdir/env GITHUB_WORKSPACE=$report_ws GITHUB_STEP_SUMMARY=$jobdir/summary \
    bash "$jobdir/run.sh") >"$work/last.log" 2>&1 || { cat "$work/last.log"; fail "the report job failed"; }
  check_report "$report_ws"
  cmp -s "$jobdir/summary" "$report_ws/report.md" || fail "the job summary is not the report's Markdown"
  [[ $(cat "$report_ws/tileperf-report/pull-request") == 7 ]] || fail "the kept report does not name the pull request"

  # A shard that kept nothing: the report says so and the job fails.
  local partial
  partial=$(workspace report-partial)
  mkdir -p "$partial/tileperf-shard"
  cp -r "$report_ws/tileperf-shard/1" "$report_ws/tileperf-shard/3" "$partial/tileperf-shard/"
  if (cd "$partial" && GITHUB_ENV=$jobdir/env GITHUB_WORKSPACE=$partial GITHUB_STEP_SUMMARY=$jobdir/summary-partial \
    bash "$jobdir/run.sh") >"$work/last.log" 2>&1; then
    fail "the report job passed without shard 2's results"
  fi
  local missing=${kept_by_shard[2]}
  [[ $missing -gt 0 ]] || fail "shard 2 kept no result, so none can be missing without it"
  grep -q "incomplete: $((4 - missing)) of 4 expected results found ($missing missing)" "$partial/report.md" ||
    fail "the report does not say a result is missing: $(head -20 "$partial/report.md")"
  grep -q "incomplete" "$jobdir/summary-partial" || fail "the job summary of an incomplete run is missing"
  # No shard kept anything: the job fails and says so.
  local none
  none=$(workspace report-none)
  if (cd "$none" && GITHUB_ENV=$jobdir/env GITHUB_WORKSPACE=$none GITHUB_STEP_SUMMARY=$jobdir/summary-none \
    bash "$jobdir/run.sh") >"$work/last.log" 2>&1; then
    fail "the report job passed without any shard"
  fi
  grep -q "no shard uploaded its results" "$none/report.md" || fail "the report does not say that no shard kept anything"

  # The comment: one, found by its marker among the bot's comments, updated in place.
  if ! command -v node >/dev/null || ! command -v jq >/dev/null; then
    echo "run_templates.sh github: node or jq not found: the comment scripts were not run"
    return 0
  fi
  local js=$work/jobs/js
  mkdir -p "$js"
  "$CI_JOB_SCRIPT" js "$wf" report "Comment on the pull request" "$js"
  local out
  local mine='{"id": 5, "user": {"type": "Bot"}, "body": "<!-- tileperf -->\nold"}'
  local quoted='{"id": 3, "user": {"type": "User"}, "body": "> <!-- tileperf -->"}'
  out=$(cd "$report_ws" && COMMENTS="[$quoted, $mine]" ISSUE=7 node "$TILEPERF_SOURCE/tests/ci/github_script.js" "$js/step.js")
  jq -e 'length == 2 and .[1][0] == "update" and .[1][1] == 5 and (.[1][2] | startswith("<!-- tileperf -->"))' \
    <<<"$out" >/dev/null || fail "the comment was not updated in place: $out"
  out=$(cd "$report_ws" && COMMENTS="[$quoted]" ISSUE=7 node "$TILEPERF_SOURCE/tests/ci/github_script.js" "$js/step.js")
  jq -e '.[1][0] == "create" and .[1][1] == 7' <<<"$out" >/dev/null || fail "no comment was created: $out"
  # The fork's follow-up, from the kept report.
  "$CI_JOB_SCRIPT" js "$ci/github/tileperf-fork-comment.yml" comment "Comment on the pull request" "$js"
  out=$(cd "$report_ws" && COMMENTS="[$mine]" HEAD_SHA=abc node "$TILEPERF_SOURCE/tests/ci/github_script.js" "$js/step.js")
  jq -e '.[0] == ["pull", 7] and .[2][0] == "update" and .[2][1] == 5' <<<"$out" >/dev/null ||
    fail "the fork's follow-up did not update the comment: $out"
  out=$(cd "$report_ws" && COMMENTS="[$mine]" HEAD_SHA=def node "$TILEPERF_SOURCE/tests/ci/github_script.js" "$js/step.js")
  jq -e 'length == 2 and .[1][0] == "notice"' <<<"$out" >/dev/null ||
    fail "the fork's follow-up commented on a pull request that moved on: $out"
  echo "fake" >"$report_ws/tileperf-report/pull-request"
  if (cd "$report_ws" && node "$TILEPERF_SOURCE/tests/ci/github_script.js" "$js/step.js") >/dev/null 2>&1; then
    fail "the fork's follow-up took a pull-request number that is not a number"
  fi
}

run_gitlab() {
  local file=$ci/gitlab/tileperf.gitlab-ci.yml
  export CI_PIPELINE_ID=777 CI_PIPELINE_URL=https://gitlab.example/pipelines/777 CI_NODE_TOTAL=$shards
  export CI_COMMIT_REF_SLUG=feature CI_DEFAULT_BRANCH=main
  local report_ws
  report_ws=$(workspace report)
  local shard total=0 ws jobdir=$work/jobs/gate kept
  mkdir -p "$jobdir"
  "$CI_JOB_SCRIPT" gitlab "$file" tileperf:gate "$jobdir" --skip apt-get
  for shard in $(seq "$shards"); do
    ws=$(workspace "shard-$shard")
    (cd "$ws" && CI_PROJECT_DIR=$ws CI_NODE_INDEX=$shard bash "$jobdir/run.sh") >"$work/last.log" 2>&1 ||
      { cat "$work/last.log"; fail "the gate's shard $shard failed"; }
    [[ $shard != 1 || -n $(ls "$ws/.tileperf/cache") ]] || fail "shard 1 left its result cache empty"
    grep -q "^$ws/.tileperf/cache: kept [0-9]* entries" "$work/last.log" || fail "shard $shard did not prune its result cache"
    check_shard "$ws/tileperf-shard/$shard" "$shard" 777
    total=$((total + kept))
    mkdir -p "$report_ws/tileperf-shard"
    cp -r "$ws/tileperf-shard/$shard" "$report_ws/tileperf-shard/"
  done
  [[ $total == 4 ]] || fail "the shards kept $total results, not 4"

  # The notes API through a stand-in curl: it logs each call and answers with
  # the token's user (11) and the merge request's notes. The note script
  # needs jq (the template installs it).
  if ! command -v jq >/dev/null; then
    echo "run_templates.sh gitlab: jq not found: the report job and its note were not run"
    return 0
  fi
  mkdir -p "$work/bin"
  cat >"$work/bin/curl" <<'EOF'
#!/usr/bin/env bash
method=GET url= data=
while (($#)); do
  case $1 in
    --request) method=$2; shift ;;
    --header) shift ;;
    --data-urlencode) data=${2#body@}; shift ;;
    -*) ;;
    *) url=$1 ;;
  esac
  shift
done
echo "$method $url" >>"$FAKE_CURL_LOG"
[[ -z $data ]] || cp "$data" "$FAKE_CURL_LOG.body"
case "$method $url" in
  "GET "*/user) echo '{"id": 11}' ;;
  "GET "*"page=1") cat "$FAKE_NOTES" ;;
  "GET "*) echo '[]' ;;
  *) echo '{}' ;;
esac
EOF
  chmod +x "$work/bin/curl"
  export FAKE_CURL_LOG=$work/curl.log FAKE_NOTES=$work/notes.json
  export CI_API_V4_URL=https://gitlab.example/api/v4 CI_PROJECT_ID=5 CI_MERGE_REQUEST_IID=7
  export CI_MERGE_REQUEST_TARGET_BRANCH_NAME=main CI_COMMIT_SHA=0123abcd CI_PROJECT_URL=https://gitlab.example/project
  local notes=$CI_API_V4_URL/projects/5/merge_requests/7/notes
  jobdir=$work/jobs/report
  mkdir -p "$jobdir"
  "$CI_JOB_SCRIPT" gitlab "$file" tileperf:report "$jobdir" --skip apt-get
  echo '[{"id": 3, "author": {"id": 12}, "body": "<!-- tileperf --> quoted"},
         {"id": 5, "author": {"id": 11}, "body": "<!-- tileperf -->\nold"}]' >"$FAKE_NOTES"
  (cd "$report_ws" && CI_PROJECT_DIR=$report_ws PATH=$work/bin:$PATH TILEPERF_NOTE_TOKEN=secret \
    bash "$jobdir/run.sh") >"$work/last.log" 2>&1 || { cat "$work/last.log"; fail "the report job failed"; }
  check_report "$report_ws"
  grep -qx "PUT $notes/5" "$FAKE_CURL_LOG" || fail "the note was not updated in place: $(cat "$FAKE_CURL_LOG")"
  grep -q "POST" "$FAKE_CURL_LOG" && fail "a second note was posted: $(cat "$FAKE_CURL_LOG")"
  head -1 "$FAKE_CURL_LOG.body" | grep -qxF '<!-- tileperf -->' || fail "the note does not begin with its marker"

  # No note of the token's user yet: one is posted, even when a shard kept nothing (and the job fails).
  echo '[{"id": 3, "author": {"id": 12}, "body": "<!-- tileperf --> quoted"}]' >"$FAKE_NOTES"
  rm -f "$FAKE_CURL_LOG"
  local partial
  partial=$(workspace report-partial)
  mkdir -p "$partial/tileperf-shard"
  cp -r "$report_ws/tileperf-shard/2" "$report_ws/tileperf-shard/3" "$partial/tileperf-shard/"
  if (cd "$partial" && CI_PROJECT_DIR=$partial PATH=$work/bin:$PATH TILEPERF_NOTE_TOKEN=secret \
    bash "$jobdir/run.sh") >"$work/last.log" 2>&1; then
    fail "the report job passed without shard 1's results"
  fi
  grep -qx "POST $notes" "$FAKE_CURL_LOG" || fail "no note was posted: $(cat "$FAKE_CURL_LOG")"
  grep -q "incomplete: [0-9] of 4 expected results found" "$FAKE_CURL_LOG.body" ||
    fail "the note does not say a result is missing"

  # Without the token (a fork's pipeline): no call, the job passes.
  rm -f "$FAKE_CURL_LOG"
  (cd "$report_ws" && CI_PROJECT_DIR=$report_ws PATH=$work/bin:$PATH bash "$jobdir/run.sh") >"$work/last.log" 2>&1 ||
    { cat "$work/last.log"; fail "the report job failed without a token"; }
  [[ ! -e $FAKE_CURL_LOG ]] || fail "the API was called without a token"
  grep -q "no TILEPERF_NOTE_TOKEN" "$work/last.log" || fail "the job does not say why it posts no note"
}

"run_$system"
echo "run_templates.sh $system: ok"
