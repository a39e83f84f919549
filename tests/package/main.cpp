// Consumer smoke test: only the public header, only the kiln::kiln target.
#include <kiln/kiln.h>

#include <cstdio>
#include <exception>

int main() {
  try {
    auto a = kiln::ones({2, 3});
    auto b = a + a;
    float total = b.sum().item<float>();
    if (total != 12.0f) {
      std::fprintf(stderr, "kiln consumer: sum of ones({2,3}) + itself is %g, expected 12\n", total);
      return 1;
    }
    std::printf("kiln consumer: ok (sum = %g)\n", total);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kiln consumer: exception: %s\n", e.what());
    return 1;
  }
}
