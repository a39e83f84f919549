#include <kiln/nn/module.h>

#include <unordered_set>
#include <utility>

#include <kiln/autograd.h>
#include <kiln/error.h>
#include <kiln/serialize/archive.h>

namespace kiln::nn {

void Module::save(serialize::OutputArchive& archive) const {
  for (const auto& item : named_parameters()) archive.write(item.key(), item.value());
  for (const auto& item : named_buffers()) archive.write(item.key(), item.value(), /*is_buffer=*/true);
}

void Module::load(serialize::InputArchive& archive) {
  const std::string where = kiln::detail::cat("[nn::Module::load] ", archive.filename(), ": ", name(), ": ");
  std::vector<std::pair<Tensor, Tensor>> copies;  // (the module's tensor, the file's values)
  std::unordered_set<std::string> expected;
  const auto check = [&](const std::string& key, const Tensor& target) {
    expected.insert(key);
    Tensor stored;
    if (!archive.try_read(key, stored))
      throw ValueError(kiln::detail::cat(where, "entry '", key, "' (", target.dtype(), " ", target.sizes(),
                                         " in the module) is missing from the file"));
    if (stored.dtype() != target.dtype())
      throw DtypeError(kiln::detail::cat(where, "entry '", key, "' is ", stored.dtype(), " ", stored.sizes(),
                                         " in the file but ", target.dtype(), " ", target.sizes(), " in the module"));
    if (!(stored.sizes() == target.sizes()))
      throw ShapeError(kiln::detail::cat(where, "entry '", key, "' has shape ", stored.sizes(), " in the file but ",
                                         target.sizes(), " in the module"));
    copies.emplace_back(target, std::move(stored));
  };
  for (const auto& item : named_parameters()) check(item.key(), item.value());
  for (const auto& item : named_buffers()) check(item.key(), item.value());
  for (const std::string& key : archive.keys()) {
    if (expected.count(key)) continue;
    Tensor extra;
    if (archive.try_read(key, extra))
      throw ValueError(kiln::detail::cat(where, "entry '", key, "' (", extra.dtype(), " ", extra.sizes(),
                                         " in the file) is not in the module"));
    throw ValueError(kiln::detail::cat(where, "entry '", key, "' (a number in the file) is not in the module"));
  }
  NoGradGuard no_grad;
  for (auto& [target, stored] : copies) target.copy_(stored);
}

}  // namespace kiln::nn
