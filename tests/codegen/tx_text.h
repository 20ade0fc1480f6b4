// The exact text verify_transactions writes, shared by the tests that check it.
#pragma once

#include <cstdint>
#include <string>

namespace tj::test {

// A 32 x 64 f32 box: 8192 bytes.
inline constexpr uint32_t kBox = 32 * 64 * 4;

inline const char* kGuardFix =
    "announce box bytes x copies x multicast senders into this CTA; a copy issued by every thread is issued 128 "
    "times: guard it with if_(thread_idx_x() == 0, ...)";
inline const char* kMissingFix = "announce exactly the bytes that land in this CTA per phase, or add the missing copies";

// "transaction bytes of barrier 'full[0]' do not match in CTA rank R[ when ...]: ..." for
// lines of `file`. Barriers are accounted one by one: a constant index names the barrier.
inline std::string tx_text(const std::string& file, unsigned rank, uint64_t announced, unsigned expect_line,
                           uint64_t delivered, unsigned copy_line, const std::string& barrier = "full[0]",
                           const std::string& when = "") {
  auto at = [&](unsigned line) { return file + ":" + std::to_string(line); };
  std::string m = "transaction bytes of barrier '" + barrier + "' do not match in CTA rank " + std::to_string(rank) +
                  (when.empty() ? "" : " when " + when) + ": " + std::to_string(announced) + " bytes announced with expect_tx";
  if (expect_line) m += " (arrive_expect_tx at " + at(expect_line) + ")";
  m += ", " + std::to_string(delivered) + " bytes delivered by the copies completing on it";
  if (copy_line) m += " (first copy at " + at(copy_line) + ")";
  return m;
}

}  // namespace tj::test
