#include "report/investigation_text.h"

#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "model/arch_table.h"
#include "report/view.h"
#include "support/text.h"

namespace tileperf {

namespace {

namespace fs = std::filesystem;

// "-38.2%", "0.0%" for a change under 0.05%.
std::string change_text(double change) {
  return std::abs(change) < 5e-4 ? "0.0%" : fmt::format("{:+.1f}%", 100 * change);
}

nlohmann::json row_json(const Investigation& inv, const VariantOutcome& v) {
  nlohmann::json j = {{"id", v.id}, {"kind", v.kind}, {"what", v.what}, {"where", v.where}, {"changes", v.changes}};
  if (!v.error.empty()) {
    j["error"] = v.error;
    return j;
  }
  auto value = [&](const char* name) { return v.value(name); };
  j["time_ns"] = value("cost.time_ns");
  j["change"] = estimate_change(inv, v);
  j["limit"] = v.limit;
  j["occupancy_limit"] = v.occupancy_limit;
  j["regs"] = value("regs");
  j["stack_bytes"] = value("stack.bytes");
  j["local_bytes"] = value("local.bytes");
  j["spill_remarks"] = value("remarks.register_spill");
  j["pressure_remarks"] = value("remarks.register_pressure");
  j["blocks_per_sm"] = value("launch.blocks_per_sm");
  j["instructions"] = value("sass.instructions");
  j["mufu"] = value("sass.mufu");
  j["tokens"] = value("tileir.tokens.ordered") + value("tileir.tokens.chained");
  j["cache"] = v.cache;
  return j;
}

// A tuning variant estimated below this fraction of the configuration's
// time does almost none of its work: a constant that leaves a loop without
// iterations (a causal kernel's TILE_M // TILE_N of 0, timed at 3% of its
// base on a GPU) rather than a faster kernel.
constexpr double kNoWork = 0.2;

bool does_no_work(const nlohmann::json& r) { return r.contains("change") && r["change"].get<double>() < kNoWork - 1; }

// The best estimate among rows of `kinds`, leaving out those that do no work.
const nlohmann::json* best_of(const nlohmann::json& rows, const std::vector<std::string>& kinds) {
  const nlohmann::json* best = nullptr;
  for (const auto& r : rows) {
    if (!r.contains("change") || std::find(kinds.begin(), kinds.end(), r["kind"].get<std::string>()) == kinds.end())
      continue;
    if (does_no_work(r)) continue;
    if (!best || r["change"].get<double>() < (*best)["change"].get<double>()) best = &r;
  }
  return best;
}

std::string at(const nlohmann::json& r) {
  std::string where = r.value("where", "");
  return where.empty() ? "" : " at " + where;
}

// What the experiments say, one sentence each: the findings the text, the
// JSON and the HTML report show first.
std::vector<std::string> findings(const nlohmann::json& j, const std::string& correctness) {
  std::vector<std::string> out;
  const auto& base = j["base"];
  double base_ns = base["time_ns"].get<double>();
  for (const auto& r : j["variants"]) {
    if (r["kind"] == "token_order" && r.value("error", "").rfind("the configuration's own bytecode", 0) == 0) {
      out.push_back("token ordering off: the export is the same; the kernel has no token ordering to remove");
    }
    if (!r.contains("change")) continue;
    std::string kind = r["kind"];
    double change = r["change"];
    if (kind == "isolate") {
      auto ops = r["changes"].value("ops", nlohmann::json::object());
      std::string names;
      for (auto it = ops.begin(); it != ops.end(); ++it) names += (names.empty() ? "" : ", ") + it.key();
      std::string share =
          change < -0.005 ? fmt::format("{:.0f}% of the estimated time", -100 * change) : "none of the estimated time";
      std::string mufu = r["mufu"] != base["mufu"] ? fmt::format("; MUFU {} -> {}", base["mufu"].get<std::int64_t>(),
                                                                 r["mufu"].get<std::int64_t>())
                                                   : "";
      std::string cls = r["changes"].value("class", "");
      std::string bound = cls == "cast" || cls == "reduction"
                              ? "; an upper bound: the constant that stands for it leaves its operand unused, and "
                                "what computes only that goes too"
                              : "";
      out.push_back(fmt::format("`{}`{}: {} (isolated: {} -> {}{}; limited by {}{})", names, at(r), share,
                                format_time_ns(base_ns), format_time_ns(r["time_ns"].get<double>()), mufu,
                                r.value("limit", ""), bound));
    } else if (kind == "exp2") {
      out.push_back(fmt::format("exp as exp2{}: {} estimated", at(r), change_text(change)));
    } else if (kind == "token_order") {
      out.push_back(fmt::format(
          "token ordering off: token operations {} -> {}, {} estimated. Safe only if the correctness test "
          "passes with it on a GPU: {}",
          base["tokens"].get<std::int64_t>(), r["tokens"].get<std::int64_t>(), change_text(change), correctness));
    }
  }
  out.push_back(fmt::format(
      "registers: {} per thread, {} B stack, {} B local, {} spill and {} pressure remark(s); {} CTA(s) per SM{}",
      base["regs"].get<std::int64_t>(), base["stack_bytes"].get<std::int64_t>(),
      base["local_bytes"].get<std::int64_t>(), base["spill_remarks"].get<std::int64_t>(),
      base["pressure_remarks"].get<std::int64_t>(), base["blocks_per_sm"].get<std::int64_t>(),
      base.value("occupancy_limit", "").empty() ? ""
                                                : " (limited by " + base["occupancy_limit"].get<std::string>() + ")"));
  for (const auto& r : j["variants"]) {
    if ((r["kind"] == "tune" || r["kind"] == "hint") && does_no_work(r)) {
      out.push_back(fmt::format(
          "`{}`: estimated at {:.0f}% of the configuration's time: it likely skips the work (a loop left without "
          "iterations), not a faster kernel; not suggested",
          r["what"].get<std::string>(), 100 * (1 + r["change"].get<double>())));
    }
  }
  if (const auto* best = best_of(j["variants"], {"tune", "hint"})) {
    double change = (*best)["change"];
    if (change < -0.005) {
      out.push_back(fmt::format(
          "suggested: {} ({} estimated; limited by {} -> {}; {} registers, {} CTA(s) per SM){}",
          (*best)["what"].get<std::string>(), change_text(change), base.value("limit", ""), (*best).value("limit", ""),
          (*best)["regs"].get<std::int64_t>(), (*best)["blocks_per_sm"].get<std::int64_t>(),
          (*best)["kind"] == "tune" ? ". Other constants can change what the kernel computes: run its correctness "
                                      "test with them before adopting"
                                    : ""));
    } else {
      out.push_back(
          "tuning: no neighbour of the configuration (tile sizes halved or doubled, other hints) is "
          "estimated faster");
    }
  }
  return out;
}

// The kernel's correctness test beside its file, as the analysis guide
// runs it with the token order off.
std::string correctness_command(const std::string& source, const std::string& kernel, const std::string& config) {
  std::string test = "<the kernel's correctness test>";
  std::error_code ec;
  fs::path folder = fs::path(source).parent_path();
  for (const auto& e : fs::directory_iterator(folder, ec)) {
    std::string name = e.path().filename().string();
    if (name.rfind("test_", 0) == 0 && name.size() > 3 && name.substr(name.size() - 3) == ".py") {
      test = e.path().string();
      break;
    }
  }
  return fmt::format("CUDA_TILE_TESTING_DISABLE_TOKEN_ORDER=1 pytest {} -k \"{} and {}\" --timeout=120", test, kernel,
                     config);
}

}  // namespace

std::string investigate_command(const std::string& test) { return "tileperf investigate " + test; }

nlohmann::json investigation_json(const Investigation& inv) {
  const auto& in = inv.inputs;
  nlohmann::json j = {{"format", kInvestigationFormat},
                      {"test", in.test},
                      {"kernel", in.kernel},
                      {"config", in.config},
                      {"arch", in.arch},
                      {"source", inv.source},
                      {"base", row_json(inv, inv.base)},
                      {"sites", inv.sites},
                      {"tuning", inv.tuning},
                      {"notes", inv.notes}};
  nlohmann::json rows = nlohmann::json::array();
  int rank = 0;
  for (const auto& v : inv.variants) {
    nlohmann::json r = row_json(inv, v);
    if (r.contains("change")) r["rank"] = ++rank;
    rows.push_back(std::move(r));
  }
  j["variants"] = std::move(rows);
  const ArchSpec& spec = arch_spec(in.arch);
  j["standing"] = {{"part", spec.part}, {"source", spec.source}};
  j["correctness"] = correctness_command(inv.source, in.kernel, in.config);
  j["findings"] = findings(j, j["correctness"]);
  j["seconds"] = {{"all", inv.seconds},
                  {"export", inv.export_seconds},
                  {"compile", inv.compile_seconds},
                  {"estimate", inv.measure_seconds}};
  j["compiled"] = inv.compiled;
  j["cached"] = inv.cached;
  return j;
}

std::string investigation_text(const nlohmann::json& j) {
  const auto& base = j["base"];
  std::string out = fmt::format(
      "{}: estimated {} (limited by {}), {} registers; {} variant(s) in {:.1f} s (export {:.1f} s, compile {:.1f} s "
      "with {} from the cache, estimate {:.1f} s)\n",
      j["test"].get<std::string>(), format_time_ns(base["time_ns"].get<double>()), base.value("limit", ""),
      base["regs"].get<std::int64_t>(), j["variants"].size(), j["seconds"]["all"].get<double>(),
      j["seconds"]["export"].get<double>(), j["seconds"]["compile"].get<double>(), j["cached"].get<std::size_t>(),
      j["seconds"]["estimate"].get<double>());
  out += fmt::format("  {:>3}  {:>10}  {:>7}  {:>4}  {:>4}  {:<10}  {:<11}  {}\n", "#", "estimate", "change", "regs",
                     "CTAs", "limit", "kind", "variant");
  for (const auto& r : j["variants"]) {
    std::string what = r.value("what", "") + at(r);
    if (r.contains("error")) {
      out += fmt::format("  {:>3}  {:>10}  {:>7}  {:>4}  {:>4}  {:<10}  {:<11}  {}: {}\n", "-", "-", "-", "-", "-", "-",
                         r["kind"].get<std::string>(), what, cut_text(r["error"].get<std::string>(), 300));
      continue;
    }
    out += fmt::format("  {:>3}  {:>10}  {:>7}  {:>4}  {:>4}  {:<10}  {:<11}  {}\n", r["rank"].get<int>(),
                       format_time_ns(r["time_ns"].get<double>()), change_text(r["change"].get<double>()),
                       r["regs"].get<std::int64_t>(), r["blocks_per_sm"].get<std::int64_t>(), r.value("limit", ""),
                       r["kind"].get<std::string>(), what);
  }
  out += "What the variants say:\n";
  for (const auto& f : j["findings"]) out += "  - " + f.get<std::string>() + "\n";
  for (const auto& n : j["notes"]) out += "  - " + n.get<std::string>() + "\n";
  out += fmt::format(
      "The estimate on {} stands on the figures of the {} ({}): it ranks variants; a GPU run confirms them.\n",
      j["arch"].get<std::string>(), j["standing"]["part"].get<std::string>(),
      j["standing"]["source"].get<std::string>());
  return out;
}

std::string investigation_html(const nlohmann::json& j) {
  std::string out = fmt::format("<section class=\"investigation\"><h3>What to try: {}</h3>\n<ul>\n",
                                html_escape(j.value("test", "")));
  for (const auto& f : j.value("findings", nlohmann::json::array())) {
    out += "<li>" + html_escape(f.get<std::string>()) + "</li>\n";
  }
  out +=
      "</ul>\n<table><tr><th>#</th><th>estimate</th><th>change</th><th>regs</th><th>CTAs/SM</th><th>limit</th>"
      "<th>kind</th><th>variant</th></tr>\n";
  for (const auto& r : j.value("variants", nlohmann::json::array())) {
    std::string what = html_escape(r.value("what", "") + at(r));
    if (r.contains("error")) {
      out += fmt::format("<tr><td>-</td><td colspan=\"5\">{}</td><td>{}</td><td>{}</td></tr>\n",
                         html_escape(r["error"].get<std::string>()), html_escape(r.value("kind", "")), what);
      continue;
    }
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
        r.value("rank", 0), format_time_ns(r.value("time_ns", 0.0)), change_text(r.value("change", 0.0)),
        r.value("regs", 0), r.value("blocks_per_sm", 0), html_escape(r.value("limit", "")),
        html_escape(r.value("kind", "")), what);
  }
  out += fmt::format("</table>\n<p>{} figures: {}</p></section>\n",
                     html_escape(j.value("standing", nlohmann::json::object()).value("part", "")),
                     html_escape(j.value("standing", nlohmann::json::object()).value("source", "")));
  return out;
}

}  // namespace tileperf
