// The result cache: keys that clones share, entries checked before use.
#define BOOST_TEST_MODULE cache
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cache.h"
#include "sha256.h"
#include "text.h"

using namespace tileperf;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("cache_test_" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
  std::string file(const std::string& name, const std::string& content) const {
    std::ofstream(path / name) << content;
    return (path / name).string();
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(sha256_matches_the_standard_vectors) {
  BOOST_TEST(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  BOOST_TEST(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  BOOST_TEST(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
             "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  std::string million(1000000, 'a');
  BOOST_TEST(sha256_hex(million) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  Sha256 pieces;  // fed in uneven pieces
  for (std::size_t i = 0; i < million.size(); i += 997) pieces.update(std::string_view(million).substr(i, 997));
  BOOST_TEST(pieces.hex() == sha256_hex(million));
}

BOOST_AUTO_TEST_CASE(clones_at_other_paths_share_the_bytecode_identity) {
  std::string a = std::string("\x7fTileIR\x00", 8) + "k.py/work/a/kernels/k.py/work/a/kernels";
  std::string b = std::string("\x7fTileIR\x00", 8) + "k.py/home/ci/src/kernels/k.py/home/ci/src/kernels";
  BOOST_TEST(bytecode_identity(a, "/work/a/kernels") == bytecode_identity(b, "/home/ci/src/kernels"));
  BOOST_TEST(bytecode_identity(a, "") != bytecode_identity(b, ""));
  BOOST_TEST(bytecode_identity(a + "x", "/work/a/kernels") != bytecode_identity(b, "/home/ci/src/kernels"));
}

BOOST_AUTO_TEST_CASE(the_key_covers_architecture_tools_and_flags) {
  std::map<std::string, std::string> tools{{"tileiras", "13.4.92"}};
  std::string k = cache_key("id", "sm_90", tools, "[\"-O3\"]");
  BOOST_TEST(k.size() == 64u);
  BOOST_TEST(k == cache_key("id", "sm_90", tools, "[\"-O3\"]"));
  BOOST_TEST(k != cache_key("id", "sm_100", tools, "[\"-O3\"]"));
  BOOST_TEST(k != cache_key("id", "sm_90", {{"tileiras", "13.5.37"}}, "[\"-O3\"]"));
  BOOST_TEST(k != cache_key("id", "sm_90", tools, "[\"-O2\"]"));
  BOOST_TEST(k != cache_key("id2", "sm_90", tools, "[\"-O3\"]"));
}

BOOST_AUTO_TEST_CASE(an_entry_is_stored_and_fetched_whole) {
  TempDir t;
  ResultCache cache((t.path / "cache").string());
  std::string key(64, 'a');
  BOOST_TEST(!cache.fetch(key, {{"cubin", (t.path / "out.cubin").string()}}));
  cache.store(key, {{"cubin", t.file("in.cubin", "CUBIN")}, {"sass", t.file("in.sass", "SASS")}});
  BOOST_TEST(cache.fetch(key, {{"cubin", (t.path / "out.cubin").string()},
                               {"sass", (t.path / "out.sass").string()}}));
  BOOST_TEST(read_file((t.path / "out.cubin").string()) == "CUBIN");
  BOOST_TEST(read_file((t.path / "out.sass").string()) == "SASS");
  // A second writer of the same key leaves the first entry as it is.
  cache.store(key, {{"cubin", t.file("other.cubin", "OTHER")}, {"sass", t.file("in.sass", "SASS")}});
  BOOST_TEST(cache.fetch(key, {{"cubin", (t.path / "out2.cubin").string()}}));
  BOOST_TEST(read_file((t.path / "out2.cubin").string()) == "CUBIN");
  bool no_leftovers = !fs::exists(t.path / "cache" / "v1" / "tmp") || fs::is_empty(t.path / "cache" / "v1" / "tmp");
  BOOST_TEST(no_leftovers);
}

BOOST_AUTO_TEST_CASE(a_damaged_or_foreign_entry_is_a_miss_and_removed) {
  TempDir t;
  ResultCache cache((t.path / "cache").string());
  std::string key(64, 'b');
  cache.store(key, {{"cubin", t.file("in.cubin", "CUBIN")}});
  std::ofstream(fs::path(cache.entry_dir(key)) / "cubin") << "CUBIX";  // one byte changed
  BOOST_TEST(!cache.fetch(key, {{"cubin", (t.path / "out.cubin").string()}}));
  BOOST_TEST(!fs::exists(cache.entry_dir(key)));
  BOOST_TEST(!fs::exists(t.path / "out.cubin"));
  // An entry of another key moved under this one is not trusted either.
  std::string other(64, 'c');
  cache.store(other, {{"cubin", t.file("in.cubin", "CUBIN")}});
  fs::create_directories(fs::path(cache.entry_dir(key)).parent_path());
  fs::rename(cache.entry_dir(other), cache.entry_dir(key));
  BOOST_TEST(!cache.fetch(key, {{"cubin", (t.path / "out.cubin").string()}}));
  // A file the entry lacks.
  cache.store(key, {{"cubin", t.file("in.cubin", "CUBIN")}});
  BOOST_TEST(!cache.fetch(key, {{"sass", (t.path / "out.sass").string()}}));
}

BOOST_AUTO_TEST_CASE(an_empty_folder_turns_the_cache_off) {
  ResultCache off("");
  BOOST_TEST(!off.enabled());
  off.store(std::string(64, 'd'), {});
  BOOST_TEST(!off.fetch(std::string(64, 'd'), {}));
}
