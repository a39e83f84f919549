#include "jit/kernels/copy.h"

#include "jit/kernels/map_kernel.h"

namespace kiln::jit::kernels {
namespace {

template <class To>
struct ConvertTo {
  template <class From>
  static To apply(From x) { return convert<To>(x); }
};

}  // namespace

void copy_elements(const TensorArg& dst, const TensorArg& src) {
  visit_dtype<kAllTypes>(dst.dtype, "copy", [&]<class To>() {
    visit_dtype<kAllTypes>(src.dtype, "copy", [&]<class From>() {
      run_elementwise(dst, std::span(&src, 1), &map_loop<ConvertTo<To>, To, From>);
    });
  });
}

void Copy(const KernelCall& c) { copy_elements(c.out, c.in[0]); }

}  // namespace kiln::jit::kernels
