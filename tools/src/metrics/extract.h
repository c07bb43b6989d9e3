// Turns parsed tool output into metric values.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "readers/elf.h"
#include "readers/resusage.h"
#include "readers/sass.h"

namespace tileperf {

// sass.instructions, sass.opcode.<OP>, sass.mufu, sass.mufu.<FN>, regs,
// stack.bytes, local.bytes, shared.bytes, cubin.bytes, cubin.text_bytes.
std::map<std::string, std::int64_t> extract_metrics(const SassListing& sass, const ResourceUsage& resources,
                                                    const ElfFile& cubin);

}  // namespace tileperf
