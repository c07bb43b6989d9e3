// The CI templates in ci/ are valid YAML and have the structure a project that
// uses find_package(tileperf) relies on: tileperf and the Python environment
// installed from pinned versions and cached, the result cache in the
// workspace and cached per shard, one run id across the shards, a report that
// knows how many results to expect and reviews against the merge base, one
// comment updated in place, no stages: of their own in GitLab. Their commands
// run for real in tests/ci/run_templates.sh (ci.github, ci.gitlab).
#define BOOST_TEST_MODULE ci_templates
#include <boost/test/unit_test.hpp>

#include <yaml-cpp/yaml.h>

#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace {

const std::string kCi = std::string(TILEPERF_FIXTURES) + "/../../ci";
const std::string kMarker = "<!-- tileperf -->";

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

YAML::Node step_named(const YAML::Node& steps, const std::string& name) {
  for (const auto& step : steps) {
    if (step["name"] && step["name"].as<std::string>() == name) return step;
  }
  BOOST_FAIL("no step named '" + name + "'");
  return YAML::Node();
}

YAML::Node step_with_id(const YAML::Node& steps, const std::string& id) {
  for (const auto& step : steps) {
    if (step["id"] && step["id"].as<std::string>() == id) return step;
  }
  BOOST_FAIL("no step with id '" + id + "'");
  return YAML::Node();
}

// Every run: script of a job, one after the other.
std::string runs(const YAML::Node& job) {
  std::string all;
  for (const auto& step : job["steps"]) {
    if (step["run"]) all += step["run"].as<std::string>() + "\n";
  }
  return all;
}

std::string lines(const YAML::Node& list) {
  std::string all;
  for (const auto& line : list) all += line.as<std::string>() + "\n";
  return all;
}

// What a project's gate must not need: tileperf's own scripts and build
// folder, or a browser (the HTML report is rendered by tileperf).
void check_portable(const std::string& commands) {
  BOOST_TEST(!contains(commands, "tools/run"));
  BOOST_TEST(!contains(commands, "build/tools/tileperf"));
  BOOST_TEST(!contains(commands, "chromium"));
  BOOST_TEST(!contains(commands, "--preset"));  // the project's presets are its own
}

// The Debian packages a job installs cover the commands it calls.
void check_installed(std::string install, const std::string& commands) {
  for (char& c : install) c = c == '\n' || c == '\\' ? ' ' : c;
  install += " ";
  struct Need {
    const char* command;
    const char* package;
  };
  for (auto [command, package] : {Need{"cmake ", "cmake"}, Need{"ctest ", "cmake"}, Need{"git ", "git"},
                                  Need{"python3 -m venv", "python3-venv"}, Need{"jq ", "jq"}, Need{"curl ", "curl"}}) {
    if (contains(commands, command)) {
      BOOST_TEST_INFO("the jobs call '" << command << "'");
      BOOST_TEST(contains(install, std::string(" ") + package + " "));
    }
  }
  // tileperf is built where the prefix cache misses.
  for (const char* package : {"g++", "make", "nlohmann-json3-dev", "libfmt-dev", "libcli11-dev", "libyaml-cpp-dev"}) {
    BOOST_TEST_INFO(package);
    BOOST_TEST(contains(install, std::string(" ") + package + " "));
  }
}

// The report's command: every result expected, reviewed against the merge base.
void check_report_command(const std::string& script) {
  BOOST_TEST(contains(script, "cat tileperf-shard/*/expected"));
  BOOST_TEST(contains(script, "tileperf report tileperf-shard/* --expect \"$expect\""));
  BOOST_TEST(contains(script, "--markdown report.md --html report.html --json report.json"));
  BOOST_TEST(contains(script, "git merge-base HEAD \"origin/$BASE_REF\""));
  BOOST_TEST(contains(script, "git archive \"$base\" \"$TILEPERF_BASELINES\" | tar -x -C tileperf-base/"));
  BOOST_TEST(
      contains(script, "--base-baselines \"tileperf-base/$TILEPERF_BASELINES\" --baselines \"$TILEPERF_BASELINES\""));
  BOOST_TEST(contains(script, "--commit \"$COMMIT\" --commit-url \"$COMMIT_URL\" --run-url \"$RUN_URL\""));
  BOOST_TEST(contains(script, "no shard uploaded its results"));
}

// The install of tileperf: from the pinned ref, built and installed into the
// prefix the cache keeps, redone only when the stamp names another ref.
void check_install(const std::string& script) {
  BOOST_TEST(contains(script, "fetch -q --depth 1 \"$TILEPERF_GIT\" \"$TILEPERF_REF\""));
  BOOST_TEST(contains(script, "-DTILEPERF_BUILD_TESTS=OFF -DTILEPERF_BUILD_KERNELS=OFF"));
  BOOST_TEST(contains(script, "cmake --install .tileperf/build --prefix \"$PWD/.tileperf/prefix\""));
  BOOST_TEST(contains(script, "$(cat .tileperf/prefix/tileperf-ref 2>/dev/null) != \"$TILEPERF_REF\""));
}

// The Python environment: the project's requirements, exactly, reused while
// the stamp matches.
void check_python(const std::string& script) {
  BOOST_TEST(contains(script, "cmp -s \"$TILEPERF_REQUIREMENTS\" .tileperf/venv/tileperf-requirements.txt"));
  BOOST_TEST(contains(script, "pip install -q --disable-pip-version-check --no-deps \\\n"));
  BOOST_TEST(contains(script, "-r \"$TILEPERF_REQUIREMENTS\""));
  BOOST_TEST(contains(script, "-DTILEPERF_PYTHON=\"$PWD/.tileperf/venv/bin/python\""));
  BOOST_TEST(contains(script, "-DCMAKE_PREFIX_PATH=\"$PWD/.tileperf/prefix\""));
}

// The count the report expects: every perf test, written before the tests run.
void check_expected(const std::string& script) {
  BOOST_TEST(contains(script, "ctest --test-dir .tileperf/project -N -L perf | grep -c ': perf\\.' >"));
}

}  // namespace

BOOST_AUTO_TEST_CASE(github_gate) {
  YAML::Node wf = YAML::LoadFile(kCi + "/github/tileperf.yml");
  BOOST_TEST(wf["on"]["pull_request"].IsDefined());
  BOOST_TEST(wf["on"]["push"].IsDefined());  // main's caches serve every branch
  BOOST_TEST(wf["permissions"]["contents"].as<std::string>() == "read");
  BOOST_TEST(!wf["permissions"]["pull-requests"].IsDefined());
  const auto env = wf["env"];
  BOOST_TEST(env["TILEPERF_RUN_ID"].as<std::string>() == "${{ github.run_id }}-${{ github.run_attempt }}");
  for (const char* key : {"TILEPERF_GIT", "TILEPERF_REF", "TILEPERF_REQUIREMENTS", "TILEPERF_PROJECT_DIR",
                          "TILEPERF_BASELINES", "TILEPERF_KERNELS"}) {
    BOOST_TEST_INFO(key);
    BOOST_TEST(!env[key].as<std::string>().empty());
  }

  const auto gate = wf["jobs"]["gate"];
  const auto shards = gate["strategy"]["matrix"]["shard"];
  BOOST_TEST(shards.size() == 3u);
  for (std::size_t i = 0; i < shards.size(); ++i) BOOST_TEST(shards[i].as<std::size_t>() == i + 1);
  BOOST_TEST(gate["strategy"]["fail-fast"].as<bool>() == false);
  BOOST_TEST(gate["env"]["SHARD"].as<std::string>() == "${{ matrix.shard }}");
  BOOST_TEST(gate["env"]["SHARDS"].as<std::string>() == "${{ strategy.job-total }}");
  const std::string commands = runs(gate);
  BOOST_TEST(contains(commands, "ctest --test-dir .tileperf/project -L perf -I \"$SHARD,,$SHARDS\""));
  BOOST_TEST(contains(commands, "--output-junit \"$PWD/tileperf-shard/$SHARD/junit.xml\""));
  BOOST_TEST(contains(commands, "echo \"TILEPERF_CACHE_DIR=$PWD/.tileperf/cache\" >>\"$GITHUB_ENV\""));
  check_portable(commands);
  check_installed(step_named(gate["steps"], "Debian packages")["run"].as<std::string>(), commands);
  check_install(step_with_id(gate["steps"], "tileperf")["run"].as<std::string>());
  check_python(commands);
  check_expected(step_named(gate["steps"], "Configure")["run"].as<std::string>());

  // The results are kept whatever the tests said.
  const auto collect = step_named(gate["steps"], "Collect this shard's results");
  BOOST_TEST(collect["if"].as<std::string>() == "${{ !cancelled() }}");
  BOOST_TEST(contains(collect["run"].as<std::string>(), "-name run.json -o -name '*.result.json'"));
  const auto upload = step_named(gate["steps"], "Keep this shard's results");
  BOOST_TEST(upload["uses"].as<std::string>() == "actions/upload-artifact@v4");
  BOOST_TEST(upload["with"]["name"].as<std::string>() == "tileperf-shard-${{ matrix.shard }}");
  BOOST_TEST(upload["with"]["path"].as<std::string>() == "tileperf-shard/");
  BOOST_TEST(upload["with"]["overwrite"].as<bool>());  // a re-run shard replaces what it kept
}

BOOST_AUTO_TEST_CASE(github_caches) {
  YAML::Node wf = YAML::LoadFile(kCi + "/github/tileperf.yml");
  const auto steps = wf["jobs"]["gate"]["steps"];
  // Each restore has its save, run even when a test failed, under the key the restore computed.
  for (auto [restore, save, path] : {std::tuple{"tileperf-cache", "Save tileperf", ".tileperf/prefix"},
                                     std::tuple{"venv-cache", "Save the Python environment", ".tileperf/venv"},
                                     std::tuple{"result-cache", "Save tileperf's result cache", ".tileperf/cache"}}) {
    BOOST_TEST_INFO(restore);
    const auto r = step_with_id(steps, restore);
    const auto s = step_named(steps, save);
    BOOST_TEST(r["uses"].as<std::string>() == "actions/cache/restore@v4");
    BOOST_TEST(s["uses"].as<std::string>() == "actions/cache/save@v4");
    BOOST_TEST(r["with"]["path"].as<std::string>() == path);
    BOOST_TEST(s["with"]["path"].as<std::string>() == path);
    BOOST_TEST(s["with"]["key"].as<std::string>() ==
               std::string("${{ steps.") + restore + ".outputs.cache-primary-key }}");
    BOOST_TEST(contains(s["if"].as<std::string>(), "!cancelled()"));
    BOOST_TEST(contains(s["if"].as<std::string>(), std::string("steps.") + restore + ".outputs.cache-hit != 'true'"));
  }
  BOOST_TEST(step_with_id(steps, "tileperf-cache")["with"]["key"].as<std::string>() ==
             "tileperf-${{ env.TILEPERF_REF }}-debian12");
  BOOST_TEST(step_with_id(steps, "venv-cache")["with"]["key"].as<std::string>() ==
             "tileperf-venv-debian12-${{ hashFiles(env.TILEPERF_REQUIREMENTS) }}");
  // The result cache: per shard, keyed by the requirements and the kernel
  // sources, falling back to the same shard's newest entry of any sources.
  const auto results = step_with_id(steps, "result-cache")["with"];
  const std::string key = results["key"].as<std::string>();
  const std::string fallback = results["restore-keys"].as<std::string>();
  BOOST_TEST(contains(key, "${{ hashFiles(env.TILEPERF_REQUIREMENTS) }}"));
  BOOST_TEST(contains(key, "${{ matrix.shard }}of${{ strategy.job-total }}"));
  BOOST_TEST(contains(key, "${{ hashFiles(env.TILEPERF_KERNELS, '!.tileperf/**') }}"));
  BOOST_TEST(key.starts_with(fallback.substr(0, fallback.find('\n'))));
  BOOST_TEST(fallback.substr(0, fallback.find('\n')).ends_with("-"));
}

BOOST_AUTO_TEST_CASE(github_report) {
  YAML::Node wf = YAML::LoadFile(kCi + "/github/tileperf.yml");
  const auto report = wf["jobs"]["report"];
  BOOST_TEST(report["needs"].as<std::string>() == "gate");
  BOOST_TEST(report["if"].as<std::string>() == "${{ !cancelled() }}");
  BOOST_TEST(report["permissions"]["pull-requests"].as<std::string>() == "write");
  BOOST_TEST(report["env"]["BASE_REF"].as<std::string>() == "${{ github.base_ref }}");
  BOOST_TEST(report["env"]["COMMIT"].as<std::string>() == "${{ github.event.pull_request.head.sha || github.sha }}");
  const std::string commands = runs(report);
  check_portable(commands);
  check_installed(step_named(report["steps"], "Debian packages")["run"].as<std::string>(), commands);
  BOOST_TEST(!contains(step_named(report["steps"], "Debian packages")["run"].as<std::string>(), "python3"));
  // The same install as the gate's, under the same cache key.
  BOOST_TEST(step_named(report["steps"], "Install tileperf")["run"].as<std::string>() ==
             step_with_id(wf["jobs"]["gate"]["steps"], "tileperf")["run"].as<std::string>());
  BOOST_TEST(step_with_id(report["steps"], "tileperf-cache")["with"]["key"].as<std::string>() ==
             step_with_id(wf["jobs"]["gate"]["steps"], "tileperf-cache")["with"]["key"].as<std::string>());
  bool full_history = false, downloads = false;
  for (const auto& step : report["steps"]) {
    if (!step["uses"]) continue;
    const std::string uses = step["uses"].as<std::string>();
    if (uses == "actions/checkout@v4") full_history = step["with"]["fetch-depth"].as<int>() == 0;
    if (uses == "actions/download-artifact@v4") {
      downloads = step["with"]["pattern"].as<std::string>() == "tileperf-shard-*" &&
                  step["with"]["path"].as<std::string>() == "tileperf-shard" &&
                  step["with"]["merge-multiple"].as<bool>();
    }
  }
  BOOST_TEST(full_history);  // git merge-base
  BOOST_TEST(downloads);
  check_report_command(step_named(report["steps"], "Merge the shards into one report")["run"].as<std::string>());
  const auto summary = step_named(report["steps"], "Job summary");
  BOOST_TEST(summary["run"].as<std::string>() == "cat report.md >>\"$GITHUB_STEP_SUMMARY\"");
  BOOST_TEST(contains(summary["if"].as<std::string>(), "!cancelled()"));
}

BOOST_AUTO_TEST_CASE(github_comment) {
  YAML::Node wf = YAML::LoadFile(kCi + "/github/tileperf.yml");
  const auto steps = wf["jobs"]["report"]["steps"];
  const auto comment = step_named(steps, "Comment on the pull request");
  BOOST_TEST(comment["uses"].as<std::string>() == "actions/github-script@v7");
  const std::string condition = comment["if"].as<std::string>();
  BOOST_TEST(contains(condition, "github.event_name == 'pull_request'"));
  BOOST_TEST(contains(condition, "!github.event.pull_request.head.repo.fork"));
  const std::string script = comment["with"]["script"].as<std::string>();
  BOOST_TEST(contains(script, "const marker = '" + kMarker + "';"));
  BOOST_TEST(contains(script, "github.rest.issues.listComments"));
  BOOST_TEST(contains(script, "github.rest.issues.updateComment"));
  const auto notice = step_named(steps, "No comment on a fork's pull request");
  BOOST_TEST(contains(notice["if"].as<std::string>(), "&& github.event.pull_request.head.repo.fork"));
  BOOST_TEST(contains(notice["run"].as<std::string>(), "::notice::"));

  // The fork's follow-up: after the gate's workflow, from its kept report.
  YAML::Node follow = YAML::LoadFile(kCi + "/github/tileperf-fork-comment.yml");
  BOOST_TEST(follow["on"]["workflow_run"]["workflows"][0].as<std::string>() == wf["name"].as<std::string>());
  BOOST_TEST(follow["on"]["workflow_run"]["types"][0].as<std::string>() == "completed");
  BOOST_TEST(follow["permissions"]["pull-requests"].as<std::string>() == "write");
  const auto job = follow["jobs"]["comment"];
  BOOST_TEST(contains(job["if"].as<std::string>(), "head_repository.full_name != github.repository"));
  BOOST_TEST(job["steps"][0]["with"]["name"].as<std::string>() == "tileperf-report");
  BOOST_TEST(job["steps"][0]["with"]["run-id"].as<std::string>() == "${{ github.event.workflow_run.id }}");
  BOOST_TEST(!contains(runs(job), "checkout"));  // nothing of the fork runs
  const std::string follow_script =
      step_named(job["steps"], "Comment on the pull request")["with"]["script"].as<std::string>();
  BOOST_TEST(contains(follow_script, "const marker = '" + kMarker + "';"));
  BOOST_TEST(contains(follow_script, "github.rest.issues.updateComment"));
  BOOST_TEST(contains(follow_script, "context.payload.workflow_run.head_sha"));
}

// Every run: script takes its inputs from env:, never from ${{ }} (which
// would paste a branch name or a title into the script).
BOOST_AUTO_TEST_CASE(github_scripts_take_env) {
  for (const char* file : {"/github/tileperf.yml", "/github/tileperf-fork-comment.yml"}) {
    YAML::Node wf = YAML::LoadFile(kCi + file);
    for (const auto& job : wf["jobs"]) {
      BOOST_TEST_INFO(file << " " << job.first.as<std::string>());
      BOOST_TEST(!contains(runs(job.second), "${{"));
    }
  }
}

BOOST_AUTO_TEST_CASE(gitlab_include) {
  YAML::Node ci = YAML::LoadFile(kCi + "/gitlab/tileperf.gitlab-ci.yml");
  // Nothing that changes the host's pipeline: only the template's own jobs.
  std::set<std::string> keys;
  for (const auto& kv : ci) keys.insert(kv.first.as<std::string>());
  BOOST_TEST((keys == std::set<std::string>{".tileperf", "tileperf:gate", "tileperf:report"}));
  BOOST_TEST(!ci["stages"].IsDefined());
  for (const char* name : {"tileperf:gate", "tileperf:report"}) {
    BOOST_TEST_INFO(name);
    BOOST_TEST(ci[name]["stage"].as<std::string>() == "test");
    BOOST_TEST(ci[name]["needs"].IsSequence());
    BOOST_TEST(ci[name]["extends"].as<std::string>() == ".tileperf");
  }
  BOOST_TEST(ci["tileperf:gate"]["needs"].size() == 0u);
  const auto vars = ci[".tileperf"]["variables"];
  BOOST_TEST(vars["TILEPERF_RUN_ID"].as<std::string>() == "$CI_PIPELINE_ID");
  BOOST_TEST(vars["TILEPERF_CACHE_DIR"].as<std::string>() == "$CI_PROJECT_DIR/.tileperf/cache");
  for (const char* key :
       {"TILEPERF_GIT", "TILEPERF_REF", "TILEPERF_REQUIREMENTS", "TILEPERF_PROJECT_DIR", "TILEPERF_BASELINES"}) {
    BOOST_TEST_INFO(key);
    BOOST_TEST(!vars[key].as<std::string>().empty());
  }
  const std::string setup = lines(ci[".tileperf"]["before_script"]);
  check_install(setup);
  const std::string commands = setup + lines(ci["tileperf:gate"]["script"]) + lines(ci["tileperf:report"]["script"]);
  check_portable(commands);
  check_installed(ci[".tileperf"]["before_script"][0].as<std::string>(), commands);
}

BOOST_AUTO_TEST_CASE(gitlab_gate) {
  YAML::Node ci = YAML::LoadFile(kCi + "/gitlab/tileperf.gitlab-ci.yml");
  const auto gate = ci["tileperf:gate"];
  BOOST_TEST(gate["parallel"].as<int>() == 3);
  const std::string script = lines(gate["script"]);
  BOOST_TEST(contains(script, "ctest --test-dir .tileperf/project -L perf -I \"$CI_NODE_INDEX,,$CI_NODE_TOTAL\""));
  BOOST_TEST(contains(script, "--output-junit \"$PWD/$shard/junit.xml\" || status=$?"));
  BOOST_TEST(contains(script, "-name run.json -o -name '*.result.json'"));
  BOOST_TEST(lines(gate["script"]).ends_with("exit $status\n"));
  check_python(script);
  check_expected(script);
  BOOST_TEST(gate["artifacts"]["when"].as<std::string>() == "always");
  BOOST_TEST(gate["artifacts"]["paths"][0].as<std::string>() == "tileperf-shard/");
  BOOST_TEST(gate["artifacts"]["reports"]["junit"].as<std::string>() == "tileperf-shard/*/junit.xml");

  // Caches: tileperf per ref, the environment by the requirements file (named
  // literally: key:files expands no variables), the results per shard and
  // branch with the default branch's as fallback; all kept when a test failed.
  const auto caches = gate["cache"];
  BOOST_TEST(caches.size() == 3u);
  for (const auto& cache : caches) BOOST_TEST(cache["when"].as<std::string>() == "always");
  BOOST_TEST(caches[0]["key"].as<std::string>() == "tileperf-$TILEPERF_REF");
  BOOST_TEST(caches[0]["paths"][0].as<std::string>() == ".tileperf/prefix");
  BOOST_TEST(caches[1]["key"]["files"][0].as<std::string>() ==
             ci[".tileperf"]["variables"]["TILEPERF_REQUIREMENTS"].as<std::string>());
  BOOST_TEST(caches[1]["paths"][0].as<std::string>() == ".tileperf/venv");
  const std::string key = caches[2]["key"].as<std::string>();
  BOOST_TEST(key == "tileperf-results-$CI_NODE_INDEX-of-$CI_NODE_TOTAL-$CI_COMMIT_REF_SLUG");
  BOOST_TEST(caches[2]["fallback_keys"][0].as<std::string>() ==
             "tileperf-results-$CI_NODE_INDEX-of-$CI_NODE_TOTAL-$CI_DEFAULT_BRANCH");
  BOOST_TEST(caches[2]["paths"][0].as<std::string>() == ".tileperf/cache");
  // ... emptied when the requirements changed, so that it does not only grow.
  BOOST_TEST(caches[2]["paths"][1].as<std::string>() == ".tileperf/cache.requirements");
  BOOST_TEST(contains(script, "cmp -s \"$TILEPERF_REQUIREMENTS\" .tileperf/cache.requirements"));
  BOOST_TEST(contains(script, "rm -rf \"$TILEPERF_CACHE_DIR\""));
}

BOOST_AUTO_TEST_CASE(gitlab_report) {
  YAML::Node ci = YAML::LoadFile(kCi + "/gitlab/tileperf.gitlab-ci.yml");
  const auto report = ci["tileperf:report"];
  BOOST_TEST(report["needs"][0]["job"].as<std::string>() == "tileperf:gate");
  BOOST_TEST(report["needs"][0]["artifacts"].as<bool>());
  for (const auto& rule : report["rules"]) BOOST_TEST(rule["when"].as<std::string>() == "always");
  BOOST_TEST(report["variables"]["GIT_DEPTH"].as<int>() == 0);
  BOOST_TEST(report["variables"]["BASE_REF"].as<std::string>() == "$CI_MERGE_REQUEST_TARGET_BRANCH_NAME");
  BOOST_TEST(report["cache"][0]["key"].as<std::string>() == ci["tileperf:gate"]["cache"][0]["key"].as<std::string>());
  BOOST_TEST(report["cache"][0]["policy"].as<std::string>() == "pull");
  const std::string script = lines(report["script"]);
  check_report_command(script);
  BOOST_TEST(script.ends_with("exit $status\n"));
  // One note, found by its marker among the token user's notes, updated in place.
  BOOST_TEST(contains(script, "marker='" + kMarker + "'"));
  BOOST_TEST(contains(script, "merge_requests/$CI_MERGE_REQUEST_IID/notes"));
  BOOST_TEST(contains(script, "select(.author.id == $me and (.body | contains($marker)))"));
  BOOST_TEST(contains(script, "--request PUT"));
  BOOST_TEST(contains(script, "\"$notes_api/$note\""));
  BOOST_TEST(contains(script, "no TILEPERF_NOTE_TOKEN"));
  BOOST_TEST(report["artifacts"]["when"].as<std::string>() == "always");
}
