// Turns one job of a CI template (ci/github/*.yml, ci/gitlab/*.yml) into
// shell scripts that run its commands here, as the CI system would, so that
// tests/ci/run_templates.sh can run the templates' own commands against a
// consumer project.
//
//   ci_job_script github <workflow> <job> <table> <outdir> [--skip NAME]...
//     run.sh runs every run: step in order, each in its own
//     `bash --noprofile --norc -eo pipefail` with the workflow's, the job's and
//     the step's env: and what earlier steps appended to $GITHUB_ENV; a step
//     runs when none failed before it, or when its if: says always. ${{ }}
//     expressions in env: and if: are looked up in <table> (lines
//     "<expression>\t<value>"; an if: condition maps to always, success or
//     never); a run: script holding ${{ }} is refused. uses: steps are skipped
//     (they are actions); so are steps named by --skip.
//   ci_job_script gitlab <file> <job> <outdir> [--skip TEXT]...
//     run.sh exports the variables of the job and of what it extends, then runs
//     before_script and script in one shell with -eo pipefail, as GitLab's
//     runner does; a command holding a --skip TEXT is left out.
//   ci_job_script js <workflow> <job> <step name> <outdir>
//     step.js holds the script: of the actions/github-script step so named.
//
// Exit: 0, or 2 with "ci_job_script: <what is wrong>" on stderr.
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct Refusal : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t");
  auto e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// 'text' as one shell word.
std::string shell_word(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::map<std::string, std::string> read_table(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Refusal("cannot read " + path);
  std::map<std::string, std::string> table;
  for (std::string line; std::getline(in, line);) {
    auto tab = line.find('\t');
    if (line.empty() || line[0] == '#' || tab == std::string::npos) continue;
    table[line.substr(0, tab)] = line.substr(tab + 1);
  }
  return table;
}

// Every ${{ expression }} of text replaced by its value in the table.
std::string substitute(const std::string& text, const std::map<std::string, std::string>& table) {
  std::string out;
  std::size_t pos = 0;
  while (true) {
    auto open = text.find("${{", pos);
    if (open == std::string::npos) break;
    auto close = text.find("}}", open);
    if (close == std::string::npos) throw Refusal("unclosed ${{ in: " + text);
    std::string expr = trim(text.substr(open + 3, close - open - 3));
    auto it = table.find(expr);
    if (it == table.end()) throw Refusal("no value for the expression '" + expr + "' in the table");
    out += text.substr(pos, open - pos) + it->second;
    pos = close + 2;
  }
  return out + text.substr(pos);
}

void write(const fs::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw Refusal("cannot write " + path.string());
}

std::string exports(const YAML::Node& env, const std::map<std::string, std::string>& table) {
  std::string out;
  if (!env) return out;
  for (const auto& kv : env) {
    out += "export " + kv.first.as<std::string>() + "=" + shell_word(substitute(kv.second.as<std::string>(), table)) +
           "\n";
  }
  return out;
}

bool has(const std::vector<std::string>& list, const std::string& value) {
  for (const auto& v : list)
    if (v == value) return true;
  return false;
}

void github(const std::string& file, const std::string& job_name, const std::string& table_file, const fs::path& outdir,
            const std::vector<std::string>& skip) {
  YAML::Node wf = YAML::LoadFile(file);
  YAML::Node job = wf["jobs"][job_name];
  if (!job) throw Refusal(file + ": no job '" + job_name + "'");
  auto table = read_table(table_file);
  std::string run = "#!/usr/bin/env bash\n# " + file + ", job " + job_name + "\n";
  run += exports(wf["env"], table) + exports(job["env"], table);
  run += "failed=0\n: \"${GITHUB_ENV:?}\"\n";
  int n = 0;
  for (const auto& step : job["steps"]) {
    std::string name = step["name"] ? step["name"].as<std::string>() : step["uses"].as<std::string>();
    name = substitute(name, table);
    if (!step["run"] || has(skip, name)) {
      run += "echo " + shell_word("--- skipped: " + name) + " >&2\n";
      continue;
    }
    std::string script = step["run"].as<std::string>();
    if (script.find("${{") != std::string::npos) {
      throw Refusal("step '" + name + "' has a ${{ }} expression in run: (pass it through env:)");
    }
    std::string when = "success";
    if (step["if"]) {
      std::string cond = trim(step["if"].as<std::string>());
      if (cond.starts_with("${{") && cond.ends_with("}}")) cond = trim(cond.substr(3, cond.size() - 5));
      auto it = table.find("if: " + cond);
      if (it == table.end()) throw Refusal("no value for the condition 'if: " + cond + "' in the table");
      when = it->second;
    }
    if (when == "never") {
      run += "echo " + shell_word("--- not run (if: false): " + name) + " >&2\n";
      continue;
    }
    std::string script_file = "step-" + std::to_string(++n) + ".sh";
    write(outdir / script_file, script + "\n");  // outdir is absolute: run.sh runs anywhere
    run += "if [[ $failed == 0 || " + shell_word(when) + " == always ]]; then\n";
    run += "  echo " + shell_word("--- " + name) + " >&2\n";
    run += "  if ! (set -a; [[ ! -f $GITHUB_ENV ]] || source \"$GITHUB_ENV\"; set +a\n" + exports(step["env"], table) +
           "    exec bash --noprofile --norc -eo pipefail " + shell_word((outdir / script_file).string()) +
           "); then\n    failed=1\n    echo " + shell_word("--- failed: " + name) + " >&2\n  fi\nfi\n";
  }
  run += "exit $failed\n";
  write(outdir / "run.sh", run);
}

// The job's key, or the one it inherits through extends: (the nearest wins).
YAML::Node inherited(const YAML::Node& doc, const YAML::Node& job, const std::string& key) {
  if (job[key]) return job[key];
  if (!job["extends"]) return YAML::Node();
  std::vector<std::string> bases;
  if (job["extends"].IsSequence()) {
    for (const auto& b : job["extends"]) bases.push_back(b.as<std::string>());
  } else {
    bases.push_back(job["extends"].as<std::string>());
  }
  for (auto it = bases.rbegin(); it != bases.rend(); ++it) {
    if (auto found = inherited(doc, doc[*it], key)) return found;
  }
  return YAML::Node();
}

// Variables of what the job extends, then its own (which win).
std::string gitlab_variables(const YAML::Node& doc, const YAML::Node& job) {
  std::string out;
  if (job["extends"]) {
    if (job["extends"].IsSequence()) {
      for (const auto& b : job["extends"]) out += gitlab_variables(doc, doc[b.as<std::string>()]);
    } else {
      out += gitlab_variables(doc, doc[job["extends"].as<std::string>()]);
    }
  }
  if (job["variables"]) {
    for (const auto& kv : job["variables"]) {
      // GitLab expands $VARIABLES in values: so does the shell, within double quotes.
      out += "export " + kv.first.as<std::string>() + "=\"" + kv.second.as<std::string>() + "\"\n";
    }
  }
  return out;
}

void gitlab(const std::string& file, const std::string& job_name, const fs::path& outdir,
            const std::vector<std::string>& skip) {
  YAML::Node doc = YAML::LoadFile(file);
  YAML::Node job = doc[job_name];
  if (!job) throw Refusal(file + ": no job '" + job_name + "'");
  std::string run = "#!/usr/bin/env bash\n# " + file + ", job " + job_name + "\n";
  run += gitlab_variables(doc, job) + "set -eo pipefail\n";
  for (const char* key : {"before_script", "script"}) {
    for (const auto& item : inherited(doc, job, key)) {
      std::string command = item.as<std::string>();
      bool skipped = false;
      for (const auto& s : skip) skipped = skipped || command.find(s) != std::string::npos;
      run += skipped ? ": skipped: " + shell_word(command.substr(0, command.find('\n'))) + "\n" : command + "\n";
    }
  }
  write(outdir / "run.sh", run);
}

void js(const std::string& file, const std::string& job_name, const std::string& step_name, const fs::path& outdir) {
  YAML::Node wf = YAML::LoadFile(file);
  for (const auto& step : wf["jobs"][job_name]["steps"]) {
    if (step["name"] && step["name"].as<std::string>() == step_name) {
      write(outdir / "step.js", step["with"]["script"].as<std::string>());
      return;
    }
  }
  throw Refusal(file + ": job " + job_name + " has no step '" + step_name + "'");
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::vector<std::string> positional, skip;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--skip" && i + 1 < args.size()) {
      skip.push_back(args[++i]);
    } else {
      positional.push_back(args[i]);
    }
  }
  if (positional.size() >= 4) positional.back() = fs::absolute(positional.back()).string();
  try {
    if (positional.size() == 5 && positional[0] == "github") {
      github(positional[1], positional[2], positional[3], positional[4], skip);
    } else if (positional.size() == 4 && positional[0] == "gitlab") {
      gitlab(positional[1], positional[2], positional[3], skip);
    } else if (positional.size() == 5 && positional[0] == "js") {
      js(positional[1], positional[2], positional[3], positional[4]);
    } else {
      std::cerr << "usage: ci_job_script github <workflow> <job> <table> <outdir> [--skip NAME]...\n"
                   "       ci_job_script gitlab <file> <job> <outdir> [--skip TEXT]...\n"
                   "       ci_job_script js <workflow> <job> <step name> <outdir>\n";
      return 2;
    }
  } catch (const std::exception& e) {
    std::cerr << "ci_job_script: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
