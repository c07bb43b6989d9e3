// The result cache: keys that clones share, entries checked before use.
#define BOOST_TEST_MODULE cache
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <vector>

#include "toolchain/cache.h"
#include "toolchain/cache_paths.h"
#include "fixtures.h"
#include "support/error.h"
#include "support/http.h"
#include "toolchain/remote_cache.h"
#include "support/sha256.h"
#include "support/text.h"

using namespace tileperf;
namespace fs = std::filesystem;

namespace {

struct TempDir : testing::TempFolder {
  const fs::path& path = root;
  TempDir() : TempFolder("cache_test") {}
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

// A bytecode the dump step wrote for the gelu kernel at /work/main/kernels.
std::string gelu_bytecode() { return testing::fixture_of("13.5.37", "gelu.f16_1024.tileirbc"); }

BOOST_AUTO_TEST_CASE(clones_at_other_paths_share_the_bytecode_identity) {
  std::string here = gelu_bytecode();
  BytecodePaths paths = bytecode_paths(here);
  BOOST_TEST(paths.roots == std::vector<std::string>{"/work/main/kernels"});
  for (const char* other : {"/w/k", "/home/ci/builds/group/project/kernels", "/work/main/kernelz"}) {
    BOOST_TEST_CONTEXT(other) {
      std::string there = bytecode_at(here, {other}).value();
      BOOST_TEST(there.find(other) != std::string::npos);
      BytecodePaths moved = bytecode_paths(there);
      BOOST_TEST(moved.identity == paths.identity);
      BOOST_TEST(moved.roots == std::vector<std::string>{other});
    }
  }
  BOOST_TEST(bytecode_at(here, {"/work/main/kernels"}).value() == here);
}

BOOST_AUTO_TEST_CASE(only_the_folders_leave_the_identity) {
  std::string here = gelu_bytecode();
  std::string id = bytecode_paths(here).identity;
  // The file's name, a line of an operation, a byte of code: another identity.
  std::string renamed = here;
  renamed.replace(renamed.find("gelu.py"), 7, "gelu.px");
  BOOST_TEST(bytecode_paths(renamed).identity != id);
  for (std::size_t at : {std::size_t{20}, std::size_t{100}, here.size() - 2}) {
    std::string changed = here;
    changed[at] = static_cast<char>(changed[at] ^ 1);
    BOOST_TEST_CONTEXT(at) { BOOST_TEST(bytecode_paths(changed).identity != id); }
  }
  // What does not parse keeps its bytes' hash, and no roots.
  BytecodePaths cut = bytecode_paths(here.substr(0, here.size() - 1));
  BOOST_TEST(cut.roots.empty());
  BOOST_TEST(cut.identity != id);
  BOOST_TEST(bytecode_paths("not a bytecode").identity != bytecode_paths("not a bytecode!").identity);
  BOOST_TEST(!bytecode_at("not a bytecode", {"/a"}));
}

BOOST_AUTO_TEST_CASE(text_names_the_roots_by_token_and_back) {
  std::vector<std::string> roots{"/work/main/kernels", "/work/main/kernels/lib", "/venv/site-packages"};
  std::string text =
      "loc(\"/work/main/kernels/gelu.py\":3) in \"/work/main/kernels\" "
      "File: '/work/main/kernels/lib/x.py' /venv/site-packages/f/g.py "
      "/work/main/kernelsX /a/work/main/kernels //work/main/kernels";
  std::string tokens = roots_to_tokens(text, roots).value();
  BOOST_TEST(tokens ==
             "loc(\"<tileperf-root-0>/gelu.py\":3) in \"<tileperf-root-0>\" "
             "File: '<tileperf-root-1>/x.py' <tileperf-root-2>/f/g.py "
             "/work/main/kernelsX /a/work/main/kernels //work/main/kernels");
  BOOST_TEST(tokens_to_roots(tokens, roots).value() == text);
  std::vector<std::string> there{"/b", "/b/lib", "/opt/env/lib/python3.11/site-packages"};
  BOOST_TEST(tokens_to_roots(tokens, there).value() ==
             "loc(\"/b/gelu.py\":3) in \"/b\" File: '/b/lib/x.py' /opt/env/lib/python3.11/site-packages/f/g.py "
             "/work/main/kernelsX /a/work/main/kernels //work/main/kernels");
  // A text that holds a token already cannot be stored; a token of a root
  // the key has not is another bytecode's entry.
  BOOST_TEST(!roots_to_tokens("x <tileperf-root-0> y", roots));
  BOOST_TEST(!tokens_to_roots("<tileperf-root-3>", roots));
  BOOST_TEST(!tokens_to_roots("<tileperf-root-x>", roots));
  BOOST_TEST(tokens_to_roots("no tokens", {}).value() == "no tokens");
}

BOOST_AUTO_TEST_CASE(an_entry_serves_a_clone_with_its_own_folders) {
  TempDir t;
  ResultCache cache((t.path / "cache").string());
  CacheKey a(std::string(64, 'e'), {"/work/a/kernels"});
  CacheKey b(a.hash, {"/home/ci/src/kernels"});
  cache.store(a, {{"cubin", t.file("in.cubin", "BINARY /work/a/kernels")},
                  {"tileir", t.file("in.tileir", "loc(\"/work/a/kernels/k.py\":1:2)")}});
  std::string stored = read_file((fs::path(cache.entry_dir(a.hash)) / "tileir").string());
  BOOST_TEST(stored == "loc(\"<tileperf-root-0>/k.py\":1:2)");
  BOOST_TEST(
      cache.fetch(b, {{"cubin", (t.path / "out.cubin").string()}, {"tileir", (t.path / "out.tileir").string()}}));
  BOOST_TEST(read_file((t.path / "out.tileir").string()) == "loc(\"/home/ci/src/kernels/k.py\":1:2)");
  BOOST_TEST(read_file((t.path / "out.cubin").string()) == "BINARY /work/a/kernels");  // kept as compiled
  // A key without the root its entry's tokens name: the entry is not this key's.
  BOOST_TEST(!cache.fetch(CacheKey(a.hash), {{"tileir", (t.path / "out2.tileir").string()}}));
  BOOST_TEST(!fs::exists(cache.entry_dir(a.hash)));
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
  BOOST_TEST(cache.fetch(key, {{"cubin", (t.path / "out.cubin").string()}, {"sass", (t.path / "out.sass").string()}}));
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

BOOST_AUTO_TEST_CASE(sizes_and_ages_are_read_with_their_units) {
  BOOST_TEST(parse_size("4096").value() == 4096u);
  BOOST_TEST(parse_size("500M").value() == 500ull << 20);
  BOOST_TEST(parse_size("2G").value() == 2ull << 30);
  BOOST_TEST(parse_size("1.5K").value() == 1536u);
  BOOST_TEST(parse_duration("0").value() == 0);
  BOOST_TEST(parse_duration("90m").value() == 5400);
  BOOST_TEST(parse_duration("30d").value() == 30 * 86400);
  BOOST_TEST(parse_duration("12h").value() == 12 * 3600);
  for (const char* bad : {"", "G", "-1", "2GB", "1..5", ".5", "5.", "1e9", "9999999999T", " 5"}) {
    BOOST_TEST_CONTEXT(bad) {
      BOOST_TEST(!parse_size(bad));
      BOOST_TEST(!parse_duration(bad));
    }
  }
}

BOOST_AUTO_TEST_CASE(a_prune_keeps_the_entries_used_last) {
  TempDir t;
  std::string dir = (t.path / "cache").string();
  ResultCache cache(dir);
  auto now = fs::file_time_type::clock::now();
  std::vector<std::string> keys;
  // Five entries of 1000 bytes, used 1 to 5 days ago (key 0 most recently).
  for (int i = 0; i < 5; ++i) {
    keys.push_back(std::string(64, static_cast<char>('a' + i)));
    cache.store(keys.back(), {{"cubin", t.file("in.cubin", std::string(1000, 'x'))}});
    fs::last_write_time(cache.entry_dir(keys.back()), now - std::chrono::hours(24 * (i + 1)));
  }
  // A fill that never finished two hours ago, and one still being written.
  fs::create_directories(fs::path(dir) / "v1" / "tmp" / "old.1");
  fs::last_write_time(fs::path(dir) / "v1" / "tmp" / "old.1", now - std::chrono::hours(2));
  fs::create_directories(fs::path(dir) / "v1" / "tmp" / "new.2");
  auto before = cache_usage(dir);
  BOOST_TEST(before.entries == 5u);
  BOOST_TEST(before.leftovers == 2u);

  // Only the limits asked for: nothing is older than a week.
  auto none = prune_cache(dir, {.max_age_seconds = 7 * 86400, .max_bytes = std::nullopt}, now);
  BOOST_TEST(none.kept.entries == 5u);
  BOOST_TEST(none.removed.entries == 0u);
  BOOST_TEST(none.removed.leftovers == 1u);  // the unfinished fill of two hours ago
  BOOST_TEST(fs::exists(fs::path(dir) / "v1" / "tmp" / "new.2"));

  // A hit marks its entry used: the oldest becomes the newest.
  BOOST_TEST(cache.fetch(keys[4], {{"cubin", (t.path / "out.cubin").string()}}));
  std::uint64_t entry = before.bytes / 5;  // the file and the manifest
  BOOST_TEST(entry > 1000u);
  auto pruned =
      prune_cache(dir, {.max_age_seconds = 3 * 86400 + 60, .max_bytes = entry * 5 / 2}, now + std::chrono::seconds(1));
  // Kept: keys[4] (just used) and keys[0]; keys[1] and keys[2] would pass 2.5
  // entries' size, keys[3] is older than the age limit.
  BOOST_TEST(pruned.kept.entries == 2u);
  BOOST_TEST(pruned.kept.bytes == 2 * entry);
  BOOST_TEST(pruned.removed.entries == 3u);
  BOOST_TEST(pruned.removed.bytes == 3 * entry);
  BOOST_TEST(fs::exists(cache.entry_dir(keys[4])));
  BOOST_TEST(fs::exists(cache.entry_dir(keys[0])));
  for (int i : {1, 2, 3}) BOOST_TEST(!fs::exists(cache.entry_dir(keys[static_cast<std::size_t>(i)])));
  BOOST_TEST(!cache.fetch(keys[2], {{"cubin", (t.path / "out.cubin").string()}}));
  BOOST_TEST(cache.fetch(keys[0], {{"cubin", (t.path / "out.cubin").string()}}));
  // Nothing set aside is left behind.
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    BOOST_TEST(e.path().string().find(".pruned.") == std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(a_missing_cache_folder_holds_nothing) {
  TempDir t;
  auto u = cache_usage((t.path / "absent").string());
  BOOST_TEST(u.entries == 0u);
  auto r = prune_cache((t.path / "absent").string(), {.max_age_seconds = 0, .max_bytes = 0},
                       fs::file_time_type::clock::now());
  BOOST_TEST(r.removed.entries == 0u);
}

namespace {

// Sets an environment variable for one test case, and removes it after.
struct Env {
  Env(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
  ~Env() { ::unsetenv(name_); }
  const char* name_;
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_url_in_a_message_carries_no_credentials) {
  BOOST_TEST(shown_url("https://ci:s3cret@cache.example.com/tileperf") == "https://cache.example.com/tileperf");
  BOOST_TEST(shown_url("http://127.0.0.1:8080/a@b") == "http://127.0.0.1:8080/a@b");
  BOOST_TEST(shown_url("http://cache/x") == "http://cache/x");
}

BOOST_AUTO_TEST_CASE(the_remote_cache_settings_come_from_the_environment) {
  {
    Env url("TILEPERF_CACHE_URL", "http://127.0.0.1:1/cache/");
    Env token("TILEPERF_CACHE_TOKEN", "t0ken");
    Env write("TILEPERF_CACHE_WRITE", "1");
    RemoteSettings s = remote_settings_from_environment();
    BOOST_TEST(s.url == "http://127.0.0.1:1/cache");
    BOOST_TEST(s.write);
    BOOST_TEST(s.http.bearer_token == "t0ken");
  }
  BOOST_TEST(remote_settings_from_environment().url.empty());
  Env url("TILEPERF_CACHE_URL", "ftp://cache");
  BOOST_CHECK_THROW(remote_settings_from_environment(), UsageError);
}

BOOST_AUTO_TEST_CASE(a_server_that_does_not_answer_is_a_miss_and_opens_the_breaker) {
  fs::path dir = fs::temp_directory_path() / ("tileperf-remote-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  RemoteSettings s;
  s.url = "http://127.0.0.1:9";  // the discard port: nothing listens there
  s.http.timeout_seconds = 2;
  RemoteCache remote(s, dir.string());
  std::string key(64, 'a');
  BOOST_TEST(!remote.fetch(key));
  BOOST_TEST(fs::exists(dir / "remote-breaker.read"));
  auto start = std::chrono::steady_clock::now();
  BOOST_TEST(!remote.fetch(key));  // not asked again
  bool quick = std::chrono::steady_clock::now() - start < std::chrono::milliseconds(100);
  BOOST_TEST(quick);
  fs::remove_all(dir);
}
