#include "dsl/pipeline.h"

#include "dsl/diagnostic.h"

namespace tj::dsl {

namespace {
unsigned checked_stages(const std::string& name, unsigned stages, const SrcLoc& loc) {
  if (stages < 1 || stages > 32)
    throw UserError(ir::Loc::from(loc), "pipeline '" + name + "' has " + std::to_string(stages) + " stages",
                    "use 1 to 32 stages");
  return stages;
}
}  // namespace

// stages_ is initialized (and checked) before the barriers are declared.
Pipeline::Pipeline(KernelBuilder& k, const std::string& name, unsigned stages, unsigned consumer_arrivals, SrcLoc loc)
    : stages_(checked_stages(name, stages, loc)),
      full_(k.mbarriers(name + "_full", stages, 1, loc)),
      empty_(k.mbarriers(name + "_empty", stages, consumer_arrivals, loc)) {}

void Pipeline::acquire(const i32& it, SrcLoc loc) const {
  if_(it >= int32_t(stages_), [&] { wait(empty(it), loc); }, loc);
}

void Pipeline::wait_full(const i32& it, SrcLoc loc) const { wait(full(it), loc); }

void Pipeline::release(const i32& it, SrcLoc loc) const { arrive(empty(it), loc); }

}  // namespace tj::dsl
