// SHA-256 (FIPS 180-4), for the keys and the integrity of the result cache.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace tileperf {

class Sha256 {
 public:
  Sha256();
  Sha256& update(std::string_view data);
  // The digest as 64 lower-case hex digits; the object is spent afterwards.
  std::string hex();

 private:
  void block(const unsigned char* p);

  std::array<std::uint32_t, 8> h_;
  std::array<unsigned char, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t length_ = 0;  // bytes
};

std::string sha256_hex(std::string_view data);

}  // namespace tileperf
