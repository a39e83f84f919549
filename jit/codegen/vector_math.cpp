#include "jit/codegen/vector_math.h"

#include <deque>
#include <string>
#include <vector>

#include <llvm/ADT/StringRef.h>
#include <llvm/MC/MCSubtargetInfo.h>

namespace kiln::jit::codegen {
namespace {

struct Isa {
  char letter;            // libmvec's ISA letter: b (SSE4), d (AVX2), e (AVX-512)
  const char* feature;    // required target feature, or nullptr for the x86-64 baseline
  unsigned float_lanes;   // lanes of a float vector; doubles have half
};
constexpr Isa kIsas[] = {{'b', nullptr, 4}, {'d', "+avx2", 8}, {'e', "+avx512f", 16}};

struct MathFunction {
  const char* name;  // double form; the float form appends 'f'
  int arity;
  bool has_intrinsic;  // llvm.<name>.f32/.f64 exists
};
constexpr MathFunction kFunctions[] = {
    {"exp", 1, true},  {"log", 1, true},  {"log1p", 1, false}, {"sin", 1, true},
    {"cos", 1, true},  {"tanh", 1, true}, {"erf", 1, false},   {"pow", 2, true},
};

struct Mapping {
  const char* feature;
  llvm::VecDesc desc;
};

// VecDesc holds StringRefs: the names live here, for the whole process.
const std::vector<Mapping>& all_mappings() {
  static const std::vector<Mapping> mappings = [] {
    static std::deque<std::string> names;
    auto keep = [](std::string s) -> llvm::StringRef { return names.emplace_back(std::move(s)); };
    std::vector<Mapping> out;
    for (const Isa& isa : kIsas) {
      for (const MathFunction& fn : kFunctions) {
        for (bool single : {true, false}) {
          const unsigned lanes = single ? isa.float_lanes : isa.float_lanes / 2;
          const std::string scalar = std::string(fn.name) + (single ? "f" : "");
          const std::string params(fn.arity, 'v');
          const std::string n = std::to_string(lanes);
          llvm::StringRef vector = keep("_ZGV" + std::string(1, isa.letter) + "N" + n + params + "_" + scalar);
          llvm::StringRef prefix = keep("_ZGV_LLVM_N" + n + params);
          const auto vf = llvm::ElementCount::getFixed(lanes);
          out.push_back({isa.feature, llvm::VecDesc(keep(scalar), vector, vf, false, prefix)});
          if (fn.has_intrinsic) {
            llvm::StringRef intrinsic = keep("llvm." + std::string(fn.name) + (single ? ".f32" : ".f64"));
            out.push_back({isa.feature, llvm::VecDesc(intrinsic, vector, vf, false, prefix)});
          }
        }
      }
    }
    return out;
  }();
  return mappings;
}

}  // namespace

bool has_target_feature(const llvm::TargetMachine& tm, llvm::StringRef feature) {
  return tm.getMCSubtargetInfo()->checkFeatures(feature);  // the CPU's own features and the feature string's
}

llvm::TargetLibraryInfoImpl library_info(const llvm::TargetMachine& tm) {
  llvm::TargetLibraryInfoImpl tli(tm.getTargetTriple());
  std::vector<llvm::VecDesc> available;
  for (const Mapping& m : all_mappings())
    if (m.feature == nullptr || has_target_feature(tm, m.feature)) available.push_back(m.desc);
  tli.addVectorizableFunctions(available);
  return tli;
}

}  // namespace kiln::jit::codegen
