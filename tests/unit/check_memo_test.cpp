// A check's memo: reused only while every input it names is unchanged.
#define BOOST_TEST_MODULE check_memo
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <filesystem>
#include <string>

#include "gate/check_memo.h"
#include "support/sha256.h"
#include "support/text.h"

using namespace tileperf;
namespace fs = std::filesystem;

namespace {

struct Folder {
  fs::path dir = fs::temp_directory_path() / ("tileperf-memo-" + std::to_string(::getpid()));
  Folder() {
    fs::remove_all(dir);
    fs::create_directories(dir / "checks");
    write("bytecode", "b1");
    write("checks/default.json", "{}");
    write("metrics.json", "{\"values\": {}}\n");
  }
  ~Folder() { fs::remove_all(dir); }
  void write(const std::string& name, const std::string& text) const {
    write_file_atomic((dir / name).string(), text, Durability::kRenamed);
  }
  std::string path(const std::string& name) const { return (dir / name).string(); }
  MemoInputs inputs() const {
    MemoInputs in;
    in.args = {"--kernel", "k"};
    in.files = {path("bytecode"), path("absent.json")};
    in.folders = {path("checks")};
    return in;
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(the_fingerprint_moves_with_every_input) {
  Folder f;
  std::string first = memo_fingerprint(f.inputs());
  BOOST_TEST(memo_fingerprint(f.inputs()) == first);
  f.write("checks/softmax.json", "{}");  // a new policy file
  std::string with_policy = memo_fingerprint(f.inputs());
  BOOST_TEST(with_policy != first);
  f.write("bytecode", "b2");
  BOOST_TEST(memo_fingerprint(f.inputs()) != with_policy);
  MemoInputs other = f.inputs();
  other.args.push_back("--strict");
  BOOST_TEST(memo_fingerprint(other) != memo_fingerprint(f.inputs()));
  f.write("absent.json", "{}");  // a baseline that appears
  BOOST_TEST(memo_fingerprint(f.inputs()) != memo_fingerprint(other));
}

BOOST_AUTO_TEST_CASE(a_memo_is_reused_only_with_its_fingerprint_and_metrics_file) {
  Folder f;
  std::string fp = memo_fingerprint(f.inputs());
  Memo m{fp, 3, "perf.k.a.sm_90: regressed\n", {{"state", "regressed"}}, sha256_hex(read_file(f.path("metrics.json")))};
  save_memo(f.path("memo.json"), m);
  auto reused = reusable_memo(f.path("memo.json"), fp, f.path("metrics.json"));
  BOOST_REQUIRE(reused);
  BOOST_TEST(reused->exit_code == 3);
  BOOST_TEST(reused->output == m.output);
  BOOST_TEST(reused->result.at("state") == "regressed");
  BOOST_TEST(!reusable_memo(f.path("memo.json"), "another fingerprint", f.path("metrics.json")));
  f.write("metrics.json", "{\"values\": {\"regs\": 1}}\n");  // rewritten since
  BOOST_TEST(!reusable_memo(f.path("memo.json"), fp, f.path("metrics.json")));
  f.write("memo.json", "not JSON");
  BOOST_TEST(!reusable_memo(f.path("memo.json"), fp, f.path("metrics.json")));
}
