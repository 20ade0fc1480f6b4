#include "codegen/mma/family.h"

#include "codegen/mma/tcgen05.h"
#include "codegen/mma/wgmma.h"

namespace tj::codegen::mma {

const Family* family_for(const Target& target) {
  if (target.has(Feature::Wgmma)) return &wgmma_family();
  if (target.has(Feature::Tcgen05)) return &tcgen05_family();
  return nullptr;
}

const Family& family_of(const Target& target) {
  const Family* f = family_for(target);
  if (!f) ir::internal_error("emit: " + target.arch + " has no MMA family (the verifier should have refused the kernel's MMAs)");
  return *f;
}

}  // namespace tj::codegen::mma
