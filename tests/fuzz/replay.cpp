// Feeds every file under the given folders to a fuzz target, without
// libFuzzer: the committed corpus replayed as a regression test. A folder
// that holds no input is an error (exit 2): a replay of nothing proves nothing.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    if (!fs::is_directory(argv[i])) {
      std::cerr << "replay: " << argv[i] << ": not a folder\n";
      return 2;
    }
    std::size_t before = files.size();
    for (const auto& entry : fs::recursive_directory_iterator(argv[i])) {
      if (entry.is_regular_file()) files.push_back(entry.path());
    }
    // A seed pattern that stops matching would leave the replay testing nothing.
    if (files.size() == before) {
      std::cerr << "replay: " << argv[i]
                << ": no inputs (does its seed pattern in tests/fuzz/CMakeLists.txt "
                   "still match?)\n";
      return 2;
    }
  }
  if (files.empty()) {
    std::cerr << "replay: no folders of inputs given\n";
    return 2;
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::cout << file.string() << "\n" << std::flush;  // the last one named is the culprit
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  std::cout << files.size() << " inputs replayed: no crash, every error named its input\n";
  return 0;
}
