// SASS from a cubin, through the CUDA toolkit's cuobjdump or nvdisasm when one is
// installed. Needs no GPU.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tj::rt {

struct Disassembler {
  std::string tool;  // "cuobjdump" or "nvdisasm"
  std::string path;  // the executable
};

// The folders a disassembler is looked for in, in order: those of `path_env` (PATH's
// syntax), then `<cuda_root>/bin` (cuda_root empty: /usr/local/cuda). As text for
// messages: "PATH (/usr/bin:/bin), /usr/local/cuda/bin".
std::string disassembler_search_text(std::string_view path_env, std::string_view cuda_root);

// cuobjdump if any of those folders has it, else nvdisasm, else nullopt.
std::optional<Disassembler> find_disassembler(std::string_view path_env, std::string_view cuda_root);

// The same, with PATH and CUDA_ROOT from the environment.
std::optional<Disassembler> find_disassembler();
std::string disassembler_search_text();

// The cubin's SASS as the tool prints it (`cuobjdump -sass` / `nvdisasm`). Throws
// RuntimeError(Compile) with the tool's message when it fails, RuntimeError(Io) when the
// temporary files cannot be written.
std::string disassemble(const std::string& cubin, const Disassembler& tool);

}  // namespace tj::rt
