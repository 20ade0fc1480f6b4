// The uneven sample's host side: the record buffers, and the check of one launch's
// records: every unit ran exactly once, and none ran shorter than its cost.
#include <cstdio>
#include <set>

#include "runtime/buffer.h"
#include "samples/uneven.h"

namespace tj::samples {

namespace {

class UnevenHost final : public UnevenInstance {
 public:
  explicit UnevenHost(const UnevenPlan& p)
      : p_(p), start_(bytes(8)), end_(bytes(8)), sm_(bytes(4)), runs_(bytes(4)) {}

  rt::ArgPack args() override {
    rt::ArgPack a;
    a.push(start_.ptr()).push(end_.ptr()).push(sm_.ptr()).push(runs_.ptr());
    a.push(int32_t(p_.tiles_m)).push(int32_t(p_.tiles_n)).push(uint32_t(p_.unit_ns));
    return a;
  }
  // Times and SMs all ones (a unit that never ran shows as one), counts zero: the kernel
  // adds one per run.
  void poison() override {
    start_.fill_u8(0xFF);
    end_.fill_u8(0xFF);
    sm_.fill_u8(0xFF);
    runs_.fill_u8(0);
  }
  Check verify() override { return check_uneven_records(p_, records()); }
  double bytes_per_launch() const override { return double(p_.units()) * 24; }  // the records written

  const UnevenPlan& plan() const override { return p_; }
  std::vector<UnitRecord> records() const override {
    const std::vector<uint64_t> start = start_.download_as<uint64_t>(), end = end_.download_as<uint64_t>();
    const std::vector<uint32_t> sm = sm_.download_as<uint32_t>(), runs = runs_.download_as<uint32_t>();
    std::vector<UnitRecord> out(start.size());
    for (size_t i = 0; i < out.size(); ++i) out[i] = {start[i], end[i], sm[i], runs[i]};
    return out;
  }

 private:
  size_t bytes(size_t elem) const { return size_t(p_.units()) * elem; }
  UnevenPlan p_;
  rt::DeviceBuffer start_, end_, sm_, runs_;
};

}  // namespace

Check check_uneven_records(const UnevenPlan& p, const std::vector<UnitRecord>& records, uint32_t launches) {
  if (records.size() != size_t(p.units()))
    return {false, "uneven: " + std::to_string(records.size()) + " records for " + std::to_string(p.units()) + " units"};
  MismatchLog log;
  std::set<uint32_t> sms;
  for (int64_t i = 0; i < p.tiles_m; ++i)
    for (int64_t j = 0; j < p.tiles_n; ++j) {
      const UnitRecord& r = records[size_t(i * p.tiles_n + j)];
      auto unit = [&] { return "unit (" + std::to_string(i) + ", " + std::to_string(j) + ")"; };
      log.compare_equal(r.runs, launches, [&] { return unit() + " runs"; });
      if (r.runs != launches) continue;
      sms.insert(r.sm);
      // Its busy-wait ends once the timer has moved its cost past its start.
      const int64_t want = p.nominal_ns(i);
      const int64_t ran = r.end >= r.start ? int64_t(r.end - r.start) : -1;
      log.compare_equal(ran >= want ? want : ran, want, [&] { return unit() + " ns busy (at least)"; });
    }
  Check c = log.result("uneven " + p.text() + ": each unit ran " +
                       (launches == 1 ? std::string("exactly once") : "once in each of " + std::to_string(launches) + " launches") +
                       " and at least its cost");
  char span[120];
  std::snprintf(span, sizeof span, "; span %.3f ms on %zu SMs", recorded_span_ns(records) * 1e-6, sms.size());
  c.detail += span;
  return c;
}

std::unique_ptr<UnevenInstance> make_uneven_instance(const UnevenPlan& p) { return std::make_unique<UnevenHost>(p); }

}  // namespace tj::samples
