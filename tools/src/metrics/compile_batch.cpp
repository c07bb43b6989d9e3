#include "metrics/compile_batch.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "metrics/compilation.h"
#include "metrics/disasm_batch.h"
#include "metrics/tool_outputs.h"
#include "readers/elf.h"
#include "support/error.h"
#include "support/forked.h"
#include "support/json_input.h"
#include "support/text.h"
#include "support/work_paths.h"

namespace tileperf {

namespace {

namespace fs = std::filesystem;

constexpr const char* kListFormat = "tileperf-compile-batch/2";

std::string string_field(const nlohmann::json& j, const char* key, const std::string& file) {
  if (!j.contains(key) || !j.at(key).is_string()) {
    throw InputError(file, 0, fmt::format("each entry needs a string '{}'", key));
  }
  return j.at(key).get<std::string>();
}

// The `compile_batch` entries of one registration record.
void read_record_entries(const std::string& record_file, std::vector<BatchEntry>& entries) {
  nlohmann::json record = parse_json(read_file(record_file), record_file);
  if (!record.is_object() || !record.contains("compile_batch") || !record.at("compile_batch").is_array()) {
    throw InputError(record_file, 0, "key 'compile_batch' must be a list");
  }
  for (const auto& e : record.at("compile_batch")) {
    if (!e.is_object()) throw InputError(record_file, 0, "each entry must be an object");
    entries.push_back({string_field(e, "test", record_file), string_field(e, "arch", record_file),
                       string_field(e, "bytecode", record_file), string_field(e, "dump_info", record_file)});
  }
}

}  // namespace

std::vector<BatchEntry> read_batch_list(const std::string& file) {
  nlohmann::json j = parse_json(read_file(file), file);
  if (!j.is_object() || j.value("format", "") != kListFormat || !j.contains("records") || !j.at("records").is_array()) {
    throw InputError(file, 0, std::string("not a ") + kListFormat + " list");
  }
  std::vector<BatchEntry> entries;
  for (const auto& record : j.at("records")) {
    if (!record.is_string()) throw InputError(file, 0, "each record must be a path");
    read_record_entries(record.get<std::string>(), entries);
  }
  return entries;
}

namespace {

struct Job {
  const BatchEntry* entry;
  CacheKey key;
  std::string prefix;    // <scratch>/<n>, beside which the outputs go
  std::string bytecode;  // the entry's, or its architecture's own (see read_dump_record)
};

struct Context {
  const std::vector<Job>* jobs;
  const Toolchain* tc;
};

// In a worker: compiles one configuration, runs cuobjdump -res-usage and
// tileirdisasm; on failure writes <prefix>.error instead.
void compile_job(std::size_t i, void* context) {
  const auto& c = *static_cast<Context*>(context);
  const Job& job = (*c.jobs)[i];
  try {
    std::string cubin = prefixed_file(job.prefix, FileKind::kCubin);
    auto compiled =
        compile_bytecode(*c.tc, job.bytecode, job.entry->arch, cubin, prefixed_file(job.prefix, FileKind::kRemarks));
    write_file_atomic(job.prefix + ".seconds", fmt::format("{:.3f}", compiled.seconds), Durability::kRenamed);
    parse_elf(read_file(cubin), cubin);
    write_file_atomic(prefixed_file(job.prefix, FileKind::kResUsage),
                      run_cuobjdump(*c.tc, {std::begin(kResUsageArgs), std::end(kResUsageArgs)}, cubin),
                      Durability::kRenamed);
    write_file_atomic(prefixed_file(job.prefix, FileKind::kTileir), run_tileirdisasm(*c.tc, job.bytecode),
                      Durability::kRenamed);
  } catch (const std::exception& e) {
    try {
      write_file_atomic(job.prefix + ".error", e.what(), Durability::kRenamed);
    } catch (const std::exception&) {
      // The parent finds no outputs and leaves the configuration to its check.
    }
  }
}

std::string scratch_folder(const ResultCache& cache) {
  std::random_device rd;
  fs::path dir = fs::path(cache.entry_dir("00")).parent_path().parent_path() / "tmp" /
                 fmt::format("batch.{}.{:x}", ::getpid(), rd());
  fs::create_directories(dir);
  return dir.string();
}

// The jobs: entries of the list whose bytecode exists and whose entry the
// cache lacks.
std::vector<Job> pending_jobs(const std::vector<BatchEntry>& entries, const ToolchainRecord& tools, const Toolchain& tc,
                              const ResultCache& cache, const std::string& scratch, BatchOutcome& out) {
  std::vector<Job> jobs;
  for (const auto& e : entries) {
    ++out.entries;
    try {
      std::string bytecode = e.bytecode;
      nlohmann::json dump = read_dump_record(bytecode, e.dump_info, e.arch);
      CacheKey key = compile_key(bytecode, dump, e.arch, compile_setup(tools, dump, e.arch, tc));
      if (cache.has(key)) {
        ++out.cached;
        continue;
      }
      jobs.push_back({&e, key, "", bytecode});
    } catch (const InputError& err) {
      out.left.push_back(fmt::format("{}: {}", e.test, err.what()));
    }
  }
  // The largest bytecode first, so that no worker is left with a long one at the end.
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const Job& a, const Job& b) { return fs::file_size(a.bytecode) > fs::file_size(b.bytecode); });
  for (std::size_t i = 0; i < jobs.size(); ++i) jobs[i].prefix = (fs::path(scratch) / std::to_string(i)).string();
  return jobs;
}

// Disassembles what compiled, in one batch, and stores each whole entry.
void store_compiled(const std::vector<Job>& jobs, const Toolchain& tc, const ResultCache& cache, int workers,
                    BatchOutcome& out) {
  std::vector<const Job*> compiled;
  std::vector<std::string> cubins;
  for (const auto& job : jobs) {
    if (fs::exists(job.prefix + ".error")) {
      out.left.push_back(fmt::format("{}: {}", job.entry->test, trim(read_file(job.prefix + ".error"))));
    } else if (fs::exists(prefixed_file(job.prefix, FileKind::kTileir))) {
      compiled.push_back(&job);
      cubins.push_back(prefixed_file(job.prefix, FileKind::kCubin));
    }
  }
  auto start = std::chrono::steady_clock::now();
  Disassembled done = disassemble_many(tc, cubins, cache.frames_dir(), workers);
  out.disassembler_calls = done.processes;
  auto disassembled = std::chrono::steady_clock::now();
  out.disassembly_seconds = std::chrono::duration<double>(disassembled - start).count();
  const auto& listings = done.listings;
  for (std::size_t i = 0; i < compiled.size(); ++i) {
    const Job& job = *compiled[i];
    if (!listings[i].listing) {
      out.left.push_back(fmt::format("{}: {}", job.entry->test, listings[i].error));
      continue;
    }
    write_file_atomic(prefixed_file(job.prefix, FileKind::kSass), *listings[i].listing, Durability::kRenamed);
    cache.store(job.key, artifact_paths(job.prefix));
    ++out.compiled;
    out.compile_seconds[job.entry->test] = std::stod(read_file(job.prefix + ".seconds"));
  }
  out.store_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - disassembled).count();
}

}  // namespace

BatchOutcome run_compile_batch(const std::vector<BatchEntry>& entries, const ToolchainRecord& tools,
                               const Toolchain& tc, const ResultCache& cache, int jobs) {
  BatchOutcome out;
  ScratchFolder scratch(scratch_folder(cache));
  auto start = std::chrono::steady_clock::now();
  std::vector<Job> pending = pending_jobs(entries, tools, tc, cache, scratch.path(), out);
  auto looked_up = std::chrono::steady_clock::now();
  out.lookup_seconds = std::chrono::duration<double>(looked_up - start).count();
  Context context{&pending, &tc};
  run_forked(pending.size(), jobs, compile_job, &context);
  out.compile_wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - looked_up).count();
  store_compiled(pending, tc, cache, jobs, out);
  return out;
}

}  // namespace tileperf
